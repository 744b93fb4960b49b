/** `cairn redaction set|show`: the tenant's redaction policy, made from the operations' CLI bindings. */
import type { z } from 'zod';
import type { FabricCommand } from '../cli/command.js';
import { operationCommand } from '../cli/derived.js';
import { REDACTION_CONTRACT } from './contract.js';
import type * as shape from './shapes.js';

type Policy = z.output<typeof shape.RedactionPolicy>;

const lines = (p: Policy) =>
  p.enabled
    ? [
        `redaction on: ${[...p.kinds, ...p.nationalIds].join(', ') || 'nothing listed'}${p.phoneRegion ? ` (phone numbers read in ${p.phoneRegion})` : ''}`,
        `set by ${p.updatedBy} at ${new Date(p.updatedAt).toISOString()}`,
      ]
    : ['redaction off: payloads and memory are stored as written'];

export const REDACTION_COMMANDS: FabricCommand[] = [
  operationCommand(REDACTION_CONTRACT.setRedactionPolicy, lines),
  operationCommand(REDACTION_CONTRACT.getRedactionPolicy, lines),
];
