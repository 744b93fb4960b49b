import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestOf } from '../src/desk/chunker.js';
import type { DeskContext } from '../src/desk/context.js';
import type { Desk } from '../src/desk/desk.js';
import { packIndex, verifyPack } from '../src/desk/pack-format.js';
import { PACK_SALT } from '../src/desk/pack-limits.js';
import { decodeTree, encodeTree, type TreeItem } from '../src/desk/tree.js';
import { newId } from '../src/ids.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * Snapshot names: a name over 255 bytes is refused where a pack arrives (a
 * remote client cannot bypass it), and a restore checks its whole plan —
 * every path's length, no symlink escape — before it touches a file.
 */
function packOf(objects: { digest: string; kind: 'chunk' | 'tree'; bytes: Buffer }[]): {
  digest: string;
  bytes: Buffer;
} {
  const parts: Buffer[] = [Buffer.alloc(PACK_SALT, 7)];
  let off = PACK_SALT;
  const entries = objects.map((o) => {
    parts.push(o.bytes);
    const entry = { digest: o.digest, kind: o.kind, off, len: o.bytes.length };
    off += o.bytes.length;
    return entry;
  });
  const bytes = Buffer.concat([...parts, packIndex(entries)]);
  return { digest: digestOf(bytes), bytes };
}

describe('names in snapshots', () => {
  it('a tree with a name over 255 bytes is refused where a pack arrives; 255 is accepted', () => {
    const content = Buffer.from('x\n');
    const chunk = { digest: digestOf(content), kind: 'chunk' as const, bytes: content };
    const treeNamed = (name: string) => {
      const t = encodeTree([{ name, kind: 'file', size: 2, exec: false, chunks: [chunk.digest] }]);
      return { digest: t.digest, kind: 'tree' as const, bytes: t.bytes };
    };
    const long = treeNamed('n'.repeat(256));
    const pack = packOf([chunk, long]);
    let refused: unknown;
    try {
      verifyPack(pack.digest, pack.bytes);
    } catch (error) {
      refused = error;
    }
    expect((refused as { code: string }).code).toBe('INVALID_ARGUMENT');
    expect(() => decodeTree(long.digest, long.bytes)).toThrow(/bad entry name/);
    // Multi-byte characters count as bytes: 128 two-byte characters are 256 bytes.
    const wide = treeNamed('é'.repeat(128));
    expect(() => decodeTree(wide.digest, wide.bytes)).toThrow(/bad entry name/);
    const fits = treeNamed('n'.repeat(255));
    const ok = packOf([chunk, fits]);
    expect(verifyPack(ok.digest, ok.bytes)).toHaveLength(2);
  });
});

describe('a restore checks its whole plan first', () => {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let desk: Desk;

  beforeEach(async () => {
    temp = tempDir('cairn-names-');
    ({ store, cleanup, who } = await backendStore('sqlite', 'names'));
    desk = store.desk(who, { host: 'names-test', stateDir: join(temp.dir, 'state') });
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  /**
   * A snapshot as a modified client could commit it: `a.txt` changed, and a
   * file 17 directories of 250-byte names deep (a path over 4,096 bytes).
   */
  async function craftedSnapshot(): Promise<string> {
    const other = join(temp.dir, 'other');
    put(other, 'seed.txt', 'seed\n');
    const ws = (await desk.attach({ dir: other })).workspace;
    const ctx = (desk as unknown as { context: DeskContext }).context;
    const writer = ctx.objects.writer();
    const add = async (kind: 'chunk' | 'tree', bytes: Buffer) => {
      const digest = digestOf(bytes);
      await writer.add(digest, kind, bytes);
      return digest;
    };
    const deep = await add('chunk', Buffer.from('deep\n'));
    const changed = await add('chunk', Buffer.from('new\n'));
    let below: TreeItem = { name: 'f', kind: 'file', size: 5, exec: false, chunks: [deep] };
    for (let i = 0; i < 17; i++) {
      const t = encodeTree([below]);
      await add('tree', t.bytes);
      below = { name: `${i}`.padStart(250, 'd'), kind: 'dir', tree: t.digest, files: 1, bytes: 5 };
    }
    const root = encodeTree([
      { name: 'a.txt', kind: 'file', size: 4, exec: false, chunks: [changed] },
      below,
    ]);
    await add('tree', root.bytes);
    await writer.flush();
    const { head } = await ctx.store.head(ws.id);
    const committed = await ctx.store.commit({
      id: newId('snapshot'),
      workspace: ws.id,
      expectHead: head.id,
      kind: 'checkpoint',
      root: root.digest,
      files: 2,
      bytes: 9,
      ...writer.commitFields(),
    });
    return committed.snapshot.id;
  }

  it('a plan with one path over 4,096 bytes changes nothing, not even the valid entries', async () => {
    const dir = join(temp.dir, 'work');
    put(dir, 'a.txt', 'old\n');
    const ws = (await desk.attach({ dir })).workspace;
    const crafted = await craftedSnapshot();
    const snapshots = (await desk.listSnapshots(ws.id)).length;

    await expectCode(desk.restore(ws.id, crafted as never), 'INVALID_ARGUMENT');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['a.txt']);
    expect((await desk.listSnapshots(ws.id)).length).toBe(snapshots);
  });
});
