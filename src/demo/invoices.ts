import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionCounts } from '../audit/audit-chain.js';
import type { WorkspaceId } from '../ids.js';
import { randomHex } from '../ids.js';
import { MasterKey } from '../keys/crypto.js';
import type { Keys } from '../keys/keys.js';
import { startProxy } from '../keys/proxy.js';
import type { Store } from '../store.js';
import { execInWorkspace } from '../unit/exec.js';
import { Units } from '../unit/unit.js';
import { type BillingAccount, INVOICE_COUNT, startBillingApi } from './billing-api.js';

/**
 * `cairn demo`, part 2 — the invoice story (the keys layer). A billing API
 * with a live and a sandbox account, 200 invoices each. The agent reconciles
 * 40 on the live account ("state 42"), is checkpointed, and is forked three
 * ways — the work is copied, the credentials are not:
 *
 * - A gets a read grant: it computes its matches and tries to apply them;
 *   every write is refused, and its report says what it would change;
 * - B gets a sandbox grant: its writes go to the test account only;
 * - C gets the live account with each write held for a person: the demo
 *   plays that person, approving four writes and denying one.
 *
 * Then it scans every byte of the store, every workspace and the proxy's
 * log for the secrets.
 */
const AGENT_SCRIPT = `// reconcile.mjs — the agent's tool: match open invoices to unmatched payments, then apply.
// It reaches the billing API only through Cairn's proxy, with its branch handle; it never holds a token.
import { writeFileSync } from 'node:fs';

const [strategy = 'by-reference', limitText = 'all'] = process.argv.slice(2);
const base = process.env.CAIRN_PROXY_URL + '/billing';
const headers = { 'x-cairn-handle': process.env.CAIRN_HANDLE ?? '', 'content-type': 'application/json' };
async function get(path) {
  const res = await fetch(base + path, { headers });
  if (!res.ok) throw new Error('GET ' + path + ': ' + res.status);
  return res.json();
}
const invoices = await get('/invoices?status=open');
const payments = await get('/payments?unmatched=1');
const byAmount = new Map(payments.map((p) => [p.amountCents, p]));
const byReference = new Map(payments.filter((p) => p.reference).map((p) => [p.reference, p]));
const matches = [];
for (const invoice of invoices) {
  const ref = byReference.get(invoice.id);
  const amount = byAmount.get(invoice.amountCents);
  const pick = strategy === 'by-reference' ? ref : strategy === 'by-amount' ? amount : ref && ref === amount ? ref : undefined;
  if (pick) matches.push({ invoice: invoice.id, payment: pick.id });
}
const limit = limitText === 'all' ? matches.length : Number(limitText);
const applied = [];
const refused = [];
for (const m of matches.slice(0, limit)) {
  const res = await fetch(base + '/invoices/' + m.invoice + '/reconcile', {
    method: 'POST',
    headers,
    body: JSON.stringify({ payment: m.payment }),
  });
  const answer = await res.json().catch(() => ({}));
  if (res.ok) applied.push({ ...m, status: res.status });
  else refused.push({ ...m, status: res.status, reason: answer.error?.message ?? String(answer.error ?? '') });
}
const report = { strategy, open: invoices.length, wouldChange: matches, applied, refused };
writeFileSync('report.json', JSON.stringify(report, null, 2) + '\\n');
console.log(strategy + ': ' + matches.length + ' matches, ' + applied.length + ' applied, ' + refused.length + ' refused');
`;

interface Report {
  strategy: string;
  open: number;
  wouldChange: { invoice: string; payment: string }[];
  applied: { invoice: string; payment: string; status: number }[];
  refused: { invoice: string; payment: string; status: number; reason: string }[];
}

export interface InvoiceBranch {
  branch: string;
  grant: string;
  dir: string;
  strategy: string;
  wouldChange: number;
  applied: number;
  refused: number;
  liveWrites: number;
  sandboxWrites: number;
}

