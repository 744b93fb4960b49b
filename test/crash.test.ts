/**
 * Durability rule 4 (DESIGN.md §3): an acknowledged write survives kill -9.
 *
 * Child processes (test/fixtures/*.mjs, which import the built dist/) append
 * until they are SIGKILLed at a random moment; the test then reopens the store
 * and checks that everything acknowledged is there and the store is sound.
 * Run `npx tsc -p tsconfig.json` first.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CairnError } from '../src/errors.js';
import type { Fabric } from '../src/fabric.js';
import { connect, openFabric, Store } from '../src/index.js';
import type { AppendResult, CairnEvent } from '../src/types.js';
import {
  type ChildExit,
  inParallel,
  randomInt,
  runToKill,
  STALL_MS,
  scratchRoot,
  spawnChild,
} from './support/kill.js';

const WRITER = fileURLToPath(new URL('./fixtures/crash-writer.mjs', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/crash-server.mjs', import.meta.url));

/**
 * Embedded writer: STORES stores killed ROUNDS times each, PARALLEL stores at
 * a time (a store's rounds run in sequence). Small stores keep each round's
 * full check cheap.
 */
const STORES = 8;
const ROUNDS = 13;
const PARALLEL = 4;
const WRITERS = 4;
/** Each restarted writer first replays (at least) this many of its last appends. */
const REPLAY = 8;
/**
 * Server: SERVER_STORES stores, SERVER_ROUNDS server kills each, SERVER_PARALLEL
 * stores at a time, HTTP_APPENDERS clients per round.
 */
const SERVER_STORES = 8;
const SERVER_ROUNDS = 13;
const SERVER_PARALLEL = 4;
const HTTP_APPENDERS = 4;
const root = scratchRoot('cairn-crash-');

