/** The redaction policy's operations (contract/spec.ts; docs/design/redaction.md). */
import { z } from 'zod';
import { spec } from '../contract/spec.js';
import * as shape from './shapes.js';

export const REDACTION_CONTRACT = {
  setRedactionPolicy: spec({
    name: 'setRedactionPolicy',
    summary:
      "Set the tenant's redaction policy: personal data (e-mail, phone, card, IBAN, listed national ids) in event payloads and memory is replaced by typed placeholders before it is stored (a person who is an admin)",
    effect: 'write',
    callers: 'person-admin',
    access: 'redaction',
    runs: 'anywhere',
    input: shape.RedactionPolicyInput,
    output: shape.RedactionPolicy,
    http: { method: 'PUT', path: '/v1/redaction-policy' },
    cli: {
      command: ['redaction', 'set'],
      summary: 'set what personal data is redacted before storage (--enabled to turn it on)',
      example: 'cairn redaction set --enabled --kinds email --kinds phone --phone-region US',
    },
  }),
  getRedactionPolicy: spec({
    name: 'getRedactionPolicy',
    summary: "The tenant's redaction policy (off until a person who is an admin sets one)",
    effect: 'read',
    callers: 'admin',
    access: 'redaction',
    runs: 'anywhere',
    input: z.object({}).strict(),
    output: shape.RedactionPolicy,
    http: { method: 'GET', path: '/v1/redaction-policy' },
    cli: {
      command: ['redaction', 'show'],
      summary: 'show what personal data is redacted before storage',
      example: 'cairn redaction show',
    },
  }),
};