export interface InvoiceDemoResult {
  api: string;
  stateCheckpoint: string;
  reconciledAtState42: number;
  branches: InvoiceBranch[];
  approvals: { approved: number; denied: number };
  live: { reconciled: number; writes: number; unauthorized: number };
  sandbox: { reconciled: number; writes: number };
  secretScan: { files: number; bytes: number; hits: string[] };
  proxyLog: string[];
  audit: Record<string, number>;
}

const reconciled = (account: BillingAccount) =>
  account.invoices.filter((i) => i.status === 'reconciled').length;

/** Every regular file under root: how many, how many bytes, and which hold any needle. */
function scan(root: string, needles: string[]): { files: number; bytes: number; hits: string[] } {
  const out = { files: 0, bytes: 0, hits: [] as string[] };
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(abs);
      else if (st?.isFile()) {
        const bytes = readFileSync(abs);
        out.files++;
        out.bytes += bytes.length;
        if (needles.some((n) => bytes.includes(n))) out.hits.push(abs);
      }
    }
  };
  walk(root);
  return out;
}

/** Plays the person in the loop: approves every held write except the `denyNth` one, until stopped. */
function person(keys: Keys, denyNth: number) {
  let running = true;
  const seen = { approved: 0, denied: 0 };
  const done = (async () => {
    while (running) {
      for (const a of await keys.listApprovals()) {
        const nth = seen.approved + seen.denied + 1;
        await keys.decide(
          a.id,
          nth === denyNth ? 'deny' : 'approve',
          nth === denyNth ? 'wrong customer' : '',
        );
        if (nth === denyNth) seen.denied++;
        else seen.approved++;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

export async function invoiceDemo(input: {
  root: string;
  store: Store;
  env: Record<string, string | undefined>;
  /** The billing API's account tokens (random by default; a test passes its own to scan for them). */
  tokens?: { live: string; sandbox: string };
}): Promise<{ result: InvoiceDemoResult; lines: string[] }> {
  const { root, store } = input;
  const node = process.execPath;
  const liveToken = input.tokens?.live ?? `sk_live_${randomHex(16)}`;
  const sandboxToken = input.tokens?.sandbox ?? `sk_test_${randomHex(16)}`;
  const api = await startBillingApi({ liveToken, sandboxToken, reconciled: { live: 0, sandbox: 40 } });
  // The demo plays the operator too: the master key lives only in this process.
  const who = await store.localIdentity();
  const keys = store.keys(who, { masterKey: MasterKey.generate() });
  const desk = store.desk(who, { host: 'demo' });
  const fabric = store.fabric(who);
  const units = new Units(fabric, desk, keys);
  const proxyLog: string[] = [];
  const proxy = await startProxy({
    keysFor: (tenant) => (tenant === who.tenant ? keys : undefined),
    auditRefusalsIn: keys,
    approvalTimeoutMs: 30_000,
    pollMs: 10,
    log: (line) => proxyLog.push(line),
  });
  try {
    const dir = join(root, 'invoices');
    mkdirSync(dir);
    writeFileSync(join(dir, 'reconcile.mjs'), AGENT_SCRIPT);
    writeFileSync(
      join(dir, 'TASK.md'),
      `Reconcile the ${INVOICE_COUNT} open invoices against incoming payments.\n`,
    );
    const { workspace } = await desk.attach({ dir });
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: `${api.url}/live`,
      value: Buffer.from(liveToken),
      sandbox: { upstream: `${api.url}/sandbox`, value: Buffer.from(sandboxToken) },
    });
    const rootGrant = await keys.grant({
      session: workspace.session,
      branch: workspace.branch,
      credential: 'billing',
      mode: 'live',
    });
    const run = (ws: WorkspaceId, args: string[]) =>
      execInWorkspace(fabric, desk, {
        workspace: ws,
        command: [node, 'reconcile.mjs', ...args],
        env: input.env,
        keys: { keys, proxyUrl: proxy.url },
      });
    // The agent's own work on the real account, under the user's grant: 40 invoices.
    await run(workspace.id, ['by-reference', '40']);
    const state42 = await units.checkpoint({ workspace: workspace.id, label: 'state 42: 40 reconciled' });
    const atState42 = reconciled(api.live);
    const forked = await units.fork(state42.id, {
      branches: ['a-read', 'b-sandbox', 'c-live'],
      dirRoot: join(root, 'invoice-branches'),
      driver: 'copy',
      grants: [
        [{ credential: 'billing', mode: 'read' }],
        [{ credential: 'billing', mode: 'sandbox' }],
        [{ credential: 'billing', mode: 'live', approval: 'each-write' }],
      ],
    });
    const plans = [
      { strategy: 'by-reference', limit: 'all' },
      { strategy: 'by-amount', limit: 'all' },
      { strategy: 'by-reference-and-amount', limit: '5' },
    ];
    const branches: InvoiceBranch[] = [];
    const approver = person(keys, 3);
    try {
      for (const [i, b] of forked.branches.entries()) {
        const plan = plans[i] as (typeof plans)[number];
        const liveBefore = api.live.writes.length;
        const sandboxBefore = api.sandbox.writes.length;
        await run(b.workspace.id, [plan.strategy, plan.limit]);
        const report = JSON.parse(readFileSync(join(b.workspace.dir, 'report.json'), 'utf8')) as Report;
        branches.push({
          branch: b.branch,
          grant: `${b.grants[0]?.mode}${b.grants[0]?.approval === 'each-write' ? '+each-write' : ''}`,
          dir: b.workspace.dir,
          strategy: plan.strategy,
          wouldChange: report.wouldChange.length,
          applied: report.applied.length,
          refused: report.refused.length,
          liveWrites: api.live.writes.length - liveBefore,
          sandboxWrites: api.sandbox.writes.length - sandboxBefore,
        });
      }
    } finally {
      await approver.stop();
    }
    const audit = await store.engine.read(who.tenant, (tx) => actionCounts(tx, who.tenant, 'keys.'));
    writeFileSync(join(root, 'proxy.log'), `${proxyLog.join('\n')}\n`);
    const secretScan = scan(root, [liveToken, sandboxToken]);
    const result: InvoiceDemoResult = {
      api: api.url,
      stateCheckpoint: state42.id,
      reconciledAtState42: atState42,
      branches,
      approvals: approver.seen,
      live: {
        reconciled: reconciled(api.live),
        writes: api.live.writes.length,
        unauthorized: api.live.unauthorized,
      },
      sandbox: { reconciled: reconciled(api.sandbox), writes: api.sandbox.writes.length },
      secretScan,
      proxyLog,
      audit,
    };
    const [a, b, c] = branches as [InvoiceBranch, InvoiceBranch, InvoiceBranch];
    const lines = [
      '',
      `invoices — billing API ${api.url} (live and sandbox accounts, ${INVOICE_COUNT} invoices each)`,
      `main  ${state42.label} (live grant ${rootGrant.id}); checkpoint ${state42.id}`,
      `  ├─ ${a.branch}     grant ${a.grant.padEnd(16)} ${a.strategy}: would change ${a.wouldChange}; ${a.refused} writes refused (403); live writes ${a.liveWrites}`,
      `  ├─ ${b.branch}  grant ${b.grant.padEnd(16)} ${b.strategy}: ${b.applied} applied on the test account; live writes ${b.liveWrites}`,
      `  └─ ${c.branch}     grant ${c.grant.padEnd(16)} ${c.strategy}: ${c.applied + c.refused} writes held; ${approver.seen.approved} approved and sent, ${approver.seen.denied} denied (never sent)`,
      `live account: ${result.live.reconciled}/${INVOICE_COUNT} reconciled (${atState42} at state 42 + ${c.liveWrites} approved); sandbox: ${result.sandbox.reconciled}/${INVOICE_COUNT}`,
      `audit: ${audit['keys.use'] ?? 0} uses, ${audit['keys.deny'] ?? 0} refusals, ${audit['keys.approval.approve'] ?? 0} approvals, ${audit['keys.approval.deny'] ?? 0} denials`,
      `secret scan: ${secretScan.hits.length} of ${secretScan.files} files (${secretScan.bytes} bytes: store, 4 workspaces, proxy log) hold the live or sandbox secret`,
    ];
    return { result, lines };
  } finally {
    await proxy.close();
    await desk.close();
    await api.close();
  }
}
