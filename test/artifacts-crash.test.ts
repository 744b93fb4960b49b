/**
 * Artifacts under kill -9: every acknowledged artifact is whole, every
 * acknowledged removal holds, and after a sweep and the blob GC nothing is
 * left dangling.
 *
 * A child process (test/fixtures/artifact-publish-child.mjs, which imports
 * the built dist/) publishes artifacts from WRITERS concurrent writers — one
 * chunk or several, a fifth of them bytes an earlier one had (the same
 * chunks), some made from earlier artifacts, some with a TTL of a second —
 * while a remover removes earlier ones and a sweeper runs the retention
 * sweep, printing each call before it is made and each acknowledgement. The
 * test SIGKILLs it at a random moment (after a publication, a removal or a
 * sweep began or ended), ROUNDS times on one store, and after each kill
 * reopens the store and checks:
 *
 * - every acknowledged artifact with no TTL and no removal begun reads back
 *   with the bytes it was published with (made again from its seed), its
 *   digest and its inputs;
 * - an artifact whose removal was acknowledged is gone; one whose removal,
 *   publication or TTL was under way at the kill is gone or whole, never
 *   partial; a refused publication is absent;
 * - `sweepArtifacts` (grace 0) removes what killed writers left `writing`,
 *   and `collectUnnamedBlobs` what killed removals left of their blobs;
 *   then no record is `writing`, every chunk row's blob is there, and the
 *   tenant's blobs (the store's own listing) are exactly the chunks
 *   artifacts name (temporary files of a killed put are not blobs);
 * - every tenth round and the last: the audit chain verifies.
 *
 * On the folder's blobs (SQLite + a blob folder) and, with an S3 server, on
 * S3 blobs (Ceph RGW) beside the folder's database. Run `npx tsc -p
 * tsconfig.json` first.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../src/audit/audit-verify.js';
import { S3BlobStore } from '../src/blob/s3/s3-blob-store.js';
import { Store } from '../src/store.js';
import { openStoreFolder } from '../src/store-folder.js';
import { contentOf } from './fixtures/artifact-content.mjs';
import { randomInt, runToKill, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';
import { describeS3, freshBucket } from './support/s3.js';

/** Temporary files (`.tmp-…`) under a blob folder: what a put killed before its rename leaves. */
function temporaryFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.startsWith('.tmp-')) found.push(join(dir, e.name));
    }
  };
  walk(root);
  return found;
}

const CHILD = fileURLToPath(new URL('./fixtures/artifact-publish-child.mjs', import.meta.url));

const WRITERS = 2;
const AUDIT_EVERY = 10;

const root = scratchRoot('cairn-artifact-crash-');

interface Begun {
  m: string;
  seed: string;
  size: number;
  inputs: string[];
  ttl: boolean;
}

type Mark = 'ready' | 'begin' | 'ack' | 'remove' | 'removed' | 'sweep' | 'swept';

interface KillPlan {
  after: Mark;
  nth: number;
  delayMs: number;
}

