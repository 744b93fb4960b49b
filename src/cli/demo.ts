import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoiceDemo } from '../demo/invoices.js';
import { Store } from '../store.js';
import { execInWorkspace } from '../unit/exec.js';
import { Units } from '../unit/unit.js';
import type { StoreCommand } from './command.js';
import { EXIT } from './output.js';

/**
 * `cairn demo`, part 1: in a temporary folder, reach "state 42" (a small git
 * repository whose test passes), checkpoint it with that test as the check,
 * fork it into three branches that each try a different migration (one
 * passes its check, two fail), keep the winner, abandon the others, and
 * print the tree. Part 2 (src/demo/invoices.ts) is the invoice story of the
 * keys layer. Loopback only; a few seconds.
 */
const MIGRATIONS = [
  { branch: 'migrate-multiply', code: 'module.exports = 6 * 7;\n' },
  { branch: 'migrate-string', code: "module.exports = '42';\n" },
  { branch: 'migrate-off-by-one', code: 'module.exports = 41 + 2;\n' },
];

function git(dir: string, ...args: string[]): boolean {
  const run = spawnSync(
    'git',
    ['-C', dir, '-c', 'user.email=demo@cairn', '-c', 'user.name=cairn demo', ...args],
    {
      encoding: 'utf8',
    },
  );
  return run.status === 0;
}

export const demo: StoreCommand = {
  target: 'store',
  createsStore: true,
  names: ['demo'],
  example: 'cairn demo',
  args: [],
  flags: [],
  summary:
    'a worked example in a temporary folder: fork three ways and keep the passing branch; then fork an invoice task with read, sandbox and approved-live grants',
  async run(_dir, call) {
    const root = mkdtempSync(join(tmpdir(), 'cairn-demo-'));
    const repo = join(root, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'answer.js'), 'module.exports = 42;\n');
    writeFileSync(
      join(repo, 'test.js'),
      "const answer = require('./answer.js');\nif (answer !== 42) {\n  console.error('expected 42, got ' + JSON.stringify(answer));\n  process.exit(1);\n}\nconsole.log('ok: 42');\n",
    );
    const hasGit =
      git(repo, 'init', '-q') && git(repo, 'add', '-A') && git(repo, 'commit', '-qm', 'state 42');
    const node = process.execPath;
    const check = `"${node}" test.js`;

    const store = await Store.openDir(join(root, 'store'));
    try {
      const who = await store.localIdentity();
      const desk = store.desk(who, { host: 'demo' });
      const fabric = store.fabric(who);
      const units = new Units(fabric, desk);
      try {
        const { workspace } = await desk.attach({ dir: repo });
        const start = await units.checkpoint({ workspace: workspace.id, label: 'state 42', checks: [check] });
        const forked = await units.fork(start.id, {
          branches: MIGRATIONS.map((m) => m.branch),
          dirRoot: join(root, 'branches'),
          driver: 'copy',
        });
        const outcomes = [];
        for (const [i, branch] of forked.branches.entries()) {
          const migration = MIGRATIONS[i]!;
          await execInWorkspace(fabric, desk, {
            workspace: branch.workspace.id,
            command: [
              node,
              '-e',
              `require('fs').writeFileSync('answer.js', ${JSON.stringify(migration.code)})`,
            ],
            env: call.env,
          });
          const done = await units.checkpoint({
            workspace: branch.workspace.id,
            label: migration.branch,
            checks: [check],
          });
          outcomes.push({ branch: branch.branch, workspace: branch.workspace, checkpoint: done });
        }
        const winner = outcomes.find((o) => o.checkpoint.accepted);
        for (const o of outcomes) {
          if (o === winner) await units.keep(workspace.session, o.branch);
          else await units.abandon(workspace.session, o.branch);
        }
        const tree = [
          `cairn demo — ${root}`,
          `session ${workspace.session}`,
          `main  ${start.label}: checkpoint ${start.id} ${start.accepted ? 'accepted' : 'NOT accepted'}${hasGit && start.evidence.git ? ` (git ${start.evidence.git.revision.slice(0, 8)})` : ''}`,
          ...outcomes.map((o, i) => {
            const corner = i === outcomes.length - 1 ? '└─' : '├─';
            const verdict = o.checkpoint.accepted ? 'check passed' : 'check FAILED';
            return `  ${corner} ${o.branch}  ${verdict}  ${o === winner ? 'KEPT' : 'abandoned'}  (${o.workspace.dir}, grants: none stated)`;
          }),
        ];
        await desk.close();
        const invoices = await invoiceDemo({ root, store, env: call.env });
        call.out.result(
          {
            dir: root,
            invoices: invoices.result,
            session: workspace.session,
            checkpoint: start,
            branches: outcomes.map((o) => ({
              branch: o.branch,
              workspace: o.workspace.id,
              dir: o.workspace.dir,
              accepted: o.checkpoint.accepted,
              decision: o === winner ? 'keep' : 'abandon',
            })),
          },
          [...tree, ...invoices.lines],
        );
        return winner && invoices.result.secretScan.hits.length === 0 ? EXIT.ok : EXIT.checkFailed;
      } finally {
        await desk.close();
      }
    } finally {
      await store.close();
    }
  },
};
