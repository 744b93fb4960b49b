import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import { DESK_ERASURE } from '../src/desk/erase.js';
import { eraseDeskState } from '../src/desk/erase-state.js';
import { isMounted, overlaySupported } from '../src/desk/overlay.js';
import type { ErasureScope } from '../src/erasure/part.js';
import { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { filesContaining } from './support/scan.js';
import { postgresStore, removeWithMounts, tempDir } from './support/stores.js';
import { describeTree, put } from './support/trees.js';

/**
 * The desk's part of an erasure (src/desk/erase.ts), GC with repacking
 * (src/desk/repack.ts) and the desk's host state (src/desk/erase-state.ts).
 * On a store in a folder (SQLite, packs as blob files, the desk's state in
 * `<store>/desk/`): afterwards no byte of the erased session's files is
 * anywhere in the folder, and the other session's workspace is whole. On
 * PostgreSQL: none in the tenant's blobs and inline packs. Repacking under
 * concurrent checkpoints: desk-repack.test.ts.
 */

/** Words only the erased session's files hold: two contents and a file name. */
const ALPHA = ['alpha-diary-entry-quokka-umbrella', 'alpha-second-note-pelican-harbour'];
const ALPHA_NAME = 'alpha-only-name-walrus.txt';
const BETA = 'beta-keeps-this-heron-lantern';

let temp: { dir: string; remove(): void };
/** The store's folder (SQLite), or '' (PostgreSQL). */
let storeDir: string;
/** The desk's state folder: `<store>/desk` in a store folder. */
let stateDir: string;
let store: Store;
let who: Identity;
let closeStore: () => Promise<void>;
const open: Desk[] = [];
/** Whether this process may mount overlays (CAP_SYS_ADMIN on Linux): the overlay case runs only then. */
const canOverlay = overlaySupported(join(tmpdir(), `cairn-erase-probe-${process.pid}`));

function desk(): Desk {
  const made = store.desk(who, { host: 'test-host', stateDir });
  open.push(made);
  return made;
}

async function closeDesks(): Promise<void> {
  for (const d of open.splice(0)) await d.close();
}

function sessionScope(session: string): ErasureScope {
  return {
    tenant: who.tenant,
    subject: { kind: 'session', id: session },
    principals: [],
    sessions: [session],
    branches: [],
  };
}

async function deskRows(): Promise<{
  workspaces: number;
  snapshots: number;
  objects: number;
  packs: number;
}> {
  return store.engine.read(who.tenant, async (tx) => {
    const count = async (table: string) =>
      Number(
        (await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant = ?`, [who.tenant]))?.n,
      );
    return {
      workspaces: await count('desk_workspaces'),
      snapshots: await count('desk_snapshots'),
      objects: await count('desk_objects'),
      packs: await count('desk_packs'),
    };
  });
}

/** Every file of the store folder holding any of `needles`, raw bytes (the database, its log, blobs, desk state). */
function hits(needles: readonly string[], root = storeDir): string[] {
  return [...new Set(needles.flatMap((n) => filesContaining(root, n)))].sort();
}

async function openFolderStore(): Promise<void> {
  storeDir = join(temp.dir, 'store');
  stateDir = join(storeDir, 'desk');
  store = await Store.openDir(storeDir);
  closeStore = () => store.close();
  who = await store.localIdentity();
}

async function openPostgresStore(): Promise<void> {
  storeDir = '';
  stateDir = join(temp.dir, 'desk-state');
  const opened = await postgresStore();
  store = opened.store;
  closeStore = opened.cleanup;
  who = await store.authenticate((await store.createTenant('desk-erase')).token.token);
}

function eraseHost(workspaces: readonly string[], preview = false) {
  return eraseDeskState({ stateDir, engine: store.engine, tenant: who.tenant, workspaces, preview });
}

beforeEach(() => {
  temp = tempDir('cairn-desk-erase-');
});

afterEach(async () => {
  await closeDesks();
  await closeStore();
  removeWithMounts(temp);
});

/**
 * Two sessions: A's files hold ALPHA (content and a file name), B's hold
 * BETA, and both hold the same files besides (one large, so its chunks lie in
 * A's first pack, a pack file, beside A's own; one small, in A's second, an
 * inline pack). A also has a fork (same session). Returns what the tests need.
 */
async function twoSessions() {
  const big = randomBytes(300 * 1024);
  const workA = join(temp.dir, 'work-a');
  const workB = join(temp.dir, 'work-b');
  const d = desk();
  put(workA, 'shared-big.bin', big);
  put(workA, 'shared.txt', 'the same words in both sessions\n'.repeat(20));
  put(workA, ALPHA_NAME, `${ALPHA[0]}\n`.repeat(10));
  const a = await d.attach({ dir: workA });
  put(workA, 'notes/second.txt', `${ALPHA[1]}\n`);
  put(workA, 'shared-small.txt', 'small and shared, stored first by A\n');
  await d.checkpoint(a.workspace.id);
  const fork = await d.fork(a.workspace.id, { dir: join(temp.dir, 'fork-a'), driver: 'copy' });
  put(fork.workspace.dir, 'fork-note.txt', `${ALPHA[1]} in the fork\n`);
  await d.checkpoint(fork.workspace.id);
  put(workB, 'shared-big.bin', big);
  put(workB, 'shared.txt', 'the same words in both sessions\n'.repeat(20));
  put(workB, 'shared-small.txt', 'small and shared, stored first by A\n');
  put(workB, 'beta.txt', `${BETA}\n`);
  const b = await d.attach({ dir: workB });
  // Closing writes each open workspace's stat cache into <store>/desk/stat/: host state that names A's files.
  await closeDesks();
  if (storeDir !== '') {
    // Reopened, so the rows are in the database file itself (closing checkpoints the write-ahead log into
    // it), as in a store that has run a while.
    await store.close();
    store = await Store.openDir(storeDir);
  }
  return { a: a.workspace, fork: fork.workspace, b: b.workspace, workB };
}

describe('desk erasure on SQLite, in a store folder', () => {
  beforeEach(openFolderStore);

  it('erases a session: its rows, then its bytes (repacked), then its host state; the other session is whole', async () => {
    const { a, fork, b, workB } = await twoSessions();
    expect(a.session).toBe(fork.session);
    // Not vacuous: before, the erased words are in the store folder (packs, stat caches), and so is B's.
    expect(hits([...ALPHA, ALPHA_NAME]).length).toBeGreaterThan(0);
    expect(existsSync(join(storeDir, 'desk', 'stat', `${a.id}.json`))).toBe(true);

    const erased = await store.engine.write(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), false),
    );
    expect(erased.counts).toEqual({ workspaces: 2, snapshots: 3 });
    expect(erased.resources).toEqual([a.id, fork.id].sort());
    expect(await deskRows()).toMatchObject({ workspaces: 1, snapshots: 1 });

    // GC without repacking takes the objects only A had, but their bytes stay in packs that also hold B's.
    const plain = await desk().gc({ graceMs: 0 });
    expect(plain.removedObjects).toBeGreaterThan(0);
    expect(plain.repackedPacks).toBe(0);
    expect(hits([...ALPHA, ALPHA_NAME], join(storeDir, 'blobs')).length).toBeGreaterThan(0);
    const gc = await desk().gc({ graceMs: 0, repack: true });
    // A's pack file (its chunks beside the shared file's) and its inline pack (beside the small shared file).
    expect(gc.repackedPacks).toBeGreaterThanOrEqual(2);
    expect(gc.repackedBytes).toBeGreaterThan(300 * 1024);
    const state = await eraseHost(erased.resources);
    expect(state.busy).toEqual([]);
    expect(state.removed).toEqual(
      expect.arrayContaining([
        join('stat', `${a.id}.json`),
        join('stat', `${fork.id}.json`),
        join('created', `${fork.id}.json`),
      ]),
    );

    // Outside the database nothing of A is left already: not in the blobs, not in the desk's state folder.
    // (The database's own files may still hold it: the write-ahead log keeps old page images, free pages
    // keep deleted rows' bytes; see below.)
    expect(hits([...ALPHA, ALPHA_NAME]).filter((f) => !/\/cairn\.db(-wal|-shm)?$/.test(f))).toEqual([]);

    // B stays whole: the store verifies, B's files restore from the moved objects, and B checkpoints on.
    const d = desk();
    expect(await d.verify()).toMatchObject({ ok: true });
    const before = describeTree(workB);
    for (const name of readdirSync(workB)) rmSync(join(workB, name), { recursive: true, force: true });
    await d.restore(b.id, b.headSnapshot);
    expect(describeTree(workB)).toEqual(before);
    put(workB, 'beta-2.txt', 'after the erasure\n');
    expect((await d.checkpoint(b.id)).created).toBe(true);
    expect(await d.verify()).toMatchObject({ ok: true });
    await closeDesks();

    // The database: SQLite keeps a deleted row's bytes in free pages and its write-ahead log until they are
    // rewritten. The erasure cascade reclaims them (VACUUM, then a TRUNCATE checkpoint); here, the same by hand.
    await store.close();
    const db = new Database(join(storeDir, 'cairn.db'));
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expect(hits([...ALPHA, ALPHA_NAME])).toEqual([]);
    expect(hits([BETA]).length).toBeGreaterThan(0);
    store = await Store.openDir(storeDir);
  });

  it('a preview counts what the erasure takes and changes nothing; erasing again finds nothing', async () => {
    const { a } = await twoSessions();
    const rows = await deskRows();
    const preview = await store.engine.read(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), true),
    );
    expect(await deskRows()).toEqual(rows);
    const hostPreview = await eraseHost(preview.resources, true);
    expect(existsSync(join(storeDir, 'desk', 'stat', `${a.id}.json`))).toBe(true);
    const erased = await store.engine.write(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), false),
    );
    expect(erased).toEqual(preview);
    const state = await eraseHost(erased.resources);
    expect(state.removed).toEqual(hostPreview.removed);
    // Idempotent: nothing is left to find, in the rows or on the host.
    const again = await store.engine.write(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), false),
    );
    expect(again).toEqual({ counts: { workspaces: 0, snapshots: 0 }, resources: [] });
    expect((await eraseHost(erased.resources)).removed).toEqual([]);
    // A session with no workspace: nothing, and no error.
    const none = await store.engine.read(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope('se_none'), true),
    );
    expect(none.counts).toEqual({ workspaces: 0, snapshots: 0 });
  });

  it('refuses, changing nothing, when a workspace that stays starts from an erased snapshot', async () => {
    const { a, b } = await twoSessions();
    // Not something the desk writes (a fork is made in its parent's session): a row written by other code.
    await store.engine.write(who.tenant, (tx) =>
      tx.run('UPDATE desk_workspaces SET base_snapshot = ? WHERE tenant = ? AND id = ?', [
        a.headSnapshot,
        who.tenant,
        b.id,
      ]),
    );
    const rows = await deskRows();
    for (const preview of [true, false]) {
      await expect(
        store.engine.write(who.tenant, (tx) => DESK_ERASURE.erase(tx, sessionScope(a.session), preview)),
      ).rejects.toMatchObject({ code: 'CONFLICT', data: { workspaces: [b.id] } });
    }
    expect(await deskRows()).toEqual(rows);
  });

  it.runIf(canOverlay)(
    'an overlay fork of the erased session is unmounted and its layers deleted',
    async () => {
      const workA = join(temp.dir, 'work-a');
      put(workA, 'base.txt', `${ALPHA[0]}\n`);
      const d = desk();
      const a = await d.attach({ dir: workA });
      const fork = await d.fork(a.workspace.id, { dir: join(temp.dir, 'fork-a'), driver: 'overlay' });
      put(fork.workspace.dir, 'upper.txt', `${ALPHA[1]} in the upper layer\n`);
      await d.checkpoint(fork.workspace.id);
      await closeDesks();
      const state = join(storeDir, 'desk');
      expect(hits(ALPHA, state).length).toBeGreaterThan(0);
      expect(isMounted(fork.workspace.dir)).toBe(true);
      const erased = await store.engine.write(who.tenant, (tx) =>
        DESK_ERASURE.erase(tx, sessionScope(a.workspace.session), false),
      );
      // A process holding a file open in the fork: the overlay cannot be unmounted, so its layers stay.
      const held = openSync(join(fork.workspace.dir, 'upper.txt'), 'r');
      let host: Awaited<ReturnType<typeof eraseHost>>;
      try {
        host = await eraseHost(erased.resources);
      } finally {
        closeSync(held);
      }
      expect(host.busy).toEqual([fork.workspace.id]);
      expect(isMounted(fork.workspace.dir)).toBe(true);
      expect(host.removed).not.toContain(join('lower', who.tenant, a.checkpoint.snapshot.root));
      expect(existsSync(join(state, 'forks', fork.workspace.id, 'upper', 'upper.txt'))).toBe(true);
      // Erased again once it is let go.
      host = await eraseHost(erased.resources);
      expect(host.busy).toEqual([]);
      expect(host.removed).toEqual(
        expect.arrayContaining([
          join('forks', fork.workspace.id),
          join('lower', who.tenant, a.checkpoint.snapshot.root),
        ]),
      );
      expect(isMounted(fork.workspace.dir)).toBe(false);
      expect(hits([...ALPHA, ALPHA_NAME], state)).toEqual([]);
    },
  );
});

describePostgres('desk erasure on PostgreSQL', () => {
  beforeEach(openPostgresStore);

  /** Every byte the tenant's desk stores: blob rows (pack files) and inline packs. */
  async function storedBytes(): Promise<Buffer> {
    return store.engine.read(who.tenant, async (tx) => {
      const rows = await tx.all<{ bytes: Buffer }>(
        `SELECT bytes FROM blobs WHERE tenant = ?
         UNION ALL SELECT bytes FROM desk_packs WHERE tenant = ? AND inline = 1`,
        [who.tenant, who.tenant],
      );
      return Buffer.concat(rows.map((r) => Buffer.from(r.bytes)));
    });
  }

  it('erases a session under row-level security; repacking leaves none of its bytes in the tenant', async () => {
    const { a, b, workB } = await twoSessions();
    const before = await storedBytes();
    for (const word of [...ALPHA, ALPHA_NAME]) expect(before.includes(word)).toBe(true);
    const preview = await store.engine.read(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), true),
    );
    const erased = await store.engine.write(who.tenant, (tx) =>
      DESK_ERASURE.erase(tx, sessionScope(a.session), false),
    );
    expect(erased).toEqual(preview);
    expect(erased.counts).toEqual({ workspaces: 2, snapshots: 3 });
    const gc = await desk().gc({ graceMs: 0, repack: true });
    expect(gc.repackedPacks).toBeGreaterThanOrEqual(2);
    expect((await eraseHost(erased.resources)).busy).toEqual([]);
    const after = await storedBytes();
    for (const word of [...ALPHA, ALPHA_NAME]) expect(after.includes(word)).toBe(false);
    expect(after.includes(BETA)).toBe(true);
    expect(filesContaining(stateDir, ALPHA_NAME)).toEqual([]);
    const d = desk();
    expect(await d.verify()).toMatchObject({ ok: true });
    const files = describeTree(workB);
    for (const name of readdirSync(workB)) rmSync(join(workB, name), { recursive: true, force: true });
    await d.restore(b.id, b.headSnapshot);
    expect(describeTree(workB)).toEqual(files);
  });
});
