import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fabric } from '../fabric.js';
import { approvalCases } from './keys-conformance/approvals.js';
import { boundaryCases } from './keys-conformance/boundaries.js';
import { credentialCases } from './keys-conformance/credentials.js';
import { grantCases } from './keys-conformance/grants.js';
import { KeysSuite } from './keys-conformance/suite.js';

/**
 * The keys conformance suite: every surface of the keys — the embedded
 * fabric on SQLite and on PostgreSQL, the remote client through a server
 * over HTTP — runs these same cases through the operations of the table
 * they share (credentials, grants, approvals). A target that cannot run
 * them says why in `skip`. The cases are in `keys-conformance/`.
 */
export interface KeysConformanceTarget {
  /** A fabric acting as an admin of tenant A, with the vault's master key (it can seal values). */
  tenantA: Fabric;
  /** The same for a different tenant B, on the same store. */
  tenantB: Fabric;
  /**
   * Records a write of tenant A's held for a person, as the egress proxy
   * would (the proxy's path is not an operation of the table): a handle for
   * the branch, then the request under the branch's grants on the
   * credential. Resolves the id of the pending approval.
   */
  holdWrite(request: HeldWriteRequest): Promise<string>;
  close(): Promise<void>;
}

/** A write (POST) of one branch through one of its credentials. */
export interface HeldWriteRequest {
  session: string;
  branch: string;
  credential: string;
  /** Path under the credential's upstream, starting with `/`. */
  path: string;
  body: string;
}

export interface KeysConformanceOptions {
  /** When set, the suite is skipped and this reason is shown. */
  skip?: string;
}

export function describeKeysConformance(
  name: string,
  open: () => Promise<KeysConformanceTarget>,
  options: KeysConformanceOptions = {},
): void {
  const title = options.skip ? `${name} (skipped: ${options.skip})` : name;
  describe.skipIf(options.skip !== undefined)(`keys conformance: ${title}`, () => {
    const suite = new KeysSuite();

    beforeAll(async () => {
      await suite.open(await open());
    });
    afterAll(async () => {
      await suite.target?.close();
    });

    credentialCases(suite);
    grantCases(suite);
    approvalCases(suite);
    boundaryCases(suite);

    it('no answer or error of any of these operations, to either tenant, held a credential value', () => {
      expect(suite.secrets.length).toBeGreaterThan(20);
      expect(suite.answers.length).toBeGreaterThan(100);
      expect(suite.leaked()).toEqual([]);
    });
  });
}
