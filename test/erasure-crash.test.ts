/**
 * Erasure after kill -9 (issue 22): a child process erases a subject of a
 * local store and is SIGKILLed after a random delay, again and again with a
 * longer delay, until one run finishes. After every kill the store verifies
 * (each feature's rows went with their audit payloads and tombstones in one
 * transaction), and the other user's data is all there; the run that
 * finishes resumes what the killed ones began, and at the end no byte of the
 * subject is in the store folder and asking again answers the same receipt.
 * Bounded by counts of subjects and kills, not by time.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import { MasterKey } from '../src/entry/keys.js';
import { Store } from '../src/store.js';
import { addBilling, type SeedPlace, seedSubject } from './support/erasure-seed.js';
import { randomInt, scratchRoot, spawnChild } from './support/kill.js';
import { filesContaining } from './support/scan.js';

const CHILD = fileURLToPath(new URL('./fixtures/erase-child.mjs', import.meta.url));
/** Subjects erased, each under kills until one run finishes. */
const SUBJECTS = 4;
/** A subject's runs at most: the delay grows each run, so one finishes long before this. */
const MAX_RUNS = 40;

describe('erasure under kill -9', () => {
  const root = scratchRoot('cairn-erase-crash-');

  it('resumes after every kill, verifies after every kill, and ends with nothing of the subject', async () => {
    const storeDir = join(root(), 'store');
    const master = MasterKey.generate();
    const desks: Desk[] = [];
    const open = async () => {
      const store = await Store.openDir(storeDir);
      const admin = await store.localIdentity();
      const place: SeedPlace = { store, admin, master, root: root(), desks };
      return { store, admin, place };
    };
    const close = async (store: Store) => {
      for (const d of desks.splice(0)) await d.close();
      await store.close();
    };
    let { store, admin, place } = await open();
    await addBilling(store, admin, master);
    const kept = await seedSubject(place, 'kept');
    await close(store);

    let killedInside = 0;
    let kills = 0;
    for (let n = 0; n < SUBJECTS; n++) {
      ({ store, admin, place } = await open());
      const subject = await seedSubject(place, `gone${n}`, { events: 60, memories: 40, artifacts: 4 });
      await close(store);
      const target = `user:${subject.who.principal}`;
      let result: string | undefined;
      for (let run = 0; result === undefined; run++) {
        expect(run, `${target} did not finish in ${MAX_RUNS} runs`).toBeLessThan(MAX_RUNS);
        const child = spawnChild('eraser', CHILD, [storeDir, target]);
        let timer: NodeJS.Timeout | undefined;
        child.go('go\n', (line) => {
          if (line === 'ready') timer = setTimeout(child.kill, randomInt(0, Math.round(40 * 1.5 ** run)));
          if (line.startsWith('done ')) result = line.slice(5);
        });
        const exit = await child.closed;
        clearTimeout(timer);
        if (result !== undefined) break;
        expect(exit.signal, `the eraser failed: ${child.err}`).toBe('SIGKILL');
        kills++;
        // After the kill: the store verifies, the kept user's data is there.
        ({ store, admin } = await open());
        const [report] = await store.verifyTenants([admin.tenant]);
        expect(report, JSON.stringify(report)).toMatchObject({ ok: true });
        const running = await store.engine.read(admin.tenant, (tx) =>
          tx.get("SELECT 1 AS one FROM erasures WHERE subject = ? AND state = 'running'", [target]),
        );
        if (running) killedInside++;
        await close(store);
      }
      for (const s of subject.marks) expect(filesContaining(storeDir, s), s).toEqual([]);
      ({ store, admin } = await open());
      const again = await store.fabric(admin).erase({ subject: target });
      expect(again).toEqual(JSON.parse(result));
      await close(store);
    }
    for (const s of kept.marks) expect(filesContaining(storeDir, s), s).not.toEqual([]);
    ({ store, admin } = await open());
    const [report] = await store.verifyTenants([admin.tenant]);
    expect(report).toMatchObject({ ok: true });
    expect(report?.erased).toBeGreaterThan(0);
    await close(store);
    // The kills landed inside erasures, not only before or after them.
    expect(kills).toBeGreaterThanOrEqual(SUBJECTS);
    expect(killedInside).toBeGreaterThanOrEqual(2);
  });
});
