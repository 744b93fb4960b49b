/** Retention's operation (contract/spec.ts; docs/design/retention.md). */
import { spec } from '../contract/spec.js';
import * as shape from './shapes.js';

export const RETENTION_CONTRACT = {
  sweepBranches: spec({
    name: 'sweepBranches',
    summary:
      'Retention: delete abandoned branches past their time with the events only they hold, their steps, memory, workspaces and keys (an admin; `cairn gc` runs it; dryRun says what would go)',
    effect: 'write',
    callers: 'admin',
    access: 'branch.sweep',
    runs: 'anywhere',
    input: shape.SweepBranchesInput,
    output: shape.BranchSweep,
    http: { method: 'POST', path: '/v1/retention/branches/sweep' },
  }),
};
