import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  promises as fs,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  type Stats,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { childPath, type DirNode, type FileNode, type LinkNode, loadDir, type Node } from './model.js';
import { type ObjectStore, PREFETCH_BYTES } from './objects.js';

/**
 * Turns a directory on disk from one tree into another, touching only the
 * entries that differ (subtrees with equal digests are skipped unread). Each
 * file is written to a temporary name beside it and renamed into place, so a
 * reader never sees half a file. Paths the current tree does not track
 * (ignored files, credentials) are never overwritten or removed.
 */
export interface PathChange {
  path: string;
  change: 'added' | 'changed' | 'removed';
  kind: Node['kind'];
}

export interface ApplyContext {
  root: string;
  objects: ObjectStore;
  /** false: only list the changes (a preview); nothing on disk or in the model moves. */
  apply: boolean;
  /** Limits the change to these paths and what lies below them (all when absent). */
  only?: readonly string[];
  /** Paths never written (credential paths): listed in `withheld`. */
  withhold(path: string): boolean;
  changes: PathChange[];
  withheld: string[];
  /** Entries left in place because something untracked (ignored or credential files) is in the way. */
  blocked: string[];
  /** Paths a restore neither writes nor removes, and does not list (`.git` when snapshots leave it out). */
  untouchable?: (path: string) => boolean;
  /** Entries of either tree skipped because they are untouchable. */
  untouched: string[];
  /** Nodes written, to have their stat recorded once the apply is over. */
  written: { path: string; node: FileNode | LinkNode }[];
  /** Called after each file written (progress for long restores). */
  onFile?: () => void;
  /** Called before a file's content is replaced in place (a changed file whose listing entry stays). */
  onWrite?: (path: string) => void;
  /** Stat of files written by `materialize`, read from their descriptors. */
  stats: Map<string, Stats>;
}

export function applyContext(
  root: string,
  objects: ObjectStore,
  apply: boolean,
  withhold: (path: string) => boolean = () => false,
  only?: readonly string[],
): ApplyContext {
  return {
    root,
    objects,
    apply,
    only,
    withhold,
    changes: [],
    withheld: [],
    blocked: [],
    untouched: [],
    written: [],
    stats: new Map(),
  };
}