function integrityCheck(dir: string): unknown {
  const db = new Database(join(dir, 'cairn.db'), { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
}

/** Every event root → head of main, paging with `from`/`next`. */
async function readAll(
  fabric: Fabric,
  session: string,
): Promise<{ events: CairnEvent[]; head: string; headSeq: number }> {
  const events: CairnEvent[] = [];
  let from: number | null = 1;
  let head = '';
  let headSeq = 0;
  while (from !== null) {
    const page = await fabric.readBranch({ session, branch: 'main', from, limit: 500 });
    if (from === 1) {
      head = page.head;
      headSeq = page.headSeq;
    } else {
      // Nothing writes while we read: the head must not move between pages.
      expect(page.head).toBe(head);
    }
    events.push(...page.events);
    expect(page.next === null || page.next > from).toBe(true);
    from = page.next;
  }
  return { events, head, headSeq };
}

/** The checks on main shared by both tests; returns the events by idempotency key. */
function checkChain(
  events: CairnEvent[],
  head: string,
  headSeq: number,
  where: string,
): Map<string, CairnEvent> {
  expect(events.length, `${where}: events read vs headSeq`).toBe(headSeq);
  expect(events.at(-1)?.id ?? '', `${where}: last event is the head`).toBe(head);
  const ids = new Set<string>();
  const byKey = new Map<string, CairnEvent>();
  events.forEach((event, k) => {
    if (event.seq !== k + 1)
      expect.fail(`${where}: event #${k + 1} has seq ${event.seq}: seqs are not contiguous`);
    const parent = k === 0 ? '' : events[k - 1]!.id;
    if (event.parent !== parent)
      expect.fail(`${where}: event seq ${event.seq} has parent ${event.parent}, not ${parent}`);
    if (event.branch !== 'main') expect.fail(`${where}: event ${event.id} is on branch ${event.branch}`);
    if (ids.has(event.id)) expect.fail(`${where}: event ${event.id} appears twice`);
    ids.add(event.id);
    const key = event.idempotencyKey;
    if (key === null) expect.fail(`${where}: event ${event.id} lost its idempotency key`);
    if (byKey.has(key))
      expect.fail(`${where}: idempotency key ${key} appears twice (${byKey.get(key)!.id}, ${event.id})`);
    byKey.set(key, event);
  });
  return byKey;
}

// ---------------------------------------------------------------------------
// 1. Embedded writer process, kill -9 at random points.

interface Ack {
  id: string;
  w: number;
  i: number;
}

interface WriterRound {
  acks: Ack[];
  delayMs: number;
}

const ACK_LINE = /^ack (ev_[0-9a-z]{26}) (\d+) (\d+)$/;

interface SpareWriter {
  /** Lets the writer open the store and append from `first`; kills it 30–250 ms after its first ack. */
  run(first: number): Promise<WriterRound>;
  /** Ends a writer that was never run. */
  discard(): Promise<void>;
}

/**
 * Spawns a writer that loads the library and then waits on stdin, so the next
 * round's process can start up while the test still checks the last round.
 */
function spareWriter(dir: string, session: string): SpareWriter {
  const child = spawnChild('writer', WRITER, [dir, session, String(WRITERS), 'stdin']);
  return {
    discard: () => child.discard(),
    async run(first) {
      const delayMs = randomInt(30, 250);
      await runToKill(child, `${first}\n`, {
        after: () => true, // the first ack
        delayMs,
        stallMs: STALL_MS,
        stall: `no ack within ${STALL_MS} ms`,
      });
      const acks: Ack[] = [];
      for (const line of child.lines) {
        const m = ACK_LINE.exec(line);
        if (!m) throw new Error(`writer printed a malformed line: ${JSON.stringify(line)}`);
        acks.push({ id: m[1]!, w: Number(m[2]), i: Number(m[3]) });
      }
      return { acks, delayMs };
    },
  };
}

async function verifyWriterStore(
  dir: string,
  session: string,
  round: WriterRound,
  known: Map<string, string>,
  where: string,
): Promise<{ next: number; events: number }> {
  // Opening runs migrations and SQLite's quick_check: it must not throw.
  const fabric = await openFabric({ dir });
  let next = 0;
  let count = 0;
  try {
    const { events, head, headSeq } = await readAll(fabric, session);
    const byKey = checkChain(events, head, headSeq, where);
    count = events.length;

    // Every event is one of the writer's, and a writer's append i starts only
    // after i-1 resolved: per writer the stored i's are exactly 0..max.
    const perWriter = new Map<number, { count: number; max: number }>();
    for (const event of events) {
      const { w, i } = event.payload as { w: number; i: number };
      if (event.idempotencyKey !== `w${w}-${i}`) {
        expect.fail(
          `${where}: event ${event.id} has key ${event.idempotencyKey} but payload ${JSON.stringify(event.payload)}`,
        );
      }
      const stat = perWriter.get(w) ?? { count: 0, max: -1 };
      stat.count++;
      stat.max = Math.max(stat.max, i);
      perWriter.set(w, stat);
    }
    for (const [w, { count, max }] of perWriter) {
      expect(count, `${where}: writer ${w} has appends 0..${max} but only ${count} stored (a gap)`).toBe(
        max + 1,
      );
    }
    // The next writer replays the last REPLAY appends of the slowest writer (more of the others).
    next = Number.POSITIVE_INFINITY;
    for (let w = 0; w < WRITERS; w++) next = Math.min(next, (perWriter.get(w)?.max ?? -1) + 1);
    next = Math.max(0, next - REPLAY);

    // Every acknowledged append is stored under its id — including replays,
    // which must be answered with the event of the first append.
    for (const ack of round.acks) {
      const key = `w${ack.w}-${ack.i}`;
      const stored = byKey.get(key);
      if (!stored) expect.fail(`${where}: acknowledged append ${key} (${ack.id}) is missing from main`);
      if (stored.id !== ack.id)
        expect.fail(`${where}: append ${key} was acknowledged as ${ack.id} but main holds ${stored.id}`);
      const event = await fabric.getEvent({ event: ack.id });
      if (event.idempotencyKey !== key || (event.payload as { i: number }).i !== ack.i) {
        expect.fail(`${where}: getEvent(${ack.id}) returned ${JSON.stringify(event)} for ack ${key}`);
      }
      const earlier = known.get(key);
      if (earlier !== undefined && earlier !== ack.id) {
        expect.fail(`${where}: append ${key} was acknowledged as ${earlier} earlier and as ${ack.id} now`);
      }
      known.set(key, ack.id);
    }
    // Nothing acknowledged in an earlier round went away either.
    for (const [key, id] of known) {
      if (byKey.get(key)?.id !== id)
        expect.fail(`${where}: ${key} (${id}) acknowledged in an earlier round is gone`);
    }

    const audit = await fabric.verifyAudit();
    expect(audit.firstBreak, `${where}: audit chain`).toBeNull();
    expect(audit.ok).toBe(true);
    expect(audit.events, `${where}: audited events`).toBe(events.length);
  } finally {
    await fabric.close();
  }
  expect(integrityCheck(dir), `${where}: PRAGMA integrity_check`).toBe('ok');
  return { next, events: count };
}

describe('kill -9 of an embedded writer', () => {
  it(`keeps every acknowledged append (${STORES} stores × ${ROUNDS} SIGKILLs, ${WRITERS} writers)`, async () => {
    let kills = 0;
    let totalAcks = 0;
    let stored = 0;
    await inParallel(STORES, PARALLEL, async (n, stopped) => {
      const dir = join(root(), `writer-${n}`);
      const setup = await openFabric({ dir });
      const session = (await setup.createSession({ title: `crash writer ${n}` })).id;
      await setup.close();
      const known = new Map<string, string>();
      let first = 0;
      let next = spareWriter(dir, session);
      try {
        for (let r = 0; r < ROUNDS && !stopped(); r++) {
          const current = next;
          const round = await current.run(first);
          kills++;
          // The next round's process starts up while this round is checked.
          next = spareWriter(dir, session);
          const where = `store ${n} round ${r} (killed ${round.delayMs} ms after the first ack, ${round.acks.length} acks)`;
          expect(round.acks.length, `${where}: acks`).toBeGreaterThan(0);
          totalAcks += round.acks.length;
          const checked = await verifyWriterStore(dir, session, round, known, where);
          first = checked.next;
          stored = Math.max(stored, checked.events);
        }
      } finally {
        await next.discard();
      }
    });

    expect(kills).toBe(STORES * ROUNDS);
    expect(kills).toBeGreaterThanOrEqual(100);
    console.log(`embedded: ${kills} SIGKILLs, ${totalAcks} acks checked, up to ${stored} events per store`);
  });
});

// ---------------------------------------------------------------------------
// 2. Server process, kill -9 while HTTP clients append.

interface ServerExit extends ChildExit {
  stderr: string;
}

interface RunningServer {
  url: string;
  token: string;
  kill(): void;
  closed: Promise<ServerExit>;
}

interface SpareServer {
  /** Lets the server open the store; resolves once it listens. */
  start(): Promise<RunningServer>;
  /** Ends a server that was never started. */
  discard(): Promise<void>;
}

/**
 * Spawns a server that loads the library and then waits on stdin without
 * touching the store, so the next round's process can start up while the
 * current round's server runs and the test checks what it left.
 */
function spareServer(dir: string): SpareServer {
  const child = spawnChild('server', SERVER, [dir, 'stdin']);
  const closed = child.closed.then((exit): ServerExit => ({ ...exit, stderr: child.err }));
  closed.catch(() => {});
  return {
    discard: () => child.discard(),
    async start() {
      let timer: NodeJS.Timeout | undefined;
      try {
        let onLine: (line: string) => void = () => {};
        const line = new Promise<string>((done) => {
          onLine = done;
        });
        child.go('go\n', onLine);
        const first = await Promise.race([
          line,
          closed.then(({ code, signal }): never => {
            throw new Error(
              `server exited before listening (code ${code}, signal ${signal}); stderr: ${child.err}`,
            );
          }),
          new Promise<never>((_, fail) => {
            timer = setTimeout(
              () => fail(new Error(`server did not listen within ${STALL_MS} ms; stderr: ${child.err}`)),
              STALL_MS,
            );
          }),
        ]);
        let parsed: { url?: unknown; token?: unknown } = {};
        try {
          parsed = JSON.parse(first) as typeof parsed;
        } catch {}
        if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string')
          throw new Error(`server printed ${JSON.stringify(first)}, not {"url","token"}`);
        return { url: parsed.url, token: parsed.token, kill: child.kill, closed };
      } catch (error) {
        child.kill();
        await closed.catch(() => {});
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

interface ServerRound {
  acked: AppendResult[];
  /** The append each appender had in flight at the kill (rejected, so not acknowledged), and how it failed. */
  inFlight: { key: string; code: string }[];
  delayMs: number;
  failures: unknown[];
}

/** What a request cut off by the kill may answer: it never reached the server, or it may have committed. */
function cutOff(error: unknown): error is CairnError {
  return error instanceof CairnError && (error.code === 'UNAVAILABLE' || error.code === 'IN_DOUBT');
}

/** Starts the server, appends over HTTP, kills the server 20–200 ms after the first ack. */
async function serverRound(spare: SpareServer, session: string, tag: string): Promise<ServerRound> {
  const server = await spare.start();
  const remote = connect({ url: server.url, token: server.token, timeoutMs: STALL_MS });
  const acked: AppendResult[] = [];
  const inFlight: { key: string; code: string }[] = [];
  const failures: unknown[] = [];
  let killedAt = 0;
  let delayMs = -1;
  let onFirstAck: () => void = () => {};
  const firstAck = new Promise<void>((done) => {
    onFirstAck = done;
  });
  // Each appender appends until a request fails, so it ends with exactly one append in flight at the kill.
  const appender = async (a: number) => {
    for (let i = 0; ; i++) {
      const idempotencyKey = `${tag}-a${a}-${i}`;
      try {
        acked.push(
          await remote.append({ session, kind: 'crash.http', payload: { tag, a, i }, idempotencyKey }),
        );
        onFirstAck();
      } catch (error) {
        // After the kill a failure is expected; before it, it is a bug.
        if (killedAt !== 0 && cutOff(error)) inFlight.push({ key: idempotencyKey, code: error.code });
        else failures.push(error);
        return;
      }
    }
  };
  try {
    const appenders = Promise.all(Array.from({ length: HTTP_APPENDERS }, (_, a) => appender(a)));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      firstAck.then(() => false),
      appenders.then(() => false),
      new Promise<boolean>((done) => {
        timer = setTimeout(() => done(true), STALL_MS);
      }),
    ]);
    clearTimeout(timer);
    if (acked.length > 0 && !timedOut) {
      delayMs = randomInt(20, 200);
      await new Promise((done) => setTimeout(done, delayMs));
    }
    killedAt = Date.now();
    server.kill();
    const exit = await server.closed;
    await appenders;
    expect(exit.signal, `server ${tag} exit (stderr: ${exit.stderr})`).toBe('SIGKILL');
    expect(exit.stderr, `server ${tag} stderr`).toBe('');
  } finally {
    server.kill();
    await remote.close();
  }
  return { acked, inFlight, delayMs, failures };
}

describe('kill -9 of a server', () => {
  it(`keeps every append it acknowledged over HTTP (${SERVER_STORES} stores × ${SERVER_ROUNDS} SIGKILLs, ${HTTP_APPENDERS} HTTP appenders)`, async () => {
    let kills = 0;
    let totalAcks = 0;
    let ackLookups = 0;
    let cut = 0;
    let cutButCommitted = 0;
    const cutCodes = new Map<string, number>();
    await inParallel(SERVER_STORES, SERVER_PARALLEL, async (n, stopped) => {
      const dir = join(root(), `server-${n}`);
      const setup = await openFabric({ dir });
      const session = (await setup.createSession({ title: `crash server ${n}` })).id;
      await setup.close();
      const known: AppendResult[] = [];
      /** Every key ever sent: acknowledged or cut off by a kill. */
      const sent = new Set<string>();
      let next = spareServer(dir);
      try {
        for (let r = 0; r < SERVER_ROUNDS && !stopped(); r++) {
          const tag = `s${n}r${r}`;
          const current = next;
          // The next round's server loads the library while this round runs and is checked.
          next = spareServer(dir);
          const round = await serverRound(current, session, tag);
          kills++;
          const where = `server store ${n} round ${r} (killed ${round.delayMs} ms after the first ack, ${round.acked.length} acks)`;
          expect(
            round.failures,
            `${where}: appends that failed before the kill, or not as UNAVAILABLE/IN_DOUBT`,
          ).toEqual([]);
          expect(round.acked.length, `${where}: acks`).toBeGreaterThan(0);
          expect(round.inFlight.length, `${where}: appends cut off by the kill`).toBe(HTTP_APPENDERS);
          totalAcks += round.acked.length;
          known.push(...round.acked);
          for (const ack of round.acked) sent.add(ack.idempotencyKey!);
          for (const { key, code } of round.inFlight) {
            sent.add(key);
            cutCodes.set(code, (cutCodes.get(code) ?? 0) + 1);
          }

          const store = await Store.openDir(dir);
          try {
            const fabric = store.fabric(await store.localIdentity());
            const { events, head, headSeq } = await readAll(fabric, session);
            const byKey = checkChain(events, head, headSeq, where);
            // This round's acks and every earlier round's.
            for (const ack of known) {
              const stored = byKey.get(ack.idempotencyKey!);
              if (stored?.id !== ack.id) {
                expect.fail(
                  `${where}: acknowledged ${ack.idempotencyKey} (${ack.id}, seq ${ack.seq}) is missing from main`,
                );
              }
              const event = await fabric.getEvent({ event: ack.id });
              expect(event.seq).toBe(ack.seq);
              expect(event.payload).toEqual(ack.payload);
            }
            ackLookups += known.length;
            // Nothing on main that no client sent.
            for (const key of byKey.keys()) {
              if (!sent.has(key)) expect.fail(`${where}: main holds ${key}, which no client sent`);
            }
            // Appends cut off by the kill may or may not have committed; either way the chain above is whole.
            cut += round.inFlight.length;
            cutButCommitted += round.inFlight.filter(({ key }) => byKey.has(key)).length;
            const audit = await fabric.verifyAudit();
            expect(audit.firstBreak, `${where}: audit chain`).toBeNull();
            expect(audit.ok).toBe(true);
            expect(audit.events).toBe(events.length);
          } finally {
            await store.close();
          }
          expect(integrityCheck(dir), `${where}: PRAGMA integrity_check`).toBe('ok');
        }
      } finally {
        await next.discard();
      }
    });

    expect(kills).toBe(SERVER_STORES * SERVER_ROUNDS);
    expect(kills).toBeGreaterThanOrEqual(100);
    const codes = [...cutCodes].map(([code, count]) => `${count} ${code}`).join(', ');
    console.log(
      `server: ${kills} SIGKILLs, ${totalAcks} acks checked (${ackLookups} look-ups over all rounds); ${cut} appends cut off by a kill (${codes}), ${cutButCommitted} of them committed`,
    );
  });
});
