/** What identity's operations answer, as zod schemas. */
import { z } from 'zod';
import { at } from '../shapes.js';

export const CreatedToken = z.object({
  id: z.string(),
  token: z.string().describe('the secret bearer token, shown once: Cairn keeps only its hash'),
  tenant: z.string(),
  principal: z.string(),
  label: z.string(),
});

export const RevokedToken = z.object({
  id: z.string(),
  principal: z.string(),
  revokedAt: at.describe('when it was revoked (the first revocation, if it was revoked before)'),
});
