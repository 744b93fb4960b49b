/**
 * The secret guard through the desk, on SQLite and PostgreSQL: a corpus of
 * planted credentials and what of it reaches the store (by byte scan of the
 * store folder, the database dump and the desk's local state), and the
 * behaviours that keep the work intact: redaction instead of withholding,
 * listings in checkpoint, fork and restore results, names, git history.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresBlobStore } from '../src/blob/postgres/postgres-blob-store.js';
import { SMALL_FILE } from '../src/desk/chunker.js';
import type { Desk, DeskOptions } from '../src/desk/desk.js';
import { credentialPathRule, withChecksum } from '../src/desk/guard.js';
import { PostgresEngine } from '../src/storage/postgres/postgres-engine.js';
import { Store as SourceStore } from '../src/store.js';
import { expectCode as sourceExpectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { type CorpusCase, plantCorpus, rand } from './support/guard-corpus.js';
import { describePostgres, freshPostgresDatabase, PG_ADMIN_URL } from './support/postgres.js';
import { tempDir } from './support/stores.js';

type Backend = 'sqlite' | 'postgres';
/**
 * Which build of the library: its sources (every scan on the calling thread), or the built package
 * (`npx tsc -p tsconfig.json` first), where a full scan hands each file's content scan to the scan
 * worker and reads on before the verdict is in.
 */
type Library = 'source' | 'built';
type TestDeskOptions = Omit<DeskOptions, 'engine' | 'blobs' | 'who' | 'stateDir' | 'host'>;

const GIT_ENV = { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'latin1', stdio: ['ignore', 'pipe', 'ignore'] });

function files(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) files(abs, out);
    else if (e.isFile()) out.push(abs);
  }
  return out;
}

