import type { Client } from './contract/spec.js';
import type { Operations } from './ops/table.js';

/**
 * What an agent harness talks to, whether the fabric is embedded in its
 * process (`openFabric`) or served over HTTP (`connect`): one method per
 * operation of the table (ops/table.ts), the same type for both. Every call
 * acts as one identity and sees only its tenant.
 */
export type Fabric = Client<Operations> & { close(): Promise<void> };