function killPlan(): KillPlan {
  const r = Math.random();
  if (r < 0.15) return { after: 'ready', nth: 1, delayMs: randomInt(0, 200) };
  if (r < 0.4) return { after: 'ack', nth: randomInt(1, 6), delayMs: randomInt(0, 5) };
  if (r < 0.6) return { after: 'begin', nth: randomInt(1, 6), delayMs: randomInt(0, 30) };
  if (r < 0.75) return { after: 'remove', nth: randomInt(1, 2), delayMs: randomInt(0, 10) };
  if (r < 0.85) return { after: 'removed', nth: 1, delayMs: randomInt(0, 5) };
  return { after: 'sweep', nth: randomInt(1, 3), delayMs: randomInt(0, 10) };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** S3BlobStore's options for a bucket of the test server, for the child and the checks alike. */
type S3Options = ConstructorParameters<typeof S3BlobStore>[0];

async function openStore(dir: string, s3?: S3Options): Promise<Store> {
  if (!s3) return Store.openDir(dir);
  const { engine, blobs, deskDir } = await openStoreFolder(dir);
  await blobs.close();
  return new Store(engine, new S3BlobStore(s3), deskDir);
}

async function crashRounds(rounds: number, s3?: S3Options) {
  const dir = join(root(), s3 ? 'store-s3' : 'store');
  const setup = await openStore(dir, s3);
  const created = await setup.createTenant('crash');
  const token = created.token.token;
  const session = (await setup.fabric(await setup.authenticate(token)).createSession({ title: 'crash' })).id;
  await setup.close();

  const begun = new Map<string, Begun>();
  const acked = new Map<string, string>(); // m → id
  const removalsAcked = new Set<string>();
  const removalsBegun = new Set<string>();
  const refused = new Set<string>();
  const tally = {
    kills: 0,
    acks: 0,
    removed: 0,
    sweeps: 0,
    committedUnacked: 0,
    abandoned: 0,
    leaked: 0,
    temporary: 0,
  };
  let present: { m: string; id: string }[] = [];

  // The acknowledgements the kill plans waited for: the kills are random, so this, not the rounds, bounds `acks`.
  let awaitedAcks = 0;
  for (let round = 0; round < rounds; round++) {
    // The first round always kills after an acknowledgement, so every run checks acknowledged artifacts.
    const plan: KillPlan = round === 0 ? { after: 'ack', nth: 2, delayMs: 0 } : killPlan();
    if (plan.after === 'ack') awaitedAcks += plan.nth;
    let seen = 0;
    const child = spawnChild('publisher', CHILD, [dir, String(WRITERS), ...(s3 ? [JSON.stringify(s3)] : [])]);
    const go = { token, session, tag: `r${round}`, known: present.slice(-30) };
    await runToKill(child, `${JSON.stringify(go)}\n`, {
      after: (line) => (line === plan.after || line.startsWith(`${plan.after} `)) && ++seen >= plan.nth,
      delayMs: plan.delayMs,
      stallMs: STALL_MS,
      stall: `did not reach ${plan.nth} × ${plan.after}`,
    });
    tally.kills++;
    for (const line of child.lines) {
      const space = line.indexOf(' ');
      const mark = space < 0 ? line : line.slice(0, space);
      const body = space < 0 ? undefined : JSON.parse(line.slice(space + 1));
      if (mark === 'ready' || mark === 'sweep') continue;
      if (mark === 'begin') begun.set(body.m, body as Begun);
      else if (mark === 'ack') {
        expect(begun.has(body.m), `acknowledged ${body.m} before it began`).toBe(true);
        acked.set(body.m, body.id);
        tally.acks++;
      } else if (mark === 'refused') refused.add(body.m);
      else if (mark === 'remove') removalsBegun.add(body.m);
      else if (mark === 'removed') {
        removalsAcked.add(body.m);
        tally.removed++;
      } else if (mark === 'swept') tally.sweeps++;
      else throw new Error(`child printed a malformed line: ${JSON.stringify(line)}`);
    }

    const store = await openStore(dir, s3);
    try {
      const who = await store.authenticate(token);
      const fabric = store.fabric(who);
      const listed = new Map<string, Awaited<ReturnType<typeof fabric.getArtifact>>>();
      for (let after: string | undefined; ; ) {
        const page = await fabric.listArtifacts({
          limit: 1000,
          ...(after ? { after: after as `af_${string}` } : {}),
        });
        for (const a of page.artifacts) listed.set(a.name, a);
        if (page.next === null) break;
        after = page.next;
      }
      // Whatever is there is whole: its bytes, digest, size and inputs are what was published.
      for (const [m, artifact] of listed) {
        const b = begun.get(m);
        expect(b, `${m} was begun`).toBeDefined();
        expect(refused.has(m), `${m} was refused, yet is there`).toBe(false);
        expect(removalsAcked.has(m), `${m}'s removal was acknowledged, yet it is there`).toBe(false);
        const expected = sha256(contentOf(b!.seed, b!.size));
        expect(artifact.digest).toBe(expected);
        expect(artifact.size).toBe(b!.size);
        expect(artifact.lineage.inputs).toEqual(b!.inputs);
        // A read of a whole artifact every round would be most of the test's time: this round's and a few.
        if (!acked.has(m) || m.startsWith(`r${round}w`) || Math.random() < 0.1) {
          const { bytes } = await fabric.readArtifact({ artifact: artifact.id });
          expect(sha256(bytes), `${m}'s bytes`).toBe(expected);
        }
        if (!acked.has(m)) {
          tally.committedUnacked++;
          acked.set(m, artifact.id);
        }
      }
      // What must be there: acknowledged, no TTL, no removal begun.
      for (const [m] of acked) {
        const b = begun.get(m) as Begun;
        if (!b.ttl && !removalsBegun.has(m)) expect(listed.has(m), `${m} was acknowledged`).toBe(true);
      }
      present = [...listed.values()]
        .filter((a) => !begun.get(a.name)?.ttl)
        .map((a) => ({ m: a.name, id: a.id }));

      tally.abandoned += (await fabric.sweepArtifacts({ graceMs: 0 })).abandoned;
      // The child is dead: no put is running, so every temporary file is a killed put's (no grace).
      const collected = await store.collectUnnamedBlobs(who.tenant, { graceMs: 0 });
      tally.leaked += collected.deleted;
      tally.temporary += collected.temporary;
      if (!s3) expect(temporaryFiles(join(dir, 'blobs')), 'temporary files left').toEqual([]);
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
      const listBlobs = async () => {
        const found: string[] = [];
        for await (const digest of store.blobs.list(who.tenant)) found.push(digest);
        return found.sort();
      };
      const named = [...chunks].sort();
      let blobs = await listBlobs();
      // A put the killed child had sent whole can still land after the GC (S3 finishes a request it has
      // received): collect again, a bounded number of times, before judging.
      for (let again = 0; again < 10 && JSON.stringify(blobs) !== JSON.stringify(named); again++) {
        await new Promise((r) => setTimeout(r, 200));
        tally.leaked += (await store.collectUnnamedBlobs(who.tenant)).deleted;
        blobs = await listBlobs();
      }
      expect(blobs, "the tenant's blobs are exactly the chunks artifacts name").toEqual(named);
      if (round % AUDIT_EVERY === AUDIT_EVERY - 1 || round === rounds - 1)
        expect((await verifyAuditChain(store.engine, who.tenant)).ok).toBe(true);
    } finally {
      await store.close();
    }
  }
  console.log(`[artifacts-crash${s3 ? ' s3' : ''}] ${JSON.stringify(tally)}`);
  expect(tally.kills).toBe(rounds);
  expect(tally.acks).toBeGreaterThanOrEqual(Math.max(awaitedAcks, 2));
}

describe('artifacts under kill -9', () => {
  it('loses no acknowledged artifact or removal and leaves nothing dangling, over 50 kills (blobs in a folder)', async () => {
    await crashRounds(50);
  });
});

describeS3('artifacts under kill -9, blobs on S3 (Ceph RGW)', () => {
  it('loses no acknowledged artifact or removal and leaves nothing dangling, over 15 kills', async () => {
    const bucket = await freshBucket();
    try {
      await crashRounds(15, bucket.options);
    } finally {
      await bucket.close();
    }
  });
});