function guardSuite(backend: Backend, library: Library = 'source') {
  let temp: { dir: string; remove(): void };
  let Store: typeof SourceStore;
  // The built library throws its own CairnError class: errors are checked against the matching one.
  let expectCode: typeof sourceExpectCode;
  let store: SourceStore;
  let who: Identity;
  let dbUrl = '';
  let drop: (() => Promise<void>) | null = null;
  const desks: Desk[] = [];

  beforeEach(async () => {
    temp = tempDir('cairn-guard-');
    if (library === 'source') {
      Store = SourceStore;
      expectCode = sourceExpectCode;
    } else {
      Store = ((await import('../dist/store.js' as string)) as typeof import('../src/store.js')).Store;
      expectCode = (
        (await import(
          '../dist/testing/expect-code.js' as string
        )) as typeof import('../src/testing/expect-code.js')
      ).expectCode;
    }
    if (backend === 'sqlite') {
      store = await Store.openDir(join(temp.dir, 'store'));
      who = await store.localIdentity();
    } else {
      const db = await freshPostgresDatabase();
      dbUrl = db.url;
      drop = db.drop;
      const engine = await PostgresEngine.open({ connectionString: db.url });
      store = new Store(engine, new PostgresBlobStore(engine));
      const t = await store.createTenant('guard');
      who = await store.authenticate(t.token.token);
    }
  });

  afterEach(async () => {
    for (const d of desks.splice(0)) await d.close();
    await store.close();
    await drop?.();
    drop = null;
    temp.remove();
  });

  function openDesk(options: TestDeskOptions = {}): Desk {
    const desk = store.desk(who, { host: 'guard-host', stateDir: join(temp.dir, 'state'), ...options });
    desks.push(desk);
    return desk;
  }

  /** Everything the store holds: its folder and the desk state (SQLite), or the database dump (PostgreSQL). */
  function storeBytes(): Buffer[] {
    const parts: Buffer[] = files(join(temp.dir, 'state')).map((f) => readFileSync(f));
    if (backend === 'sqlite') parts.push(...files(join(temp.dir, 'store')).map((f) => readFileSync(f)));
    else {
      // As the administrator: the application role's row-level security would hide rows from pg_dump.
      const admin = new URL(PG_ADMIN_URL);
      admin.pathname = new URL(dbUrl).pathname;
      parts.push(
        execFileSync('pg_dump', ['--data-only', admin.toString()], { maxBuffer: 1024 * 1024 * 1024 }),
      );
    }
    return parts;
  }

  /** A needle is in the store as bytes, or (in a PostgreSQL dump) as the hex of a bytea. */
  function leaked(parts: Buffer[], needles: Buffer[]): boolean {
    return needles.some((n) =>
      parts.some((p) => p.includes(n) || (backend === 'postgres' && p.includes(n.toString('hex')))),
    );
  }

  it('keeps the planted corpus out of the store, by family', async () => {
    const work = join(temp.dir, 'work');
    const cases: CorpusCase[] = plantCorpus(work, join(temp.dir, 'keys'));
    expect(cases.length).toBeGreaterThanOrEqual(60);
    // With .git snapshotted (a store setting), so the git-history family is scanned, not just left out.
    const desk = openDesk({ includeGit: true });
    const attached = await desk.attach({ dir: work });
    const { workerFiles } = (desk as unknown as { guard: { workerFiles: number } }).guard;
    // Each file went through the path under test: on the worker in the built library, inline from the sources.
    // Small files are scanned whole, but git's objects (inflated on this thread), those under names/
    // (withheld by name) and those a path rule withholds unread.
    const scannedWhole = files(work).filter(
      (f) =>
        !f.includes('/.git/objects/') &&
        !f.includes('/names/') &&
        credentialPathRule(relative(work, f)) === null &&
        statSync(f).size < SMALL_FILE,
    );
    if (library === 'built') expect(workerFiles).toBeGreaterThanOrEqual(scannedWhole.length);
    else expect(workerFiles).toBe(0);
    await desk.close();
    desks.length = 0;
    const parts = storeBytes();
    // Git history: a copy fork's repositories must not yield the secret to git either.
    const forkDesk = openDesk({ includeGit: true });
    const fork = await forkDesk.fork(attached.workspace.id, { dir: join(temp.dir, 'fork'), driver: 'copy' });
    const byFamily: Record<string, { planted: number; out: number; missed: string[] }> = {};
    for (const c of cases) {
      let out = !leaked(parts, c.needles);
      if (c.git) {
        const repo = join(fork.workspace.dir, c.git.repo);
        let history = '';
        try {
          history = git(repo, 'log', '-p', '--all') + git(repo, 'cat-file', '--batch-all-objects', '--batch');
        } catch {
          history = ''; // the repository lacks what was withheld: git may fail, which is what the finding says
        }
        if (history.includes(c.git.secret)) out = false;
      }
      byFamily[c.family] ??= { planted: 0, out: 0, missed: [] };
      const f = byFamily[c.family] as { planted: number; out: number; missed: string[] };
      f.planted++;
      if (out) f.out++;
      else f.missed.push(c.name);
    }
    const total = Object.values(byFamily).reduce((a, f) => a + f.out, 0);
    console.log(`[${backend}] guard corpus: ${total}/${cases.length} kept out`, JSON.stringify(byFamily));
    for (const [family, f] of Object.entries(byFamily))
      expect({ family, missed: f.missed }).toEqual({ family, missed: [] });
    // Findings name rule and path, never the value.
    const serialized = JSON.stringify(attached.checkpoint.findings);
    for (const c of cases)
      for (const n of c.needles) expect(serialized.includes(n.toString('latin1'))).toBe(false);
  }, 120_000);

  it('redacts an example credential in a README instead of withholding the file, and lists it on checkpoint, fork and restore', async () => {
    const work = join(temp.dir, 'work');
    mkdirSync(work, { recursive: true });
    const example = `postgres://demo:${rand(12)}@localhost:5432/app`;
    const readme = `# App\n\nConnect with:\n\n    ${example}\n\nThat is all.\n`;
    writeFileSync(join(work, 'README.md'), readme);
    writeFileSync(join(work, 'index.js'), 'console.log(1);\n');
    const desk = openDesk({ secretPolicy: 'fail' });
    const { workspace, checkpoint } = await desk.attach({ dir: work });
    // Low confidence (documentation): redacted, not refused even under 'fail'.
    expect(checkpoint.findings).toEqual([
      expect.objectContaining({ path: 'README.md', line: 5, confidence: 'low', action: 'redacted' }),
    ]);
    expect(checkpoint.redacted).toEqual(['README.md']);
    expect(checkpoint.withheld).toEqual([]);
    expect(checkpoint.snapshot.files).toBe(2);
    const password = example.split(':')[2]!.split('@')[0]!;
    expect(leaked(storeBytes(), [Buffer.from(password)])).toBe(false);
    const fork = await desk.fork(workspace.id, { dir: join(temp.dir, 'fork'), driver: 'copy' });
    expect(fork.redacted).toEqual(['README.md']);
    const copied = readFileSync(join(fork.workspace.dir, 'README.md'), 'utf8');
    expect(copied.length).toBe(readme.length);
    expect(copied).not.toContain(password);
    expect(copied).toContain('That is all.');
    // The disk keeps the original; a restore writes the stored (redacted) copy and says so.
    writeFileSync(join(work, 'README.md'), '# changed\n');
    await desk.checkpoint(workspace.id);
    const preview = await desk.previewRestore(workspace.id, checkpoint.snapshot.id);
    expect(preview.redacted).toEqual(['README.md']);
    const restored = await desk.restore(workspace.id, checkpoint.snapshot.id);
    expect(restored.redacted).toEqual(['README.md']);
    expect(readFileSync(join(work, 'README.md'), 'utf8')).not.toContain(password);
  });

  it('refuses a high-confidence credential under fail, unless an admin allow-list covers it', async () => {
    const work = join(temp.dir, 'work');
    mkdirSync(join(work, 'src'), { recursive: true });
    const token = withChecksum('ghp', rand(30));
    writeFileSync(join(work, 'src/ci.ts'), `export const t = '${token}'; // secretlint-disable-line\n`);
    const strict = openDesk({ secretPolicy: 'fail' });
    const error = await expectCode(strict.attach({ dir: work }), 'FORBIDDEN');
    expect(error.data.findings).toEqual([
      { rule: 'secretlint:github', path: 'src/ci.ts', line: 1, confidence: 'high' },
    ]);
    expect(JSON.stringify(error.toJSON())).not.toContain(token.slice(4, 30));
    await strict.close();
    desks.length = 0;
    const allowed = openDesk({
      secretPolicy: 'fail',
      guard: { allow: [{ rule: 'secretlint:github', paths: ['src/ci.ts'] }] },
    });
    const { checkpoint } = await allowed.attach({ dir: work });
    expect(checkpoint.findings).toEqual([]);
    expect(checkpoint.snapshot.files).toBe(1);
  });

  it('keeps entries whose name or link target holds a credential out, reporting the name redacted', async () => {
    const work = join(temp.dir, 'work');
    const token = withChecksum('ghp', rand(30));
    mkdirSync(join(work, `cache-${token}`), { recursive: true });
    writeFileSync(join(work, `cache-${token}`, 'a.txt'), 'a\n');
    writeFileSync(join(work, `${token}.log`), 'b\n');
    execFileSync('ln', ['-s', `/srv/${token}`, join(work, 'current')]);
    writeFileSync(join(work, 'ok.txt'), 'ok\n');
    const desk = openDesk();
    const { checkpoint } = await desk.attach({ dir: work });
    expect(checkpoint.snapshot.files).toBe(1);
    expect(checkpoint.withheld.sort()).toEqual(['[redacted name]', '[redacted name]', 'current'].sort());
    expect(JSON.stringify(checkpoint)).not.toContain(token.slice(4, 30));
    await desk.close(); // writes the stat cache
    desks.length = 0;
    expect(leaked(storeBytes(), [Buffer.from(token.slice(4, 30))])).toBe(false);
  });

  it('stops a checkpoint on a credential in git history under fail, naming commit and path', async () => {
    const work = join(temp.dir, 'work');
    mkdirSync(work, { recursive: true });
    const token = withChecksum('ghp', rand(30));
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, 'deploy.cfg'), `token=${token}\n`);
    git(work, 'add', '-A');
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'x'],
      { cwd: work, env: GIT_ENV },
    );
    const commit = git(work, 'rev-parse', 'HEAD').trim();
    git(work, 'rm', '-q', 'deploy.cfg');
    expect(statSync(work).isDirectory()).toBe(true);
    // .git is snapshotted only when the store says so (snapshots.git): then its history is guarded too.
    const desk = openDesk({ secretPolicy: 'fail', includeGit: true });
    const error = await expectCode(desk.attach({ dir: work }), 'FORBIDDEN');
    const findings = error.data.findings as { path: string; commit?: string; inPath?: string }[];
    expect(findings).toContainEqual(expect.objectContaining({ commit, inPath: 'deploy.cfg' }));
    expect(findings.every((f) => f.path.startsWith('.git/objects/'))).toBe(true);
    expect(error.message).toContain(`in commit ${commit} at deploy.cfg`);
  });
}

describe('desk guard on SQLite', () => guardSuite('sqlite'));
describe('desk guard on SQLite, built library (content scans on the worker thread)', () =>
  guardSuite('sqlite', 'built'));
describePostgres('desk guard on PostgreSQL', () => guardSuite('postgres'));
