import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { Units } from '../src/unit/unit.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * A unit restore rewrites only the checkpoint's own workspace: asked to act
 * on another workspace of the same session (what `cairn mcp`'s restore does
 * by default: the caller's workspace), it refuses, naming both, and changes
 * nothing.
 */
describe('a unit restore acts only on the checkpoint’s own workspace', () => {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let desk: Desk;
  let units: Units;

  beforeEach(async () => {
    temp = tempDir('cairn-restore-intent-');
    ({ store, cleanup, who } = await backendStore('sqlite', 'restore-intent'));
    desk = store.desk(who, { host: 'intent-test', stateDir: join(temp.dir, 'state') });
    units = new Units(store.fabric(who), desk);
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  it('refuses another workspace of the session, naming both; the preview and result name the directory', async () => {
    const dir = join(temp.dir, 'main');
    put(dir, 'state.txt', '42\n');
    const ws = (await desk.attach({ dir })).workspace;
    const cp = await units.checkpoint({ workspace: ws.id });
    const other = (await desk.fork(ws.id, { dir: join(temp.dir, 'other'), driver: 'copy' })).workspace;
    writeFileSync(join(other.dir, 'state.txt'), 'mine\n');
    put(other.dir, 'extra.txt', 'x\n');

    for (const attempt of [
      () => units.previewRestore(cp.id, { workspace: other.id }),
      () => units.restore(cp.id, { workspace: other.id }),
    ]) {
      const error = await expectCode(attempt(), 'INVALID_ARGUMENT');
      expect(error.message).toContain(dir);
      expect(error.message).toContain(other.dir);
    }
    expect(readFileSync(join(other.dir, 'state.txt'), 'utf8')).toBe('mine\n');
    expect(readdirSync(other.dir).sort()).toEqual(['extra.txt', 'state.txt']);

    writeFileSync(join(dir, 'state.txt'), '43\n');
    const preview = await units.previewRestore(cp.id, { workspace: ws.id });
    expect(preview).toMatchObject({ workspace: ws.id, dir });
    const done = await units.restore(cp.id);
    expect(done.preview).toMatchObject({ workspace: ws.id, dir });
    expect(readFileSync(join(dir, 'state.txt'), 'utf8')).toBe('42\n');
  });
});
