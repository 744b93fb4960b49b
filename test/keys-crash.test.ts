import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MasterKey } from '../src/keys/crypto.js';
import { Store } from '../src/store.js';
import { randomInt } from './support/kill.js';
import { startProxyProcess } from './support/proxy-process.js';
import { tempDir } from './support/stores.js';
import { recordingUpstream } from './support/upstream.js';

/**
 * kill -9 of `cairn proxy` while requests are in flight. The claim: nothing
 * reaches the upstream before its decision (use counted, audit entry) is
 * durable. So after any number of SIGKILLs, every request the upstream saw
 * has a `keys.use` audit entry, every 200 the agent got was seen upstream,
 * and the audit chain verifies.
 */
const ROUNDS = 40;
const CLIENTS = 6;
let temp: { dir: string; remove(): void };

beforeAll(() => {
  temp = tempDir('cairn-keys-crash-');
});
afterAll(() => temp.remove());

describe('kill -9 of the egress proxy', () => {
  it(`forwards nothing whose decision is not durable (${ROUNDS} SIGKILLs with ${CLIENTS} clients in flight)`, async () => {
    const upstream = await recordingUpstream('live');
    const storeDir = join(temp.dir, 'store');
    const keyFile = join(temp.dir, 'master.key');
    const master = MasterKey.generate();
    writeFileSync(keyFile, `${master.toHex()}\n`);
    let store = await Store.openDir(storeDir);
    const who = await store.localIdentity();
    const keys = store.keys(who, { masterKey: master });
    const session = (await store.fabric(who).createSession({ title: 'crash' })).id;
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: upstream.url,
      value: Buffer.from('sk_live_crash_0123456789'),
    });
    await keys.grant({ session, branch: 'main', credential: 'billing', mode: 'live' });
    const { handle } = await keys.issueHandle({ session, branch: 'main' });
    await store.close();

    const acked = new Set<number>();
    let next = 0;
    let killedInFlight = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const { child, url } = await startProxyProcess(storeDir, keyFile);
        const exited = new Promise((r) => child.on('exit', r));
        let dead = false;
        const inFlight = new Set<number>();
        // The kill lands a random 0–50 ms after this round's k-th 200: a count, so a slow machine still
        // kills with answers behind it and requests in flight.
        const k = randomInt(2, 10);
        let answered = 0;
        let onEnough: () => void = () => {};
        const enough = new Promise<void>((done) => {
          onEnough = done;
        });
        const client = async () => {
          while (!dead) {
            const id = next++;
            inFlight.add(id);
            try {
              const res = await fetch(`${url}/billing/r/${id}`, {
                method: id % 2 === 0 ? 'GET' : 'POST',
                headers: { 'x-cairn-handle': handle },
                ...(id % 2 === 0 ? {} : { body: `{"n":${id}}` }),
              });
              const text = await res.text();
              if (res.status === 200) {
                acked.add(id);
                if (++answered >= k) onEnough();
              }
              // Six clients share one handle, and a handle holds at most 4 bodies at once: a fifth POST
              // in flight is told to come back (503, retry-after), which is not a failure.
              else if (res.status !== 503 || !text.includes('"rule":"spool_per_handle"'))
                throw new Error(`request ${id} answered ${res.status}: ${text.slice(0, 200)}`);
            } catch (error) {
              if (!dead) throw error;
            } finally {
              inFlight.delete(id);
            }
          }
        };
        const clients = Array.from({ length: CLIENTS }, client);
        // A client ends only by failing before the kill: then the round fails with its error.
        await Promise.race([enough, Promise.all(clients)]);
        await new Promise((r) => setTimeout(r, randomInt(0, 50)));
        killedInFlight += inFlight.size > 0 ? 1 : 0;
        dead = true; // from here on a failed request is the kill's doing
        child.kill('SIGKILL');
        await exited;
        await Promise.all(clients);
      }
    } finally {
      await upstream.close();
    }

    store = await Store.openDir(storeDir);
    try {
      const rows = await store.engine.read(who.tenant, (tx) =>
        tx.all<{ payload: string }>(
          "SELECT p.payload FROM audit_entries e JOIN audit_payloads p ON p.tenant = e.tenant AND p.seq = e.seq WHERE e.tenant = ? AND e.action = 'keys.use'",
          [who.tenant],
        ),
      );
      const audited = new Set(rows.map((r) => (JSON.parse(r.payload) as { url: string }).url));
      const seen = upstream.seen.map((s) => `${upstream.url}${s.path.slice('/api'.length)}`);
      const unaudited = seen.filter((u) => !audited.has(u));
      const seenIds = new Set(upstream.seen.map((s) => Number(s.path.split('/').pop())));
      const ackedNotSeen = [...acked].filter((id) => !seenIds.has(id));
      console.log(
        `keys: ${ROUNDS} SIGKILLs of cairn proxy (${killedInFlight} with requests in flight); ${next} requests sent, ${acked.size} answered 200, ${upstream.seen.length} reached the upstream, ${rows.length} uses audited`,
      );
      expect(unaudited).toEqual([]);
      expect(ackedNotSeen).toEqual([]);
      expect(new Set(seen).size).toBe(seen.length);
      expect(acked.size).toBeGreaterThan(ROUNDS);
      expect(killedInFlight).toBeGreaterThan(ROUNDS / 2);
      const [report] = await store.verifyTenants([who.tenant]);
      expect(report?.ok, JSON.stringify(report)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
