import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Desk } from '../desk/desk.js';
import { expectCode } from './expect-code.js';

/**
 * The desk conformance suite: every store side of the desk — the embedded
 * SQLite store, PostgreSQL, a server reached over HTTP (`RemoteDeskStore`)
 * — runs these same cases through a `Desk` on this host. A target that
 * cannot run them says why in `skip`.
 */
export interface DeskConformanceTarget {
  /** A desk acting in tenant A. */
  deskA: Desk;
  /** A desk acting in a different tenant B, on the same store. */
  deskB: Desk;
  /** An empty scratch folder for the suite's workspaces (on this host). */
  dir: string;
  close(): Promise<void>;
}

export interface DeskConformanceOptions {
  skip?: string;
}

type Described = Record<
  string,
  { kind: 'file'; sha: string; exec: boolean } | { kind: 'dir' } | { kind: 'link'; to: string }
>;

/** What a directory holds: every entry by path, files by digest and executable bit, links by text. */
function describeDir(root: string): Described {
  const out: Described = {};
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      const at = join(abs, name);
      const st = lstatSync(at);
      if (st.isSymbolicLink()) out[path] = { kind: 'link', to: readlinkSync(at) };
      else if (st.isDirectory()) {
        out[path] = { kind: 'dir' };
        walk(at, path);
      } else {
        const sha = createHash('sha256').update(readFileSync(at)).digest('hex');
        out[path] = { kind: 'file', sha, exec: (st.mode & 0o100) !== 0 };
      }
    }
  };
  walk(root, '');
  return out;
}

function write(root: string, path: string, content: string | Buffer, exec = false): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
  chmodSync(abs, exec ? 0o755 : 0o644);
}

/** A small tree with one of each kind of entry, and one file large enough to need a pack of its own. */
function sampleTree(root: string, seed: string): void {
  write(root, 'README.md', `# ${seed}\n`);
  write(root, 'src/main.ts', `export const seed = '${seed}';\n`.repeat(20));
  write(root, 'bin/run.sh', '#!/bin/sh\necho run\n', true);
  write(root, 'empty.txt', '');
  write(root, 'odd name ✓.txt', 'unicode\n');
  mkdirSync(join(root, 'empty-dir'), { recursive: true });
  symlinkSync('src/main.ts', join(root, 'link-to-main'));
  const big = Buffer.alloc(600 * 1024);
  for (let i = 0; i < big.length; i += 32) createHash('sha256').update(`${seed}${i}`).digest().copy(big, i);
  write(root, 'data/big.bin', big);
}

