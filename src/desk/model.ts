import { lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { internal } from '../errors.js';
import { chunkFile, copyWindow, digestOf, returnCopy, SMALL_FILE } from './chunker.js';
import type { GuardStream } from './guard.js';
import type { LaterFiles } from './later-files.js';
import type { ObjectStore, PackWriter } from './objects.js';
import { EMPTY_TREE, encodeTree, type TreeItem } from './tree.js';
import type { Entry, EntryMap } from './types.js';

/**
 * A workspace's state in memory: the directory tree of its last snapshot,
 * loaded lazily from tree objects, with the stat data seen when each file was
 * last hashed (the stat cache, like git's index). A scan compares lstat
 * results with it and re-reads only files whose stat changed; a directory
 * whose digest is still known was not touched and is not rewritten.
 */
export interface StatKey {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  mode: number;
  /** Modified so close to the scan that a later change could keep the same mtime: re-read next time. */
  racy: boolean;
}

export interface FileNode {
  kind: 'file';
  size: number;
  exec: boolean;
  chunks: string[];
  stat: StatKey | null;
  /** The stored copy has secret spans overwritten by the guard (the file on disk does not). */
  redacted?: boolean;
}

export interface LinkNode {
  kind: 'symlink';
  target: string;
  stat: StatKey | null;
}

export interface DirNode {
  kind: 'dir';
  /** The tree digest while the directory is unchanged since it was last sealed; null once changed. */
  tree: string | null;
  /** null until loaded from `tree`. */
  children: Map<string, Node> | null;
  /** Files and bytes below, valid while `tree` is set. */
  files: number;
  bytes: number;
  /** Redacted files below, valid while `tree` is set. */
  redacted?: number;
}

export type Node = FileNode | LinkNode | DirNode;

export function dirNode(tree: string | null, files = 0, bytes = 0, redacted = 0): DirNode {
  const node: DirNode = { kind: 'dir', tree, children: tree === null ? new Map() : null, files, bytes };
  if (redacted > 0) node.redacted = redacted;
  return node;
}

/** What a scan must know besides the model: where, what to skip, where new objects go. */
export interface ScanContext {
  root: string;
  objects: ObjectStore;
  writer: PackWriter;
  /** true when a path must not be kept (ignore rules or a credential path); may record a finding. */
  skip(path: string, isDir: boolean): boolean;
  /**
   * The guard on one file that fits a chunk: the bytes to store (the same,
   * or a redacted copy), or null to keep the file out. `abs` is its path on
   * disk. With `offThread`, the content scan runs on another thread (`bytes`
   * must then stay unchanged until it resolves).
   */
  admit(
    path: string,
    bytes: Buffer,
    abs: string,
    offThread?: boolean,
  ): Promise<{ bytes: Buffer; redacted: boolean } | null>;
  /**
   * Files that fit a chunk whose verdicts are still out, when the guard scans
   * off this thread (null: each verdict is awaited in turn). They are settled
   * by {@link settleFiles}, which must run before {@link seal}.
   */
  later: LaterFiles | null;
  /** The guard on an entry's name (and a symlink's target): false keeps the entry out. */
  admitName(path: string, target: string | null): Promise<boolean>;
  /** The guard on a file larger than a chunk, window by window. */
  stream(path: string, abs: string, size: number): GuardStream;
  /** The guard on a git pack's objects: false keeps the pack out. */
  admitPack(path: string, abs: string): Promise<boolean>;
  /** Overlay workspaces: files absent from the upper directory are unchanged since the fork. */
  upper?: string;
  /** Milliseconds since the epoch when the scan began (for the racy check). */
  startedMs: number;
  /** Paths of entries the snapshot cannot hold (sockets, FIFOs, devices, names that are not UTF-8). */
  unsupported: string[];
  /** Called after each file read and hashed (progress for long scans). */
  onFile?: () => void;
}

/** Timestamps on Linux filesystems advance in ticks of a few milliseconds: treat anything this recent as racy. */
const RACY_MS = 50;

export function statKeyOf(st: Stats, startedMs: number): StatKey {
  return {
    ino: st.ino,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    mode: st.mode,
    racy: st.mtimeMs + RACY_MS >= startedMs || st.ctimeMs + RACY_MS >= startedMs,
  };
}

function unchanged(key: StatKey | null, st: Stats): boolean {
  return (
    key !== null &&
    !key.racy &&
    key.ino === st.ino &&
    key.size === st.size &&
    key.mtimeMs === st.mtimeMs &&
    key.ctimeMs === st.ctimeMs &&
    key.mode === st.mode
  );
}

/**
 * A copy of the loaded part of a model, for scans that must not change the
 * real one (a preview, a live diff): nodes are copied, digests and stat
 * data shared (they are replaced, never mutated, by a scan).
 */
export function cloneDir(node: DirNode): DirNode {
  const children = node.children ? new Map<string, Node>() : null;
  for (const [name, child] of node.children ?? []) {
    children?.set(name, child.kind === 'dir' ? cloneDir(child) : { ...child });
  }
  return { ...node, children };
}

export async function loadDir(objects: ObjectStore, node: DirNode): Promise<Map<string, Node>> {
  if (node.children) return node.children;
  const digest = node.tree as string;
  const children = new Map<string, Node>();
  if (digest !== EMPTY_TREE.digest) {
    for (const item of await objects.tree(digest)) {
      if (item.kind === 'file') {
        children.set(item.name, {
          kind: 'file',
          size: item.size,
          exec: item.exec,
          chunks: item.chunks,
          stat: null,
          ...(item.redacted ? { redacted: true } : {}),
        });
      } else if (item.kind === 'symlink') {
        children.set(item.name, { kind: 'symlink', target: item.target, stat: null });
      } else {
        children.set(item.name, dirNode(item.tree, item.files, item.bytes, item.redacted));
      }
    }
  }
  node.children = children;
  return children;
}

export function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

/** Looks a directory up by path, loading trees on the way; null when absent or not a directory. */
export async function findDir(objects: ObjectStore, root: DirNode, path: string): Promise<DirNode[] | null> {
  const chain: DirNode[] = [root];
  if (path === '') return chain;
  let node: DirNode = root;
  for (const name of path.split('/')) {
    const next = (await loadDir(objects, node)).get(name);
    if (!next || next.kind !== 'dir') return null;
    chain.push(next);
    node = next;
  }
  return chain;
}

/**
 * Bytes of a large file's chunks read and hashed ahead of their scans'
 * verdicts (held in memory meanwhile): enough that the first large file of a
 * scan does not wait for the scan worker to start.
 */
const AHEAD_BYTES = 24 * 1024 * 1024;

/** Settles every file whose verdict is still out (see {@link ScanContext.later}); call it before {@link seal}. */
export async function settleFiles(ctx: ScanContext): Promise<void> {
  await ctx.later?.settle();
}

/**
 * Reads and hashes one file. Returns null when the guard keeps it out, and
 * `later: true` when its verdict is still out (it is in `ctx.later`, and
 * `remove` runs if the verdict withholds it).
 */
async function hashFile(
  ctx: ScanContext,
  path: string,
  st: Stats,
  remove: () => void,
): Promise<{ node: FileNode; later: boolean } | null> {
  const abs = join(ctx.root, path);
  if (!(await ctx.admitPack(path, abs))) return null;
  const chunks: string[] = [];
  let size = 0;
  let redacted = false;
  const exec = (st.mode & 0o100) !== 0;
  if (st.size <= SMALL_FILE && ctx.later) {
    const [chunk] = chunkFile(abs, st.size);
    if (chunk) {
      // Owned bytes (a small file is read into its own buffer), kept unchanged until the verdict.
      const node: FileNode = {
        kind: 'file',
        size: chunk.bytes.length,
        exec,
        chunks: [chunk.digest],
        stat: statKeyOf(st, ctx.startedMs),
      };
      const verdict = ctx.admit(path, chunk.bytes, abs, true);
      // Handled from the start: a failed verdict is seen when it is settled, never unhandled before.
      verdict.catch(() => null);
      const finish = async () => {
        const admitted = await verdict;
        if (!admitted) return false;
        const digest = admitted.redacted ? digestOf(admitted.bytes) : chunk.digest;
        await ctx.writer.add(digest, 'chunk', admitted.bytes, true);
        node.chunks = [digest];
        node.size = admitted.bytes.length;
        if (admitted.redacted) node.redacted = true;
        return true;
      };
      await ctx.later.add({ bytes: chunk.bytes.length, finish, remove });
      return { node, later: true };
    }
  }
  if (st.size <= SMALL_FILE) {
    // A small file is read as one chunk whatever it holds by then (it may have shrunk): the guard sees
    // exactly the bytes that are stored.
    let seen = false;
    for (const chunk of chunkFile(abs, st.size)) {
      seen = true;
      const admitted = await ctx.admit(path, chunk.bytes, abs);
      if (!admitted) return null;
      const digest = admitted.redacted ? digestOf(admitted.bytes) : chunk.digest;
      await ctx.writer.add(digest, 'chunk', admitted.bytes, chunk.owned || admitted.redacted);
      chunks.push(digest);
      size += admitted.bytes.length;
      redacted = admitted.redacted;
    }
    if (!seen && !(await ctx.admit(path, Buffer.alloc(0), abs))) return null;
  } else {
    // Each chunk is scanned with a look-ahead into the next, and stored only once its scan came back
    // clean; on a finding the file is withheld (chunks already stored hold none of it but clean
    // bytes). Up to AHEAD_BYTES of chunks wait for their verdicts: the next chunks are read and
    // hashed while the scan of this one runs (on the scan worker, for large files).
    const scan = ctx.stream(path, abs, st.size);
    type Pending = {
      digest: string;
      length: number;
      held: number;
      scanned: Promise<{ clean: boolean; window: Buffer }>;
    };
    const pending: Pending[] = [];
    let held = 0;
    const store = async (chunk: Pending) => {
      held -= chunk.held;
      const { clean, window } = await chunk.scanned;
      if (!clean) return false;
      // Chunks of a large file are past the writer's direct size: it copies them into the pack.
      await ctx.writer.add(chunk.digest, 'chunk', window.subarray(0, chunk.length), false);
      returnCopy(window);
      chunks.push(chunk.digest);
      size += chunk.length;
      return true;
    };
    const drain = async () => {
      for (const chunk of pending) await chunk.scanned.catch(() => null);
    };
    try {
      let offset = 0;
      for (const chunk of chunkFile(abs, st.size)) {
        // One copy of the read window (the chunk, then look-ahead), in a buffer of its own: it goes
        // to the scan and comes back, and the chunk stored is its first part.
        const window = copyWindow(chunk.window ?? chunk.bytes);
        const scanned = scan.feed(window, offset);
        // Handled from the start: a verdict that fails while an earlier chunk is being stored is
        // still seen by its own `await`, and never rejects unhandled in between.
        scanned.catch(() => null);
        offset += chunk.bytes.length;
        pending.push({ digest: chunk.digest, length: chunk.bytes.length, held: window.length, scanned });
        held += window.length;
        if (held > AHEAD_BYTES && !(await store(pending.shift() as Pending))) {
          await drain();
          return null;
        }
      }
      const finish = async () => {
        while (pending.length > 0) {
          if (!(await store(pending.shift() as Pending))) {
            await drain();
            return false;
          }
        }
        return true;
      };
      if (ctx.later && pending.length > 0) {
        // The last verdicts are settled with the files read after this one: the next file is read meanwhile.
        const node: FileNode = { kind: 'file', size: 0, exec, chunks, stat: statKeyOf(st, ctx.startedMs) };
        await ctx.later.add({
          bytes: held,
          finish: async () => {
            const clean = await finish();
            node.size = size;
            return clean;
          },
          remove,
        });
        return { node, later: true };
      }
      if (!(await finish())) return null;
    } finally {
      scan.close();
    }
  }
  ctx.onFile?.();
  const node: FileNode = { kind: 'file', size, exec, chunks, stat: statKeyOf(st, ctx.startedMs) };
  if (redacted) node.redacted = true;
  return { node, later: false };
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Brings one directory node in line with the disk: its listing always, its
 * subdirectories too when `deep`. Returns whether anything in it changed
 * (its tree digest is then cleared, to be recomputed by `seal`).
 */
export async function rescan(ctx: ScanContext, node: DirNode, path: string, deep: boolean): Promise<boolean> {
  const children = await loadDir(ctx.objects, node);
  let listing: import('node:fs').Dirent[];
  try {
    listing = readdirSync(path === '' ? ctx.root : join(ctx.root, path), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    listing = [];
  }
  let changed = false;
  const seen = new Set<string>();
  for (const dirent of listing) {
    const outcome = await updateEntry(ctx, children, path, dirent.name, dirent.isDirectory(), deep);
    if (outcome.kept) seen.add(dirent.name);
    if (outcome.changed) changed = true;
  }
  for (const name of [...children.keys()]) {
    if (!seen.has(name)) {
      children.delete(name);
      changed = true;
    }
  }
  if (changed) node.tree = null;
  return changed;
}

/**
 * Brings one entry of a directory in line with the disk (the watcher saw a
 * change to its content, not to the directory's listing). Returns whether
 * it changed; 'listing' when the entry's kind changed and the directory
 * should be rescanned instead.
 */
export async function refreshEntry(
  ctx: ScanContext,
  node: DirNode,
  path: string,
  name: string,
): Promise<boolean | 'listing'> {
  const children = await loadDir(ctx.objects, node);
  const existing = children.get(name);
  const st = lstatOrNull(join(ctx.root, childPath(path, name)));
  if (!st || st.isDirectory() !== (existing?.kind === 'dir') || existing === undefined) return 'listing';
  const outcome = await updateEntry(ctx, children, path, name, st.isDirectory(), false);
  if (!outcome.kept) {
    children.delete(name);
    node.tree = null;
    return true;
  }
  if (outcome.changed) node.tree = null;
  return outcome.changed;
}

/** Looks at one directory entry and updates `children`; `kept` is false when it must not be in the snapshot. */
async function updateEntry(
  ctx: ScanContext,
  children: Map<string, Node>,
  path: string,
  name: string,
  isDir: boolean,
  deep: boolean,
): Promise<{ kept: boolean; changed: boolean }> {
  const rel = childPath(path, name);
  if (name.includes('\uFFFD')) {
    // Node decodes names as UTF-8: a name that is not valid UTF-8 cannot be opened by the name we were given.
    ctx.unsupported.push(rel);
    return { kept: false, changed: false };
  }
  if (ctx.skip(rel, isDir)) return { kept: false, changed: false };
  const st = lstatOrNull(join(ctx.root, rel));
  if (!st) return { kept: false, changed: false };
  const existing = children.get(name);
  // A name the model already holds was admitted when it entered: only new names are checked.
  if (!st.isSymbolicLink() && existing === undefined && !(await ctx.admitName(rel, null)))
    return { kept: false, changed: false };
  if (st.isDirectory()) {
    if (existing?.kind === 'dir') {
      return { kept: true, changed: deep && (await rescan(ctx, existing, rel, true)) };
    }
    const fresh = dirNode(null);
    await rescan(ctx, fresh, rel, true);
    children.set(name, fresh);
    return { kept: true, changed: true };
  }
  if (st.isFile()) {
    if (
      existing?.kind === 'file' &&
      (unchanged(existing.stat, st) || (await sameAsLower(ctx, rel, existing, st)))
    ) {
      return { kept: true, changed: false };
    }
    const hashed = await hashFile(ctx, rel, st, () => {
      if (children.get(name) === hashed?.node) children.delete(name);
    });
    if (!hashed) return { kept: false, changed: false };
    children.set(name, hashed.node);
    // A file whose verdict is out may yet be withheld or redacted: its directory is sealed again either way.
    if (hashed.later) return { kept: true, changed: true };
    return { kept: true, changed: !(existing?.kind === 'file' && sameFile(existing, hashed.node)) };
  }
  if (st.isSymbolicLink()) {
    if (existing?.kind === 'symlink' && unchanged(existing.stat, st)) return { kept: true, changed: false };
    const target = readlinkSync(join(ctx.root, rel));
    if (!(await ctx.admitName(rel, target))) return { kept: false, changed: false };
    children.set(name, { kind: 'symlink', target, stat: statKeyOf(st, ctx.startedMs) });
    return { kept: true, changed: !(existing?.kind === 'symlink' && existing.target === target) };
  }
  ctx.unsupported.push(rel);
  return { kept: false, changed: false };
}

function sameFile(a: FileNode, b: FileNode): boolean {
  return (
    a.exec === b.exec &&
    a.size === b.size &&
    a.chunks.join() === b.chunks.join() &&
    (a.redacted ?? false) === (b.redacted ?? false)
  );
}

/** Overlay: a file the upper directory does not hold is the lower one, unchanged since the fork. */
async function sameAsLower(ctx: ScanContext, path: string, node: FileNode, st: Stats): Promise<boolean> {
  if (ctx.upper === undefined || node.stat !== null) return false;
  if (lstatOrNull(join(ctx.upper, path)) !== null) return false;
  node.stat = statKeyOf(st, ctx.startedMs);
  return true;
}

/**
 * Computes the digests of changed directories bottom-up, queueing their tree
 * objects. Every file's verdict must be in ({@link settleFiles}).
 */
export async function seal(ctx: Pick<ScanContext, 'writer' | 'later'>, node: DirNode): Promise<string> {
  if ((ctx.later?.size ?? 0) > 0) {
    throw internal('a tree was sealed while file verdicts were still out; this is a bug in Cairn');
  }
  return sealDir(ctx.writer, node);
}

async function sealDir(writer: PackWriter, node: DirNode): Promise<string> {
  if (node.tree !== null) return node.tree;
  const items: TreeItem[] = [];
  let files = 0;
  let bytes = 0;
  let redacted = 0;
  for (const [name, child] of node.children ?? []) {
    if (child.kind === 'file') {
      const marker = child.redacted ? { redacted: true } : {};
      items.push({ name, kind: 'file', size: child.size, exec: child.exec, chunks: child.chunks, ...marker });
      files++;
      bytes += child.size;
      if (child.redacted) redacted++;
    } else if (child.kind === 'symlink') {
      items.push({ name, kind: 'symlink', target: child.target });
    } else {
      const tree = await sealDir(writer, child);
      const below = child.redacted ?? 0;
      const marker = below > 0 ? { redacted: below } : {};
      items.push({ name, kind: 'dir', tree, files: child.files, bytes: child.bytes, ...marker });
      files += child.files;
      bytes += child.bytes;
      redacted += below;
    }
  }
  const tree = encodeTree(items);
  await writer.add(tree.digest, 'tree', tree.bytes);
  node.tree = tree.digest;
  node.files = files;
  node.bytes = bytes;
  if (redacted > 0) node.redacted = redacted;
  else delete node.redacted;
  return tree.digest;
}

/** Every entry of a tree by path, for diff and merge. */
export async function flatten(
  objects: ObjectStore,
  node: DirNode,
  path = '',
  into: EntryMap = new Map(),
): Promise<EntryMap> {
  for (const [name, child] of await loadDir(objects, node)) {
    const rel = childPath(path, name);
    let entry: Entry;
    if (child.kind === 'file')
      entry = { kind: 'file', path: rel, size: child.size, exec: child.exec, chunks: child.chunks };
    else if (child.kind === 'symlink') entry = { kind: 'symlink', path: rel, target: child.target };
    else entry = { kind: 'dir', path: rel };
    into.set(rel, entry);
    if (child.kind === 'dir') await flatten(objects, child, rel, into);
  }
  return into;
}

/**
 * Paths of the redacted files below a directory (a snapshot's root: every
 * one), reading only the trees that hold any. The root's own count is not
 * recorded anywhere, so its tree is always read.
 */
export async function redactedPaths(
  objects: ObjectStore,
  node: DirNode,
  path = '',
  out: string[] = [],
): Promise<string[]> {
  for (const [name, child] of await loadDir(objects, node)) {
    const rel = childPath(path, name);
    if (child.kind === 'file' && child.redacted) out.push(rel);
    else if (child.kind === 'dir' && (child.redacted ?? 0) > 0) await redactedPaths(objects, child, rel, out);
  }
  return out;
}
