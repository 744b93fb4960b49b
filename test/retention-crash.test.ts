/**
 * The branch sweep under kill -9 (retention): abandoned branches past their
 * time are swept while writers run, and a kill inside or near a sweep loses
 * nothing live and leaves nothing dangling.
 *
 * A child process (test/fixtures/retention-child.mjs, which imports the built
 * dist/) appends to main and to live branches in one loop while another loop
 * forks branches from a unit checkpoint of main, gives each a few events and
 * a memory record, abandons some with ttl 0 (and, every other pass, one that
 * a live fork of its own starts from), reclaims their workspaces and sweeps.
 * The test SIGKILLs it a few milliseconds after its 1st–3rd `sweep-start`,
 * then opens the store and checks that it verifies (audit chain, tombstones),
 * that no row names a row that is gone, that every acknowledged event and
 * every live or held branch is there, and that what a sweep reported swept is
 * gone. At the end one sweep runs to completion here: every abandoned branch
 * (its events and memory with it) is gone, and what is left is sound.
 * Bounded by its count of kills, not by time. Run `npx tsc -p tsconfig.json` first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { readAll } from '../src/log/pages.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { Units } from '../src/unit/unit.js';
import { danglingReferences } from './support/dangling.js';
import { type Child, randomInt, runToKill, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';

const CHILD = fileURLToPath(new URL('./fixtures/retention-child.mjs', import.meta.url));
const KILLS = 50;
const HOST = 'retention-crash';

const root = scratchRoot('cairn-retention-crash-');

/** What the children reported, over every round. */
interface Seen {
  /** Events that must stay, with their branch. */
  acked: Map<string, string>;
  /** Events on branches that were to be abandoned, with their branch. */
  doomed: Map<string, string>;
  /** Memory records, with their branch. */
  memory: Map<string, string>;
  live: Set<string>;
  held: Set<string>;
  abandoned: Set<string>;
  /** Branches a sweep reported swept. */
  swept: Set<string>;
}

/** Reads a child's lines into `seen`; returns this round's acked events and live branches. */
function record(lines: readonly string[], seen: Seen): { acked: Map<string, string>; live: string[] } {
  const round = { acked: new Map<string, string>(), live: [] as string[] };
  for (const line of lines) {
    const [what = '', a = '', b = ''] = line.split(' ');
    if (what === 'ack') {
      seen.acked.set(a, b);
      round.acked.set(a, b);
    } else if (what === 'doomed') seen.doomed.set(a, b);
    else if (what === 'memory') seen.memory.set(a, b);
    else if (what === 'live') {
      seen.live.add(a);
      round.live.push(a);
    } else if (what === 'held') seen.held.add(a);
    else if (what === 'abandoned') seen.abandoned.add(a);
    else if (what === 'sweep-end')
      for (const name of JSON.parse(line.slice(10)) as string[]) seen.swept.add(name);
  }
  return round;
}

/** The held branch a live fork (`…-heldfork`) starts from, if it is one. */
function heldOf(branch: string): string | undefined {
  return branch.endsWith('-heldfork') ? branch.slice(0, -'fork'.length) : undefined;
}

/** A branch's path holds its own acknowledged events and, for a fork of a held branch, the held one's. */
async function checkPath(fabric: EmbeddedFabric, session: string, branch: string, seen: Seen) {
  const { events } = await readAll((from) => fabric.readBranch({ session, branch, from, limit: 1000 }));
  const onPath = new Set<string>(events.map((e) => e.id));
  const held = heldOf(branch);
  for (const [id, on] of seen.acked)
    if (on === branch || on === held) expect(onPath.has(id), `${id} (${on}) on ${branch}'s path`).toBe(true);
}

/** The checks after every kill, and at the end: the store is sound and nothing that must stay went. */
async function checkStore(store: Store, session: string, seen: Seen, round?: ReturnType<typeof record>) {
  const who = await store.localIdentity();
  const fabric = store.fabric(who);
  const [report] = await store.verifyTenants([who.tenant]);
  expect(report, JSON.stringify(report)).toMatchObject({ ok: true });
  expect(await danglingReferences(store.engine, who.tenant)).toEqual([]);
  // Every acknowledged event of every round: one query for all, the public read for this round's.
  const ids = new Set(
    (
      await store.engine.read(who.tenant, (tx) =>
        tx.all<{ id: string }>('SELECT id FROM events WHERE tenant = ?', [who.tenant]),
      )
    ).map((r) => r.id),
  );
  const lost = [...seen.acked].filter(([id]) => !ids.has(id));
  expect(lost, 'acknowledged events lost').toEqual([]);
  for (const [id, branch] of round?.acked ?? [])
    expect((await fabric.getEvent({ event: id })).branch).toBe(branch);
  const branches = new Set((await fabric.listBranches({ session })).map((b) => b.name));
  for (const name of [...seen.live, ...seen.held]) expect(branches.has(name), `${name} is there`).toBe(true);
  for (const name of seen.swept) {
    expect(branches.has(name), `${name} was swept`).toBe(false);
    expect(seen.live.has(name) || seen.held.has(name), `${name} must stay, yet it was swept`).toBe(false);
  }
  for (const name of round?.live ?? []) await checkPath(fabric, session, name, seen);
  return { fabric, branches, ids };
}

