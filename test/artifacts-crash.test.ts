/**
 * Artifacts under kill -9: every acknowledged artifact is whole, and after a
 * sweep nothing is left dangling.
 *
 * A child process (test/fixtures/artifact-publish-child.mjs, which imports
 * the built dist/) publishes artifacts from WRITERS concurrent writers — one
 * chunk or several, a fifth of them bytes an earlier one had (the same
 * chunks), some made from earlier artifacts — printing each publication
 * before it is called and each acknowledgement. The test SIGKILLs it at a
 * random moment, ROUNDS times on one store, and after each kill reopens the
 * store and checks:
 *
 * - every acknowledged artifact reads back with the bytes it was published
 *   with (made again from its seed), its digest and its inputs;
 * - a publication in flight at the kill is absent or whole, never partial;
 * - `sweepArtifacts` (grace 0) removes what killed writers left `writing`;
 *   then no record is `writing`, every chunk row's blob is there, and every
 *   blob file of the tenant is a chunk some artifact names (nothing
 *   dangling; temporary files of a killed put are left to the store's
 *   retention, issue 22);
 * - every tenth round and the last: the audit chain verifies.
 *
 * Run `npx tsc -p tsconfig.json` first.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../src/audit/audit-verify.js';
import { Store } from '../src/store.js';
import { contentOf } from './fixtures/artifact-content.mjs';
import { randomInt, runToKill, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';

const CHILD = fileURLToPath(new URL('./fixtures/artifact-publish-child.mjs', import.meta.url));

/** SIGKILLs, all on one store: each round starts on the store the last kill left. */
const ROUNDS = 50;
const WRITERS = 2;
const AUDIT_EVERY = 10;

const root = scratchRoot('cairn-artifact-crash-');

interface Begun {
  m: string;
  seed: string;
  size: number;
  inputs: string[];
}

interface Acked {
  m: string;
  id: string;
  digest: string;
}

interface KillPlan {
  after: 'ready' | 'begin' | 'ack';
  nth: number;
  delayMs: number;
}