/** Whether `path` lies in, or leads to, one of the paths the change is limited to. */
function inScope(ctx: ApplyContext, path: string): boolean {
  if (!ctx.only) return true;
  return ctx.only.some((p) => p === path || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
}

/** Whether `path` lies in one of the paths (not merely on the way to one). */
function covered(ctx: ApplyContext, path: string): boolean {
  return !ctx.only || ctx.only.some((p) => p === path || path.startsWith(`${p}/`));
}

const HOLE = 64 * 1024;
const ZEROS = Buffer.alloc(HOLE);

/** Writes bytes at a position, leaving all-zero 64 KiB blocks as holes; true when the last block was a hole. */
function writeSparse(fd: number, bytes: Buffer, position: number): boolean {
  let hole = false;
  for (let at = 0; at < bytes.length; at += HOLE) {
    const block = bytes.subarray(at, Math.min(at + HOLE, bytes.length));
    hole = block.length === HOLE && block.equals(ZEROS);
    if (hole) continue;
    let done = 0;
    while (done < block.length) done += writeSync(fd, block, done, block.length - done, position + at + done);
  }
  return hole;
}

/**
 * Writes a file's chunks; zero blocks become holes, so sparse files stay
 * sparse. Into a live directory the file goes to a temporary name and is
 * renamed into place; `fresh` (a new directory nobody uses yet) writes it
 * under its own name.
 */
export async function writeFileNode(
  objects: ObjectStore,
  abs: string,
  node: FileNode,
  fresh = false,
): Promise<void> {
  const temp = fresh ? abs : `${abs}.cairn-${randomBytes(6).toString('hex')}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    let position = 0;
    let hole = false;
    for (const digest of node.chunks) {
      const bytes = await objects.get(digest);
      hole = writeSparse(fd, bytes, position);
      position += bytes.length;
    }
    if (hole) ftruncateSync(fd, node.size);
    fchmodSync(fd, node.exec ? 0o755 : 0o644);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, abs);
}

function exists(abs: string): boolean {
  return lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
}

async function create(ctx: ApplyContext, rel: string, node: Node): Promise<boolean> {
  if (node.kind !== 'dir' && ctx.withhold(rel)) {
    ctx.withheld.push(rel);
    return false;
  }
  const abs = join(ctx.root, rel);
  if (ctx.apply && exists(abs)) {
    ctx.blocked.push(rel);
    return false;
  }
  ctx.changes.push({ path: rel, change: 'added', kind: node.kind });
  if (node.kind === 'dir') {
    if (ctx.apply) mkdirSync(abs);
    const children = await loadDir(ctx.objects, node);
    for (const [name, child] of [...children]) {
      if (!(await create(ctx, childPath(rel, name), child)) && ctx.apply) {
        children.delete(name);
        node.tree = null;
      }
    }
  } else if (ctx.apply) {
    if (node.kind === 'file') await writeFileNode(ctx.objects, abs, node);
    else symlinkSync(node.target, abs);
    ctx.written.push({ path: rel, node });
    ctx.onFile?.();
  }
  return true;
}

/** Removes a tracked entry; returns false when something untracked kept a directory in place. */
async function remove(ctx: ApplyContext, rel: string, node: Node): Promise<boolean> {
  ctx.changes.push({ path: rel, change: 'removed', kind: node.kind });
  if (!ctx.apply) {
    if (node.kind === 'dir') {
      for (const [name, child] of await loadDir(ctx.objects, node))
        await remove(ctx, childPath(rel, name), child);
    }
    return true;
  }
  const abs = join(ctx.root, rel);
  if (node.kind !== 'dir') {
    try {
      unlinkSync(abs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return true;
  }
  const children = await loadDir(ctx.objects, node);
  for (const [name, child] of [...children]) {
    if (await remove(ctx, childPath(rel, name), child)) children.delete(name);
  }
  node.tree = null;
  try {
    rmdirSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') {
      ctx.blocked.push(rel);
      return false;
    }
    if (code !== 'ENOENT') throw error;
  }
  return true;
}

/**
 * Applies (or previews) the change from `current` to `target` below `rel`.
 * When applying, `current` is updated in place to describe the disk
 * afterwards; directories that changed lose their digest (seal recomputes it).
 */
export async function applyTree(
  ctx: ApplyContext,
  current: DirNode,
  target: DirNode,
  rel = '',
): Promise<void> {
  if (current.tree !== null && current.tree === target.tree) return;
  const from = await loadDir(ctx.objects, current);
  const to = await loadDir(ctx.objects, target);
  const skippedNow = () => ctx.blocked.length + ctx.withheld.length + ctx.untouched.length;
  const skipped = skippedNow();
  const touch = () => {
    if (ctx.apply) current.tree = null;
  };
  for (const [name, before] of [...from]) {
    const path = childPath(rel, name);
    if (ctx.untouchable?.(path)) {
      ctx.untouched.push(path);
      continue;
    }
    if (!to.has(name) && covered(ctx, path)) {
      touch();
      if ((await remove(ctx, path, before)) && ctx.apply) from.delete(name);
    }
  }
  for (const [name, after] of to) {
    const path = childPath(rel, name);
    if (!inScope(ctx, path)) continue;
    if (ctx.untouchable?.(path)) {
      if (!from.has(name)) ctx.untouched.push(path);
      continue;
    }
    const before = from.get(name);
    if (before?.kind === 'dir' && after.kind === 'dir') {
      await applyTree(ctx, before, after, path);
      if (before.tree === null) touch();
      continue;
    }
    if (!covered(ctx, path)) continue;
    if (!before) {
      touch();
      if ((await create(ctx, path, after)) && ctx.apply) from.set(name, after);
    } else if (
      before.kind === 'file' &&
      after.kind === 'file' &&
      before.chunks.join() === after.chunks.join()
    ) {
      if (before.exec !== after.exec) {
        ctx.changes.push({ path, change: 'changed', kind: 'file' });
        if (ctx.apply) {
          touch();
          ctx.onWrite?.(path);
          chmodSync(join(ctx.root, path), after.exec ? 0o755 : 0o644);
          before.exec = after.exec;
          before.stat = null;
          ctx.written.push({ path, node: before });
        }
      }
    } else if (before.kind === 'symlink' && after.kind === 'symlink' && before.target === after.target) {
      // unchanged
    } else if (before.kind === 'file' && after.kind === 'file' && !ctx.withhold(path)) {
      ctx.changes.push({ path, change: 'changed', kind: 'file' });
      if (ctx.apply) {
        touch();
        ctx.onWrite?.(path);
        await writeFileNode(ctx.objects, join(ctx.root, path), after);
        from.set(name, after);
        ctx.written.push({ path, node: after });
        ctx.onFile?.();
      }
    } else {
      touch();
      if (!(await remove(ctx, path, before))) continue;
      if (ctx.apply) from.delete(name);
      if ((await create(ctx, path, after)) && ctx.apply) from.set(name, after);
    }
  }
  // Everything below now matches the target exactly: take its digest rather than recomputing it.
  if (ctx.apply && !ctx.only && skippedNow() === skipped) {
    current.tree = target.tree;
    current.files = target.files;
    current.bytes = target.bytes;
    if (target.redacted) current.redacted = target.redacted;
    else delete current.redacted;
  }
}

const PARALLEL_WRITES = 8;
/** Files per group of a materialise: their small contents are fetched together. */
const GROUP_FILES = 256;

/** Writes one file into a new directory with async calls (so several run at once on libuv's pool). */
async function writeFresh(objects: ObjectStore, abs: string, node: FileNode): Promise<Stats> {
  const handle = await fs.open(abs, 'wx', 0o600);
  try {
    let position = 0;
    for (const digest of node.chunks) {
      const bytes = await objects.get(digest);
      for (let at = 0; at < bytes.length; at += HOLE) {
        const block = bytes.subarray(at, Math.min(at + HOLE, bytes.length));
        if (block.length === HOLE && block.equals(ZEROS)) continue;
        let done = 0;
        while (done < block.length)
          done += (await handle.write(block, done, block.length - done, position + at + done)).bytesWritten;
      }
      position += bytes.length;
    }
    await handle.truncate(node.size);
    await handle.chmod(node.exec ? 0o755 : 0o644);
    return await handle.stat();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a whole tree into an empty directory (a copy fork, a lower layer):
 * directories and links first, then the files, several at a time. Files go
 * straight under their names (nobody uses the directory yet); the stat of
 * each is taken from its open descriptor for the new model's stat cache.
 */
export async function materialize(
  objects: ObjectStore,
  root: string,
  tree: DirNode,
  onFile?: () => void,
): Promise<ApplyContext> {
  const ctx = applyContext(root, objects, true);
  const files: { path: string; node: FileNode }[] = [];
  const walk = async (node: DirNode, rel: string): Promise<void> => {
    for (const [name, child] of await loadDir(objects, node)) {
      const path = childPath(rel, name);
      const abs = join(root, path);
      if (child.kind === 'dir') {
        mkdirSync(abs);
        await walk(child, path);
      } else if (child.kind === 'symlink') {
        symlinkSync(child.target, abs);
        ctx.written.push({ path, node: child });
      } else {
        files.push({ path, node: child });
      }
    }
  };
  await walk(tree, '');
  // Files in groups whose single-chunk contents are fetched ahead in one call (a round trip to a
  // server per group, not per file), then written several at a time.
  for (let start = 0; start < files.length; ) {
    let end = start;
    let bytes = 0;
    while (end < files.length && end - start < GROUP_FILES && bytes < PREFETCH_BYTES)
      bytes += (files[end++] as { node: FileNode }).node.size;
    const group = files.slice(start, end);
    await objects.prefetch(
      group.flatMap(({ node }) =>
        node.chunks.length === 1 ? [{ digest: node.chunks[0] as string, size: node.size }] : [],
      ),
    );
    let next = 0;
    const worker = async () => {
      while (next < group.length) {
        const { path, node } = group[next++] as { path: string; node: FileNode };
        const st = await writeFresh(objects, join(root, path), node);
        ctx.stats.set(path, st);
        ctx.written.push({ path, node });
        onFile?.();
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_WRITES }, worker));
    start = end;
  }
  return ctx;
}