describe('branch sweep under kill -9', () => {
  it(`abandoned branches past TTL are swept while writers run (kill -9 during sweeps, >= ${KILLS} per CI run): nothing live lost, nothing dangling`, async () => {
    const storeDir = join(root(), 'store');
    const work = join(root(), 'work');
    const mainDir = join(work, 'main');
    mkdirSync(mainDir, { recursive: true });
    writeFileSync(join(mainDir, 'README'), 'the main workspace\n');

    // The session, its main workspace and the checkpoint every fork starts from.
    let store = await Store.openDir(storeDir);
    let who = await store.localIdentity();
    let desk = store.desk(who, { host: HOST });
    const ws = (await desk.attach({ dir: mainDir })).workspace;
    const base = await new Units(store.fabric(who), desk).checkpoint({ workspace: ws.id, label: 'base' });
    const session = ws.session;
    writeFileSync(
      join(work, 'setup.json'),
      JSON.stringify({ host: HOST, session, workspace: ws.id, checkpoint: base.id }),
    );
    await desk.close();
    await store.close();

    const seen: Seen = {
      acked: new Map(),
      doomed: new Map(),
      memory: new Map(),
      live: new Set(),
      held: new Set(),
      abandoned: new Set(),
      swept: new Set(),
    };
    let kills = 0;
    let inside = 0;
    const spawn = (n: number) => spawnChild(`retention child ${n}`, CHILD, [storeDir, work, String(n)]);
    // The next round's child loads the library while the test checks what the last one left.
    let next: Child | undefined = spawn(0);
    try {
      for (let n = 0; n < KILLS; n++) {
        const child = next as Child;
        next = n + 1 < KILLS ? spawn(n + 1) : undefined;
        const nth = randomInt(1, 3);
        let starts = 0;
        await runToKill(child, 'go\n', {
          after: (line) => line === 'sweep-start' && ++starts === nth,
          delayMs: randomInt(0, 40),
          stallMs: STALL_MS,
          stall: `did not reach sweep ${nth}`,
        });
        kills++;
        const last = child.lines.filter((l) => l.startsWith('sweep-')).at(-1) ?? '';
        if (last === 'sweep-start') inside++;
        const round = record(child.lines, seen);
        store = await Store.openDir(storeDir);
        try {
          await checkStore(store, session, seen, round);
        } finally {
          await store.close();
        }
      }
    } finally {
      await next?.discard();
    }

    // The children's own sweeps took branches while their writers ran, not only the last one here.
    const sweptByChildren = seen.swept.size;
    expect(sweptByChildren).toBeGreaterThan(0);

    // One sweep to completion here: every abandoned branch goes, with its events and memory.
    store = await Store.openDir(storeDir);
    who = await store.localIdentity();
    desk = store.desk(who, { host: HOST });
    try {
      const fabric = store.fabric(who);
      await new Units(fabric, desk).reclaim();
      const sweep = await fabric.sweepBranches({ dryRun: false });
      for (const s of sweep.swept) for (const name of s.branches) seen.swept.add(name);
      // What it keeps, it keeps for a reason the test knows: a live fork starts from it.
      for (const k of sweep.kept)
        expect(seen.held.has(k.branch), `${k.branch} kept (${k.reason})`).toBe(true);
      const { branches, ids } = await checkStore(store, session, seen);
      for (const name of seen.abandoned) expect(branches.has(name), `${name} is gone`).toBe(false);
      const stayed = [...seen.doomed].filter(([id, branch]) => seen.abandoned.has(branch) && ids.has(id));
      expect(stayed, 'events of swept branches').toEqual([]);
      for (const [id, branch] of seen.memory) {
        if (seen.abandoned.has(branch)) await expectCode(fabric.getMemory({ record: id }), 'NOT_FOUND');
        else if (seen.live.has(branch) || seen.held.has(branch))
          expect((await fabric.getMemory({ record: id })).id).toBe(id);
      }
      for (const name of seen.live) await checkPath(fabric, session, name, seen);
      await checkPath(fabric, session, 'main', seen);
      expect((await fabric.sweepBranches({ dryRun: true })).swept).toEqual([]);
      console.log(
        `retention-crash: ${kills} kills, ${inside} inside a sweep; ${seen.swept.size} branches swept (${sweptByChildren} by the children), ${seen.live.size} live, ${seen.held.size} held, ${seen.acked.size} acks`,
      );
    } finally {
      await desk.close();
      await store.close();
    }
    expect(seen.abandoned.size).toBeGreaterThan(0);
    expect(kills).toBe(KILLS);
    expect(inside).toBeGreaterThanOrEqual(10);
  });
});