export function describeDeskConformance(
  name: string,
  open: () => Promise<DeskConformanceTarget>,
  options: DeskConformanceOptions = {},
): void {
  const title = options.skip ? `${name} (skipped: ${options.skip})` : name;
  describe.skipIf(options.skip !== undefined)(`desk conformance: ${title}`, () => {
    let target: DeskConformanceTarget;
    let a: Desk;
    let b: Desk;
    let n = 0;
    /** A fresh directory for one case. */
    const fresh = (label: string) => {
      const dir = join(target.dir, `${label}-${++n}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    };

    beforeAll(async () => {
      target = await open();
      a = target.deskA;
      b = target.deskB;
    });
    afterAll(async () => {
      await target?.close();
    });

    it('snapshots every kind of entry and restores it byte for byte, undoably', async () => {
      const work = fresh('round-trip');
      sampleTree(work, 'round trip');
      const original = describeDir(work);
      const { workspace, checkpoint } = await a.attach({ dir: work });
      expect(checkpoint.created).toBe(true);
      expect(checkpoint.snapshot.files).toBe(6);
      for (const name of readdirSync(work)) rmSync(join(work, name), { recursive: true, force: true });
      write(work, 'stray.txt', 'made after\n');
      const restored = await a.restore(workspace.id, checkpoint.snapshot.id);
      expect(describeDir(work)).toEqual(original);
      // The restore checkpointed first: restoring that brings the wiped state back.
      await a.restore(workspace.id, restored.before.id);
      expect(Object.keys(describeDir(work))).toEqual(['stray.txt']);
    });

    it('stores only what changed, and nothing when nothing did', async () => {
      const work = fresh('incremental');
      sampleTree(work, 'incremental');
      const { workspace } = await a.attach({ dir: work });
      const same = await a.checkpoint(workspace.id);
      expect(same.created).toBe(false);
      write(work, 'src/main.ts', 'changed\n');
      const next = await a.checkpoint(workspace.id);
      expect(next.created).toBe(true);
      // The changed file and the trees above it, not the 600 KiB file.
      expect(next.snapshot.addedBytes).toBeGreaterThan(0);
      expect(next.snapshot.addedBytes).toBeLessThan(4096);
      const diff = await a.diff({ from: same.snapshot.id, to: next.snapshot.id });
      expect(diff.map((d) => [d.path, d.change])).toEqual([['src/main.ts', 'modified']]);
      const snapshots = await a.listSnapshots(workspace.id);
      expect(snapshots.map((s) => s.id)).toEqual([same.snapshot.id, next.snapshot.id]);
      expect(await a.getSnapshot(next.snapshot.id)).toEqual(next.snapshot);
    });

    it('a second workspace with the same content stores no object', async () => {
      const one = fresh('dedup');
      const two = fresh('dedup');
      sampleTree(one, 'dedup');
      sampleTree(two, 'dedup');
      const first = await a.attach({ dir: one });
      const second = await a.attach({ dir: two });
      expect(second.checkpoint.snapshot.root).toBe(first.checkpoint.snapshot.root);
      expect(second.checkpoint.snapshot.addedBytes).toBe(0);
    });

    it('forks are isolated from the parent and merge back', async () => {
      const work = fresh('fork');
      sampleTree(work, 'fork');
      const { workspace } = await a.attach({ dir: work });
      const forkDir = join(fresh('fork-into'), 'try');
      const fork = await a.fork(workspace.id, { dir: forkDir, driver: 'copy' });
      expect(describeDir(forkDir)).toEqual(describeDir(work));
      write(forkDir, 'from-fork.txt', 'fork\n');
      write(work, 'from-parent.txt', 'parent\n');
      expect(existsSync(join(work, 'from-fork.txt'))).toBe(false);
      expect(existsSync(join(forkDir, 'from-parent.txt'))).toBe(false);
      const merged = await a.merge({ from: fork.workspace.id, into: workspace.id });
      expect(merged.conflicts).toEqual([]);
      expect(readFileSync(join(work, 'from-fork.txt'), 'utf8')).toBe('fork\n');
      expect(readFileSync(join(work, 'from-parent.txt'), 'utf8')).toBe('parent\n');
      const detached = await a.detach(fork.workspace.id, { discard: true });
      expect(detached.state).toBe('detached');
      expect(readdirSync(forkDir)).toEqual([]);
    });

    it('refuses bad input with typed errors and records nothing', async () => {
      const work = fresh('bad-input');
      sampleTree(work, 'bad input');
      const { workspace } = await a.attach({ dir: work });
      const count = (await a.listSnapshots(workspace.id)).length;
      await expectCode(a.attach({ dir: 'relative/path' }), 'INVALID_ARGUMENT');
      await expectCode(a.attach({ dir: work }), 'CONFLICT');
      await expectCode(a.restore(workspace.id, 'sn_00000000000000000000000000'), 'NOT_FOUND');
      await expectCode(a.getWorkspace('ws_00000000000000000000000000'), 'NOT_FOUND');
      const taken = fresh('taken');
      write(taken, 'x.txt', 'x\n');
      await expectCode(a.fork(workspace.id, { dir: taken, driver: 'copy' }), 'INVALID_ARGUMENT');
      await expectCode(
        a.fork(workspace.id, { dir: join(fresh('name'), 'f'), branch: 'bad name!' }),
        'INVALID_ARGUMENT',
      );
      expect((await a.listSnapshots(workspace.id)).length).toBe(count);
    });

    it("one tenant cannot see, restore, fork or detach another tenant's workspaces", async () => {
      const work = fresh('tenant-a');
      sampleTree(work, 'tenant A only');
      const { workspace, checkpoint } = await a.attach({ dir: work });
      await expectCode(b.getWorkspace(workspace.id), 'NOT_FOUND');
      await expectCode(b.getSnapshot(checkpoint.snapshot.id), 'NOT_FOUND');
      await expectCode(b.listSnapshots(workspace.id), 'NOT_FOUND');
      await expectCode(b.restore(workspace.id, checkpoint.snapshot.id), 'NOT_FOUND');
      await expectCode(b.checkpoint(workspace.id), 'NOT_FOUND');
      await expectCode(
        b.fork(workspace.id, { dir: join(fresh('b-fork'), 'f'), driver: 'copy' }),
        'NOT_FOUND',
      );
      await expectCode(b.detach(workspace.id), 'NOT_FOUND');
      expect((await b.listWorkspaces()).map((w) => w.id)).not.toContain(workspace.id);
      // The same content in B is B's own: nothing deduplicated across tenants.
      const theirs = fresh('tenant-b');
      sampleTree(theirs, 'tenant A only');
      const bs = await b.attach({ dir: theirs });
      expect(bs.checkpoint.snapshot.addedBytes).toBeGreaterThan(600 * 1024);
      // A's directory is A's claim only: B may attach the same host and path (and learns nothing of A's).
      const same = await b.attach({ dir: work });
      expect(same.workspace.id).not.toBe(workspace.id);
      expect((await a.getWorkspace(workspace.id)).state).toBe('attached');
      await b.detach(same.workspace.id);
    });
  });
}
