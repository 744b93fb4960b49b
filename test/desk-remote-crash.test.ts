/**
 * The desk over the network under kill -9 of the server: a `cairn serve`
 * child is SIGKILLed at a random moment while a desk on this host (the test
 * process, with no store of its own) checkpoints through it — during the pack
 * uploads, the commit, or between checkpoints — and started again on the
 * same port. A pack upload cut off is sent again once the server is back (a
 * checkpoint may so complete across the restart); a commit cut off is in
 * doubt and the next checkpoint starts from the server's head.
 *
 * Checked: every checkpoint either is acknowledged or fails with a typed
 * transport or retry error (never anything else); at the end the store
 * verifies, every acknowledged snapshot is listed with the root it was
 * acknowledged with, a sample restores byte for byte through the server, and
 * after GC (no grace) no pack is left half-written and no object's bytes are
 * stored twice. Run `npx tsc -p tsconfig.json` first (the server is dist/).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import { CairnError } from '../src/errors.js';
import { Store } from '../src/store.js';
import { type Child, randomInt, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';
import { describeTree, put } from './support/trees.js';

const CLI = fileURLToPath(new URL('../bin/cairn.js', import.meta.url));
const KILLS = 50;
const RESTORE_SAMPLE = 8;
const HOST = 'remote-crash-host';

const root = scratchRoot('cairn-remote-crash-');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

/** Starts `cairn serve` on the port; resolves with the child and what it printed once it is listening. */
async function serve(store: string, port: number): Promise<{ child: Child; token: string }> {
  const child = spawnChild('cairn serve', CLI, ['serve', '--json', '--store', store, '--port', String(port)]);
  let timer: NodeJS.Timeout | undefined;
  try {
    const first = await Promise.race([
      new Promise<string>((done) => child.go('', done)),
      child.closed.then((exit): never => {
        throw new Error(`cairn serve exited (${JSON.stringify(exit)}): ${child.err}`);
      }),
      new Promise<never>((_, fail) => {
        timer = setTimeout(
          () => fail(new Error(`cairn serve did not listen within ${STALL_MS} ms: ${child.err}`)),
          STALL_MS,
        );
      }),
    ]);
    return { child, token: (JSON.parse(first) as { token: string }).token };
  } catch (error) {
    await child.discard();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

describe('kill -9 of cairn serve during remote checkpoints', () => {
  it(`loses no acknowledged snapshot and leaves the store sound (${KILLS} SIGKILLs)`, async () => {
    const dir = root();
    const store = join(dir, 'store');
    const work = join(dir, 'host', 'work');
    mkdirSync(work, { recursive: true });
    for (let i = 0; i < 20; i++) put(work, `src/file-${i}.txt`, `line ${i}\n`.repeat(50));
    const port = await freePort();
    let server = await serve(store, port);
    const fabric = connect({ url: `http://127.0.0.1:${port}`, token: server.token, timeoutMs: 20_000 });
    const desk = await remoteDesk(fabric, { stateDir: join(dir, 'host', 'state'), host: HOST });
    const { workspace } = await desk.attach({ dir: work });
    const acked: { id: string; root: string; tree: ReturnType<typeof describeTree> }[] = [];
    const failures: Record<string, number> = {};
    let acrossRestart = 0;
    try {
      for (let round = 1; round <= KILLS; round++) {
        // Each round: a new large file (packs to upload), a changed one, one removed.
        put(work, `data/round-${round}.bin`, randomBytes(randomInt(1, 3) * 1024 * 1024 + randomInt(0, 9999)));
        put(work, `src/file-${round % 20}.txt`, `round ${round}\n`.repeat(40));
        if (round > 3) rmSync(join(work, 'data', `round-${round - 3}.bin`), { force: true });
        const tree = describeTree(work);
        const killedAt = { done: false };
        const taking = desk.checkpoint(workspace.id).then(
          (r) => ({ ok: true as const, r, afterKill: killedAt.done }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        await new Promise((resolve) => setTimeout(resolve, randomInt(0, 350)));
        server.child.kill();
        await server.child.closed;
        killedAt.done = true;
        server = await serve(store, port);
        const outcome = await taking;
        if (outcome.ok) {
          acked.push({ id: outcome.r.snapshot.id, root: outcome.r.snapshot.root, tree });
          if (outcome.afterKill) acrossRestart++;
        } else {
          const error = outcome.e as CairnError;
          expect(error, String(error)).toBeInstanceOf(CairnError);
          expect(['UNAVAILABLE', 'IN_DOUBT', 'CONFLICT'], `${error.code}: ${error.message}`).toContain(
            error.code,
          );
          failures[error.code] = (failures[error.code] ?? 0) + 1;
        }
      }
      // The last state, once more with the server up: acknowledged.
      const last = await desk.checkpoint(workspace.id);
      acked.push({ id: last.snapshot.id, root: last.snapshot.root, tree: describeTree(work) });

      const listed = new Map((await desk.listSnapshots(workspace.id)).map((s) => [s.id, s.root]));
      for (const a of acked) expect(listed.get(a.id), a.id).toBe(a.root);
      // A sample restores byte for byte, through the server.
      const sample = [...acked].sort(() => Math.random() - 0.5).slice(0, RESTORE_SAMPLE);
      for (const a of [...sample, acked[acked.length - 1] as (typeof acked)[number]]) {
        await desk.restore(workspace.id, a.id);
        expect(describeTree(work), a.id).toEqual(a.tree);
      }
    } finally {
      await desk.close();
      await fabric.close();
      await server.child.discard();
    }

    const local = await Store.openDir(store);
    try {
      const who = await local.localIdentity();
      const check = local.desk(who, { stateDir: join(dir, 'check-state'), host: 'checker' });
      expect(await check.verify()).toMatchObject({ ok: true });
      const gc = await check.gc({ graceMs: 0 });
      expect(await check.verify()).toMatchObject({ ok: true });
      await check.close();
      const left = await local.engine.read(who.tenant, async (tx) => ({
        writing: await tx.all<{ digest: string }>(
          "SELECT digest FROM desk_packs WHERE tenant = ? AND state = 'writing'",
          [who.tenant],
        ),
        staged: await tx.all<{ pack: string }>('SELECT pack FROM desk_staged WHERE tenant = ?', [who.tenant]),
        live: await tx.get<{ bytes: number }>(
          "SELECT COALESCE(SUM(size), 0) AS bytes FROM desk_packs WHERE tenant = ? AND state = 'live'",
          [who.tenant],
        ),
        objects: await tx.get<{ bytes: number }>(
          'SELECT COALESCE(SUM(len), 0) AS bytes FROM desk_objects WHERE tenant = ?',
          [who.tenant],
        ),
      }));
      expect(left.writing).toEqual([]);
      expect(left.staged).toEqual([]);
      // Every byte in a live pack is an indexed object's, or pack overhead (salt, index): no object twice.
      const ratio = Number(left.live?.bytes) / Number(left.objects?.bytes);
      console.log(
        `remote desk: ${KILLS} SIGKILLs of cairn serve; ${acked.length} acks (${acrossRestart} completed across a restart), failures ${JSON.stringify(failures)}; gc removed ${gc.removedPacks} packs; live pack bytes / object bytes = ${ratio.toFixed(4)}`,
      );
      expect(ratio).toBeLessThan(1.01);
    } finally {
      await local.close();
    }
  });
});
