import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InvoiceDemoResult, invoiceDemo } from '../src/demo/invoices.js';
import { Store } from '../src/store.js';
import { filesContaining } from './support/scan.js';
import { tempDir } from './support/stores.js';

/**
 * The invoice story end to end (cairn demo, part 2), with known account
 * tokens so that every byte it left behind can be scanned for them.
 */
const LIVE = 'sk_live_demoTest_4c1d2e3f4a5b6c7d';
const SANDBOX = 'sk_test_demoTest_8e9f0a1b2c3d4e5f';
let temp: { dir: string; remove(): void };
let result: InvoiceDemoResult;
let lines: string[];

beforeAll(async () => {
  temp = tempDir('cairn-keys-demo-');
  const store = await Store.openDir(join(temp.dir, 'store'));
  try {
    ({ result, lines } = await invoiceDemo({
      root: temp.dir,
      store,
      env: { PATH: process.env.PATH },
      tokens: { live: LIVE, sandbox: SANDBOX },
    }));
  } finally {
    await store.close();
  }
}, 60_000);

afterAll(() => temp.remove());

describe('the invoice story', () => {
  it('reaches state 42 with 40 invoices reconciled on the live account', () => {
    expect(result.reconciledAtState42).toBe(40);
  });

  it('A (read): computes what it would change; every write refused; the live account untouched', () => {
    const a = result.branches[0]!;
    expect(a).toMatchObject({ branch: 'a-read', grant: 'read', applied: 0, liveWrites: 0, sandboxWrites: 0 });
    expect(a.wouldChange).toBeGreaterThan(100);
    expect(a.refused).toBe(a.wouldChange);
  });

  it('B (sandbox): its writes reach the test account only', () => {
    const b = result.branches[1]!;
    expect(b).toMatchObject({ branch: 'b-sandbox', grant: 'sandbox', refused: 0, liveWrites: 0 });
    expect(b.applied).toBe(160);
    expect(b.sandboxWrites).toBe(b.applied);
    expect(result.sandbox.writes).toBe(160);
  });

  it('C (live, each write approved): only approved writes reach the live account; the denied one never does', () => {
    const c = result.branches[2]!;
    expect(c).toMatchObject({
      branch: 'c-live',
      grant: 'live+each-write',
      applied: 4,
      refused: 1,
      sandboxWrites: 0,
    });
    expect(result.approvals).toEqual({ approved: 4, denied: 1 });
    expect(c.liveWrites).toBe(4);
    expect(result.live.writes).toBe(40 + 4);
    // Nobody ever reached the billing API with a wrong or missing token: every request carried the injected one.
    expect(result.live.unauthorized).toBe(0);
    expect(result.audit['keys.approval.deny']).toBe(1);
    expect(result.audit['keys.approval.approve']).toBe(4);
  });

  it('leaves no plaintext secret anywhere: store folder, every branch workspace, proxy log, output', () => {
    expect(result.secretScan.hits).toEqual([]);
    expect(result.secretScan.files).toBeGreaterThan(8);
    // An independent scan: every file under the demo folder, for both secrets.
    expect(readdirSync(temp.dir).sort()).toEqual(
      expect.arrayContaining(['store', 'invoices', 'invoice-branches', 'proxy.log']),
    );
    for (const secret of [LIVE, SANDBOX]) {
      expect(filesContaining(temp.dir, secret)).toEqual([]);
      expect(lines.join('\n')).not.toContain(secret);
      expect(result.proxyLog.join('\n')).not.toContain(secret);
      expect(JSON.stringify(result)).not.toContain(secret);
    }
    expect(result.proxyLog.length).toBeGreaterThan(300);
  });
});
