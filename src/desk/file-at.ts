/**
 * The desk's facade for a file of a snapshot, as other features ask for it
 * (an artifact published from a workspace: its bytes must be the
 * snapshot's). Reads through the store side's re-hashing object reads.
 */
import { invalidArgument, notFound } from '../errors.js';
import type { OpContext } from '../ops/op.js';
import { ObjectStore } from './objects.js';
import { deskStoreOf } from './store-side.js';

/** A regular file of a snapshot: its size and its chunks' digests, in order. */
export interface SnapshotFile {
  size: number;
  chunks: string[];
}

/**
 * The file at `path` (slash-separated, relative to the workspace's root) in
 * snapshot `snapshot` of the caller's tenant; NOT_FOUND when the snapshot or
 * the path is not there, INVALID_ARGUMENT when the path names a directory or
 * a link.
 */
export async function fileAt(ctx: OpContext, snapshot: string, path: string): Promise<SnapshotFile> {
  const store = deskStoreOf(ctx);
  const objects = new ObjectStore(store);
  const { root } = await store.snapshot(snapshot);
  const names = path.split('/').filter((n) => n !== '' && n !== '.');
  let tree = root;
  for (const [i, name] of names.entries()) {
    const item = (await objects.tree(tree)).find((entry) => entry.name === name);
    const last = i === names.length - 1;
    if (!item) throw notFound(`no file ${path} in snapshot ${snapshot}: check the path`, { snapshot, path });
    if (last && item.kind === 'file') return { size: item.size, chunks: [...item.chunks] };
    if (!last && item.kind === 'dir') {
      tree = item.tree;
      continue;
    }
    throw invalidArgument(`${path} in snapshot ${snapshot} is not a regular file: name a file`, {
      field: 'path',
    });
  }
  throw invalidArgument(`"${path}" names no file: pass a path relative to the workspace's root`, {
    field: 'path',
  });
}