function killPlan(): KillPlan {
  const r = Math.random();
  if (r < 0.3) return { after: 'ready', nth: 1, delayMs: randomInt(0, 200) };
  if (r < 0.65) return { after: 'ack', nth: randomInt(1, 6), delayMs: randomInt(0, 5) };
  return { after: 'begin', nth: randomInt(1, 6), delayMs: randomInt(0, 30) };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('artifacts under kill -9', () => {
  it(`loses no acknowledged artifact and leaves nothing dangling, over ${ROUNDS} kills`, async () => {
    const dir = join(root(), 'store');
    const setup = await Store.openDir(dir);
    const created = await setup.createTenant('crash');
    const token = created.token.token;
    const session = (await setup.fabric(await setup.authenticate(token)).createSession({ title: 'crash' }))
      .id;
    await setup.close();

    const begun = new Map<string, Begun>();
    const acked = new Map<string, Acked>();
    const tally = { kills: 0, acks: 0, inFlight: 0, committedUnacked: 0, abandoned: 0, chunks: 0 };

    for (let round = 0; round < ROUNDS; round++) {
      const plan = killPlan();
      let seen = 0;
      const child = spawnChild('publisher', CHILD, [dir, String(WRITERS)]);
      const go = {
        token,
        session,
        tag: `r${round}`,
        known: [...acked.values()].slice(-20).map((a) => ({ m: a.m, id: a.id })),
      };
      await runToKill(child, `${JSON.stringify(go)}\n`, {
        after: (line) => (line === plan.after || line.startsWith(`${plan.after} `)) && ++seen >= plan.nth,
        delayMs: plan.delayMs,
        stallMs: STALL_MS,
        stall: `did not reach ${plan.nth} × ${plan.after}`,
      });
      tally.kills++;
      const roundBegun: Begun[] = [];
      const roundAcked = new Set<string>();
      for (const line of child.lines) {
        if (line === 'ready') continue;
        if (line.startsWith('begin ')) {
          const b = JSON.parse(line.slice(6)) as Begun;
          begun.set(b.m, b);
          roundBegun.push(b);
        } else if (line.startsWith('ack ')) {
          const a = JSON.parse(line.slice(4)) as Acked;
          expect(begun.has(a.m), `acknowledged ${a.m} before it began`).toBe(true);
          acked.set(a.m, a);
          roundAcked.add(a.m);
          tally.acks++;
        } else throw new Error(`child printed a malformed line: ${JSON.stringify(line)}`);
      }

      const store = await Store.openDir(dir);
      try {
        const who = await store.authenticate(token);
        const fabric = store.fabric(who);
        const byName = new Map<string, Awaited<ReturnType<typeof fabric.getArtifact>>>();
        for (let after: string | undefined; ; ) {
          const page = await fabric.listArtifacts({
            limit: 1000,
            ...(after ? { after: after as `af_${string}` } : {}),
          });
          for (const a of page.artifacts) byName.set(a.name, a);
          if (page.next === null) break;
          after = page.next;
        }
        const whole = async (m: string) => {
          const b = begun.get(m) as Begun;
          const artifact = byName.get(m);
          expect(artifact, `${m} is listed`).toBeDefined();
          const expected = sha256(contentOf(b.seed, b.size));
          expect(artifact?.digest).toBe(expected);
          expect(artifact?.size).toBe(b.size);
          expect(artifact?.lineage.inputs).toEqual(b.inputs);
          const { bytes } = await fabric.readArtifact({ artifact: artifact!.id });
          expect(sha256(bytes), `${m}'s bytes`).toBe(expected);
        };
        // This round's acknowledged artifacts, and a sample of earlier ones, read back whole.
        const earlier = [...acked.keys()].filter((m) => !roundAcked.has(m));
        for (const m of [...roundAcked, ...earlier.slice(-5)]) await whole(m);
        for (const b of roundBegun) {
          if (roundAcked.has(b.m)) continue;
          tally.inFlight++;
          if (byName.has(b.m)) {
            tally.committedUnacked++;
            await whole(b.m);
            acked.set(b.m, { m: b.m, id: byName.get(b.m)!.id, digest: byName.get(b.m)!.digest });
          }
        }
        expect(byName.size).toBe(acked.size);

        tally.abandoned += (await fabric.sweepArtifacts({ graceMs: 0 })).abandoned;
        const { writing, chunks } = await store.engine.read(who.tenant, async (tx) => ({
          writing: await tx.all("SELECT id FROM artifacts WHERE tenant = ? AND state = 'writing'", [
            who.tenant,
          ]),
          chunks: (
            await tx.all<{ digest: string }>('SELECT DISTINCT digest FROM artifact_chunks WHERE tenant = ?', [
              who.tenant,
            ])
          ).map((r) => r.digest),
        }));
        expect(writing).toEqual([]);
        for (const digest of chunks) expect(await store.blobs.has(who.tenant, digest), digest).toBe(true);
        const tenantBlobs = join(dir, 'blobs', who.tenant);
        const files = existsSync(tenantBlobs)
          ? readdirSync(tenantBlobs).flatMap((sub) =>
              readdirSync(join(tenantBlobs, sub)).filter((name) => !name.startsWith('.tmp-')),
            )
          : [];
        expect(files.sort(), 'blob files are exactly the chunks artifacts name').toEqual([...chunks].sort());
        tally.chunks = chunks.length;
        if (round % AUDIT_EVERY === AUDIT_EVERY - 1 || round === ROUNDS - 1)
          expect((await verifyAuditChain(store.engine, who.tenant)).ok).toBe(true);
      } finally {
        await store.close();
      }
    }
    console.log(`[artifacts-crash] ${JSON.stringify(tally)}`);
    expect(tally.kills).toBe(ROUNDS);
    expect(tally.acks).toBeGreaterThan(ROUNDS);
  });
});
