/** The audit chain's operations (contract/spec.ts). */
import { spec } from '../contract/spec.js';
import * as schema from '../schema.js';
import * as shape from './shapes.js';

export const AUDIT_CONTRACT = {
  verifyAudit: spec({
    name: 'verifyAudit',
    summary: "Verify the tenant's audit chain",
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.AuditReport,
    http: { method: 'GET', path: '/v1/audit/verify' },
  }),
};
