import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CairnError } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { AuditReport } from '../types.js';
import { expectCode } from './expect-code.js';

/**
 * The session-log conformance suite. Every way of reaching the log — the
 * embedded SQLite engine, the PostgreSQL engine, the remote client over HTTP —
 * runs these same cases; a target that cannot run them says why in `skip`.
 */
export interface LogConformanceTarget {
  /** A fabric acting in tenant A. */
  tenantA: Fabric;
  /** A fabric acting in a different tenant B. */
  tenantB: Fabric;
  close(): Promise<void>;
}

export interface LogConformanceOptions {
  /** When set, the suite is skipped and this reason is shown. */
  skip?: string;
}

export function describeLogConformance(
  name: string,
  open: () => Promise<LogConformanceTarget>,
  options: LogConformanceOptions = {},
): void {
  const title = options.skip ? `${name} (skipped: ${options.skip})` : name;
  describe.skipIf(options.skip !== undefined)(`log conformance: ${title}`, () => {
    let target: LogConformanceTarget;
    let a: Fabric;
    let b: Fabric;

    beforeAll(async () => {
      target = await open();
      a = target.tenantA;
      b = target.tenantB;
    });
    afterAll(async () => {
      await target?.close();
    });

    it('creates, gets and pages through sessions', async () => {
      const created = [];
      for (let i = 0; i < 3; i++) created.push(await a.createSession({ title: `s${i}`, meta: { i } }));
      const got = await a.getSession({ session: created[1]!.id });
      expect(got).toEqual(created[1]);
      expect(got.meta).toEqual({ i: 1 });
      const ids: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await a.listSessions({ limit: 2, after });
        ids.push(...page.sessions.map((s) => s.id));
        if (!page.next) break;
        after = page.next;
      }
      for (const s of created) expect(ids).toContain(s.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('appends events root to head with contiguous sequence numbers and parent links', async () => {
      const s = await a.createSession();
      const appended = [];
      for (let i = 0; i < 5; i++) {
        appended.push(
          await a.append({ session: s.id, kind: 'message', payload: { i, text: `m${i}` }, actor: 'user' }),
        );
      }
      const page = await a.readBranch({ session: s.id });
      expect(page.events.map((e) => e.id)).toEqual(appended.map((e) => e.id));
      expect(page.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(page.events[0]!.parent).toBe('');
      for (let i = 1; i < 5; i++) expect(page.events[i]!.parent).toBe(page.events[i - 1]!.id);
      expect(page.events[3]!.payload).toEqual({ i: 3, text: 'm3' });
      expect(page.events[0]!.actor).toBe('user');
      expect(page.head).toBe(appended[4]!.id);
      expect(page.next).toBeNull();
      expect(await a.getEvent({ event: appended[2]!.id })).toMatchObject({
        id: appended[2]!.id,
        seq: 3,
        kind: 'message',
      });
    });

    it('pages a branch by sequence number', async () => {
      const s = await a.createSession();
      for (let i = 0; i < 7; i++) await a.append({ session: s.id, kind: 'note', payload: i });
      const seen: number[] = [];
      let from: number | null = 1;
      while (from !== null) {
        const page = await a.readBranch({ session: s.id, from, limit: 3 });
        seen.push(...page.events.map((e) => e.payload as number));
        from = page.next;
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    });

    it('deduplicates a retried append by idempotency key and refuses a key reused for other content', async () => {
      const s = await a.createSession();
      const first = await a.append({
        session: s.id,
        kind: 'tool.intent',
        payload: { x: 1 },
        idempotencyKey: 'k-1',
      });
      const retry = await a.append({
        session: s.id,
        kind: 'tool.intent',
        payload: { x: 1 },
        idempotencyKey: 'k-1',
      });
      expect(first.deduplicated).toBe(false);
      expect(retry.deduplicated).toBe(true);
      expect(retry.id).toBe(first.id);
      await expectCode(
        a.append({ session: s.id, kind: 'tool.intent', payload: { x: 2 }, idempotencyKey: 'k-1' }),
        'CONFLICT',
      );
      expect((await a.readBranch({ session: s.id })).events).toHaveLength(1);
    });

    it('forks at an event without copying, and keeps the branches apart', async () => {
      const s = await a.createSession();
      const e1 = await a.append({ session: s.id, kind: 'message', payload: 1 });
      const e2 = await a.append({ session: s.id, kind: 'message', payload: 2 });
      const alt = await a.fork({ session: s.id, at: e1.id, name: 'alt' });
      expect(alt).toMatchObject({ name: 'alt', head: e1.id, headSeq: 1, forkedFrom: e1.id });
      const f1 = await a.append({ session: s.id, branch: 'alt', kind: 'message', payload: 'alt-2' });
      expect(f1.seq).toBe(2);
      expect(f1.parent).toBe(e1.id);
      await a.append({ session: s.id, kind: 'message', payload: 3 });
      expect((await a.readBranch({ session: s.id, branch: 'alt' })).events.map((e) => e.payload)).toEqual([
        1,
        'alt-2',
      ]);
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.payload)).toEqual([1, 2, 3]);
      const fromHead = await a.fork({ session: s.id });
      expect(fromHead.head).not.toBe(e2.id);
      expect(fromHead.headSeq).toBe(3);
      const nested = await a.fork({ session: s.id, at: f1.id, name: 'alt-child' });
      await a.append({ session: s.id, branch: 'alt-child', kind: 'message', payload: 'child-3' });
      expect(
        (await a.readBranch({ session: s.id, branch: 'alt-child' })).events.map((e) => e.payload),
      ).toEqual([1, 'alt-2', 'child-3']);
      const names = (await a.listBranches({ session: s.id })).map((br) => br.name);
      expect(names).toEqual(expect.arrayContaining(['main', 'alt', 'alt-child', fromHead.name]));
      expect(nested.forkedFrom).toBe(f1.id);
    });

    it('rewinds a head as a new operation; the old head stays reachable', async () => {
      const s = await a.createSession();
      const e1 = await a.append({ session: s.id, kind: 'message', payload: 1 });
      const e2 = await a.append({ session: s.id, kind: 'message', payload: 2 });
      const rewound = await a.rewind({ session: s.id, branch: 'main', to: e1.id });
      expect(rewound).toMatchObject({ head: e1.id, headSeq: 1 });
      const e2b = await a.append({ session: s.id, kind: 'message', payload: '2b' });
      expect(e2b).toMatchObject({ seq: 2, parent: e1.id });
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.payload)).toEqual([1, '2b']);
      expect((await a.getEvent({ event: e2.id })).payload).toBe(2);
      const history = await a.branchHistory({ session: s.id, branch: 'main' });
      expect(history.map((h) => h.op)).toEqual(['create', 'rewind']);
      expect(history[1]).toMatchObject({ headBefore: e2.id, headAfter: e1.id });
      await expectCode(a.rewind({ session: s.id, branch: 'main', to: e2.id }), 'INVALID_ARGUMENT');
    });

    it('moves a head to any event of the session: back, forward and onto another line', async () => {
      const s = await a.createSession();
      const e1 = await a.append({ session: s.id, kind: 'message', payload: 1 });
      const e2 = await a.append({ session: s.id, kind: 'message', payload: 2 });
      const e3 = await a.append({ session: s.id, kind: 'message', payload: 3 });
      await a.fork({ session: s.id, at: e1.id, name: 'side' });
      const side = await a.append({ session: s.id, branch: 'side', kind: 'message', payload: 'side-2' });
      // Back (like a rewind), then forward past the old head's line again: the redo a rewind refuses.
      expect(await a.moveHead({ session: s.id, branch: 'main', to: e1.id })).toMatchObject({ head: e1.id });
      await expectCode(a.rewind({ session: s.id, branch: 'main', to: e3.id }), 'INVALID_ARGUMENT');
      expect(await a.moveHead({ session: s.id, branch: 'main', to: e3.id })).toMatchObject({
        head: e3.id,
        headSeq: 3,
      });
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.payload)).toEqual([1, 2, 3]);
      // Onto another branch's line; appends then start a line of main's own.
      await a.moveHead({ session: s.id, branch: 'main', to: side.id, ifHead: e3.id });
      const next = await a.append({ session: s.id, kind: 'message', payload: 'main-3' });
      expect(next).toMatchObject({ seq: 3, parent: side.id });
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.payload)).toEqual([
        1,
        'side-2',
        'main-3',
      ]);
      expect((await a.readBranch({ session: s.id, branch: 'side' })).events.map((e) => e.payload)).toEqual([
        1,
        'side-2',
      ]);
      const history = await a.branchHistory({ session: s.id, branch: 'main' });
      expect(history.map((h) => h.op)).toEqual(['create', 'move', 'move', 'move']);
      expect(history[2]).toMatchObject({ headBefore: e1.id, headAfter: e3.id });
      // The old lines stay readable, by path to any event.
      const path = await a.readPath({ to: e2.id });
      expect(path).toMatchObject({ head: e2.id, headSeq: 2, next: null });
      expect(path.events.map((e) => e.payload)).toEqual([1, 2]);
      expect((await a.readPath({ to: e3.id, from: 2, limit: 1 })).events.map((e) => e.payload)).toEqual([2]);
      // A compare-and-swap that lost changes nothing; so does a move to the head.
      const entries = (await a.verifyAudit()).entries;
      await expectCode(a.moveHead({ session: s.id, branch: 'main', to: e1.id, ifHead: e3.id }), 'CONFLICT');
      await a.moveHead({ session: s.id, branch: 'main', to: next.id });
      expect((await a.verifyAudit()).entries).toBe(entries);
      expect((await a.listBranches({ session: s.id })).find((br) => br.name === 'main')?.head).toBe(next.id);
      expect((await a.verifyAudit()).ok).toBe(true);
    });

    it('reads a branch whose ancestry is many rewinds deep', async () => {
      const s = await a.createSession();
      const expected: number[] = [];
      let head = await a.append({ session: s.id, kind: 'note', payload: 0 });
      expected.push(0);
      for (let i = 1; i <= 40; i++) {
        const dropped = await a.append({ session: s.id, kind: 'note', payload: -i });
        await a.rewind({ session: s.id, branch: 'main', to: head.id });
        expect(dropped.seq).toBe(head.seq + 1);
        head = await a.append({ session: s.id, kind: 'note', payload: i });
        expected.push(i);
      }
      const page = await a.readBranch({ session: s.id, limit: 1000 });
      expect(page.events.map((e) => e.payload)).toEqual(expected);
      expect(page.events.map((e) => e.seq)).toEqual(expected.map((_, i) => i + 1));
      const tail = await a.readBranch({ session: s.id, from: 39, limit: 2 });
      expect(tail.events.map((e) => e.payload)).toEqual([38, 39]);
    });

    it('serialises concurrent appends to one branch: none lost, none interleaved', async () => {
      const s = await a.createSession();
      const writers = 16;
      const each = 20;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < each; i++) await a.append({ session: s.id, kind: 'note', payload: { w, i } });
        }),
      );
      const page = await a.readBranch({ session: s.id, limit: 10_000 });
      expect(page.events).toHaveLength(writers * each);
      expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: writers * each }, (_, i) => i + 1));
      for (let i = 1; i < page.events.length; i++)
        expect(page.events[i]!.parent).toBe(page.events[i - 1]!.id);
      for (let w = 0; w < writers; w++) {
        const mine = page.events
          .filter((e) => (e.payload as { w: number }).w === w)
          .map((e) => (e.payload as { i: number }).i);
        expect(mine).toEqual(Array.from({ length: each }, (_, i) => i));
      }
    });

    it('lets exactly one of several concurrent forks take a name, and names unnamed forks apart', async () => {
      const s = await a.createSession();
      const e = await a.append({ session: s.id, kind: 'message', payload: 0 });
      const named = await Promise.allSettled(
        Array.from({ length: 8 }, () => a.fork({ session: s.id, at: e.id, name: 'race' })),
      );
      expect(named.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of named) {
        if (r.status === 'rejected') expect((r.reason as CairnError).code).toBe('CONFLICT');
      }
      const unnamed = await Promise.all(Array.from({ length: 8 }, () => a.fork({ session: s.id, at: e.id })));
      expect(new Set(unnamed.map((b) => b.name)).size).toBe(8);
    });

    it('reports unknown ids as NOT_FOUND', async () => {
      const s = await a.createSession();
      await expectCode(a.getSession({ session: 'ss_00000000000000000000000000' }), 'NOT_FOUND');
      await expectCode(a.getEvent({ event: 'ev_00000000000000000000000000' }), 'NOT_FOUND');
      await expectCode(a.readBranch({ session: s.id, branch: 'nope' }), 'NOT_FOUND');
      await expectCode(a.append({ session: 'ss_00000000000000000000000000', kind: 'x' }), 'NOT_FOUND');
      await expectCode(a.append({ session: s.id, branch: 'nope', kind: 'x' }), 'NOT_FOUND');
      await expectCode(a.fork({ session: s.id, at: 'ev_00000000000000000000000000' }), 'NOT_FOUND');
    });

    it('rejects bad input with a typed error and changes nothing', async () => {
      const s = await a.createSession();
      const e1 = await a.append({ session: s.id, kind: 'message', payload: 1 });
      const other = await a.createSession();
      const otherEvent = await a.append({ session: other.id, kind: 'message', payload: 'x' });
      const before = await a.verifyAudit();
      await expectCode(a.append({ session: s.id, kind: 'Bad Kind!' }), 'INVALID_ARGUMENT');
      await expectCode(a.append({ session: 'not-an-id', kind: 'x' }), 'INVALID_ARGUMENT');
      await expectCode(
        a.append({ session: s.id, kind: 'x', payload: 'y'.repeat(1024 * 1024 + 10) }),
        'PAYLOAD_TOO_LARGE',
      );
      await expectCode(a.fork({ session: s.id, at: otherEvent.id }), 'INVALID_ARGUMENT');
      await expectCode(a.fork({ session: s.id, at: e1.id, name: 'main' }), 'CONFLICT');
      await expectCode(a.fork({ session: s.id, at: e1.id, name: '../etc' }), 'INVALID_ARGUMENT');
      await expectCode(a.rewind({ session: s.id, branch: 'main', to: otherEvent.id }), 'INVALID_ARGUMENT');
      await expectCode(a.moveHead({ session: s.id, branch: 'main', to: otherEvent.id }), 'INVALID_ARGUMENT');
      await expectCode(a.moveHead({ session: s.id, branch: 'nope', to: e1.id }), 'NOT_FOUND');
      await expectCode(a.readPath({ to: 'ev_00000000000000000000000000' }), 'NOT_FOUND');
      await expectCode(a.readPath({ to: e1.id, limit: 0 }), 'INVALID_ARGUMENT');
      await expectCode(a.readBranch({ session: s.id, limit: 0 }), 'INVALID_ARGUMENT');
      // Text the database would rewrite (a lone surrogate) or refuse (NUL), and values JSON cannot hold.
      await expectCode(a.append({ session: s.id, kind: 'x', actor: 'a\ud800' }), 'INVALID_ARGUMENT');
      await expectCode(a.append({ session: s.id, kind: 'x', idempotencyKey: 'k\u0000' }), 'INVALID_ARGUMENT');
      await expectCode(a.createSession({ title: 'nul\u0000title' }), 'INVALID_ARGUMENT');
      await expectCode(a.createSession({ meta: { n: Number.POSITIVE_INFINITY } }), 'INVALID_ARGUMENT');
      await expectCode(a.createSession({ meta: { n: 2n } }), 'INVALID_ARGUMENT');
      await expectCode(
        a.append({ session: s.id, kind: 'x', payload: { n: Number.NaN } }),
        'INVALID_ARGUMENT',
      );
      await expectCode(a.append({ session: s.id, kind: 'x', payload: { n: 1n } }), 'INVALID_ARGUMENT');
      await expectCode(a.fork({ session: s.id, at: e1.id, from: 'main' }), 'INVALID_ARGUMENT');
      await expectCode(
        a.createToken({ principal: (await a.whoami()).principal, role: 'admin' }),
        'INVALID_ARGUMENT',
      );
      const after = await a.verifyAudit();
      expect(after.entries).toBe(before.entries);
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.id)).toEqual([e1.id]);
      expect((await a.listBranches({ session: s.id })).map((br) => br.name)).toEqual(['main']);
    });

    it("never shows one tenant another tenant's records", async () => {
      const s = await a.createSession({ title: 'secret plan' });
      const e1 = await a.append({ session: s.id, kind: 'message', payload: 'private' });
      const mine = await b.createSession();
      await expectCode(b.getSession({ session: s.id }), 'NOT_FOUND');
      await expectCode(b.getEvent({ event: e1.id }), 'NOT_FOUND');
      await expectCode(b.readBranch({ session: s.id }), 'NOT_FOUND');
      await expectCode(b.listBranches({ session: s.id }), 'NOT_FOUND');
      await expectCode(b.branchHistory({ session: s.id, branch: 'main' }), 'NOT_FOUND');
      await expectCode(b.append({ session: s.id, kind: 'message', payload: 'intrusion' }), 'NOT_FOUND');
      await expectCode(b.fork({ session: s.id, at: e1.id }), 'NOT_FOUND');
      await expectCode(b.fork({ session: mine.id, at: e1.id }), 'NOT_FOUND');
      await expectCode(b.rewind({ session: s.id, branch: 'main', to: e1.id }), 'NOT_FOUND');
      await expectCode(b.moveHead({ session: s.id, branch: 'main', to: e1.id }), 'NOT_FOUND');
      await expectCode(b.readPath({ to: e1.id }), 'NOT_FOUND');
      const listed = await b.listSessions({ limit: 1000 });
      expect(listed.sessions.map((x) => x.id)).not.toContain(s.id);
      expect((await a.readBranch({ session: s.id })).events.map((e) => e.payload)).toEqual(['private']);
      expect((await a.whoami()).tenant).not.toBe((await b.whoami()).tenant);
    });

    it('revokes a token once and for good, and only within the tenant', async () => {
      const minted = await a.createToken({ kind: 'agent', name: 'short-lived', label: 'revoke me' });
      const revoked = await a.revokeToken({ token: minted.id });
      expect(revoked).toMatchObject({ id: minted.id, principal: minted.principal });
      expect(await a.revokeToken({ token: minted.id })).toEqual(revoked);
      await expectCode(b.revokeToken({ token: minted.id }), 'NOT_FOUND');
      await expectCode(a.revokeToken({ token: 'tk_00000000000000000000000000' }), 'NOT_FOUND');
      await expectCode(a.revokeToken({ token: 'not-a-token-id' }), 'INVALID_ARGUMENT');
    });

    it('keeps a verifiable audit chain of every mutation', async () => {
      const before: AuditReport = await a.verifyAudit();
      const s = await a.createSession();
      const e = await a.append({ session: s.id, kind: 'message', payload: 1 });
      await a.fork({ session: s.id, at: e.id, name: 'audited' });
      await a.rewind({ session: s.id, branch: 'audited', to: e.id });
      const after = await a.verifyAudit();
      expect(after.ok).toBe(true);
      expect(after.firstBreak).toBeNull();
      // session.create + branch.create, event.append, branch.fork; a rewind to the head is a no-op
      expect(after.entries - before.entries).toBe(4);
      expect(after.events - before.events).toBe(1);
    });
  });
}
