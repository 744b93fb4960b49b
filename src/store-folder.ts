/**
 * A store folder, the embedded default: `<dir>/cairn.db` (SQLite),
 * `<dir>/blobs/` and `<dir>/desk/`, made for the owner alone (folders 0700,
 * files 0600). Opening one and its fabric loads only the engine and the
 * fabric (each feature's handlers load on their first call), so a command
 * line that runs one operation pays for that one; `Store` (store.ts) is the
 * whole library's handle on it.
 */
import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditKey } from './audit/note.js';
import type { BlobStore } from './blob/blob-store.js';
import { FsBlobStore } from './blob/fs/fs-blob-store.js';
import { EmbeddedFabric } from './embedded-fabric.js';
import { localIdentity } from './identity/identity-store.js';
import type { MasterKey } from './keys/crypto.js';
import type { TrustPolicy } from './memory/memory.js';
import type { Engine } from './storage/engine.js';
import { SqliteEngine } from './storage/sqlite/sqlite-engine.js';

/** What a store folder opens as: its engine, its blobs and this machine's desk state folder. */
export interface StoreFolder {
  engine: Engine;
  blobs: BlobStore;
  deskDir: string;
}

/**
 * Opens (making it on first use) the store in `dir`. `onWarning` hears of a
 * store folder other users may enter.
 */
export async function openStoreFolder(
  dir: string,
  options: {
    integrityCheck?: boolean;
    onWarning?: (message: string) => void;
    /** `background` for a long-running process: WAL checkpoints on a worker thread (SqliteEngineOptions). */
    checkpoints?: 'inline' | 'background';
  } = {},
): Promise<StoreFolder> {
  const engine = await SqliteEngine.open({
    dir,
    integrityCheck: options.integrityCheck,
    checkpoints: options.checkpoints,
  });
  const deskDir = join(dir, 'desk');
  try {
    mkdirSync(deskDir, { mode: 0o700 });
    chmodSync(deskDir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      await engine.close();
      throw error;
    }
  }
  const warning = storeExposure(dir);
  if (warning !== undefined) options.onWarning?.(warning);
  return { engine, blobs: new FsBlobStore(join(dir, 'blobs')), deskDir };
}

/**
 * Opens the embedded fabric in a folder, acting as the store's local
 * principal. Closing the fabric closes the store.
 */
export async function openFabric(options: {
  dir: string;
  integrityCheck?: boolean;
  /** The vault master key, for the credential operations that seal values. */
  masterKey?: MasterKey;
  /** The trust tier each memory source arrives with (the store admin's config). */
  memoryPolicy?: TrustPolicy;
  /** The operator's audit signing key, if the operator holds it (docs/design/audit.md). */
  auditKey?: AuditKey;
}): Promise<EmbeddedFabric> {
  const { engine, blobs } = await openStoreFolder(options.dir, { integrityCheck: options.integrityCheck });
  const close = async () => {
    await blobs.close();
    await engine.close();
  };
  try {
    const who = await localIdentity(engine);
    return new EmbeddedFabric(engine, who, close, {
      masterKey: options.masterKey,
      auditKey: options.auditKey,
      blobs,
      memoryPolicy: options.memoryPolicy ?? {},
    });
  } catch (error) {
    await close();
    throw error;
  }
}

/** A path of a store folder that other OS users may enter or read, and its mode. */
export interface ExposedPath {
  path: string;
  /** Its permission bits, in octal (e.g. "0755"). */
  mode: string;
}

/** What a store folder holds at its top; the folder's 0700 is what keeps everything below private. */
export const STORE_ENTRIES = [
  'cairn.db',
  'cairn.db-wal',
  'cairn.db-shm',
  'cairn.db-journal',
  'blobs',
  'desk',
  'config.json',
  'watch.sock',
];

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

function storePaths(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const found: { path: string; mode: number; isDir: boolean }[] = [];
  for (const path of [dir, ...STORE_ENTRIES.map((name) => join(dir, name))]) {
    try {
      // The folder is followed if it is a link (its owner named it); a link inside is not.
      const st = path === dir ? statSync(path) : lstatSync(path);
      if (!st.isSymbolicLink()) found.push({ path, mode: st.mode, isDir: st.isDirectory() });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return found;
}

/** The store folder and the entries at its top that grant anything to group or others. */
export function exposedStorePaths(dir: string): ExposedPath[] {
  return storePaths(dir)
    .filter((p) => (p.mode & 0o077) !== 0)
    .map((p) => ({ path: p.path, mode: octal(p.mode) }));
}

/** Takes group's and others' access away (folders 0700, files 0600); what it changed, with the modes it found. */
export function restrictStorePaths(dir: string): ExposedPath[] {
  const changed: ExposedPath[] = [];
  for (const p of storePaths(dir)) {
    if ((p.mode & 0o077) === 0) continue;
    chmodSync(p.path, p.isDir ? 0o700 : 0o600);
    changed.push({ path: p.path, mode: octal(p.mode) });
  }
  return changed;
}

/** A warning when other OS users may enter the store folder (and so read what it holds), else undefined (also for no store). */
export function storeExposure(dir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
    statSync(join(dir, 'cairn.db'));
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  return `warning: the store ${dir} is open to other users (mode ${octal(mode)}): they may read its memory and workspace files; run \`cairn doctor --fix --store ${dir}\``;
}
