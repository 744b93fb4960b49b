/**
 * PII redaction before storage (issue 22): off by default; a person who is
 * an admin turns it on for the tenant; then e-mail addresses, phone numbers,
 * Luhn-valid card numbers, valid IBANs and the national ids listed are
 * replaced by typed placeholders in event payloads and memory before they
 * are stored — no byte of them reaches the store folder — and the audit
 * entry counts what was replaced. Look-alikes that fail their checks stay.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import type { Identity } from '../src/index.js';
import { type PiiCounts, type PiiRules, redactText, redactValue } from '../src/redaction/pii.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { describePostgres } from './support/postgres.js';
import { filesContaining } from './support/scan.js';
import { backendStore, tempDir } from './support/stores.js';

const ALL: PiiRules = {
  kinds: ['email', 'phone', 'card', 'iban'],
  nationalIds: ['us-ssn', 'uk-nino', 'es-dni'],
  phoneRegion: 'US',
};

function redact(text: string, rules: PiiRules = ALL): { text: string; counts: PiiCounts } {
  const counts: PiiCounts = {};
  return { text: redactText(text, rules, counts), counts };
}

describe('finding personal data', () => {
  it('replaces each kind with its placeholder and counts it', () => {
    const { text, counts } = redact(
      'mail ana.garcia+cairn@example.co.uk, call +44 20 7946 0958 or (415) 555-2671, card 4111 1111 1111 1111, ' +
        'iban DE89 3704 0044 0532 0130 00 paid, ssn 123-45-6789, nino AB 12 34 56 C, dni 12345678Z.',
    );
    expect(text).toBe(
      'mail [pii:email], call [pii:phone] or [pii:phone], card [pii:card], iban [pii:iban] paid, ssn [pii:us-ssn], nino [pii:uk-nino], dni [pii:es-dni].',
    );
    expect(counts).toEqual({ email: 1, phone: 2, card: 1, iban: 1, 'us-ssn': 1, 'uk-nino': 1, 'es-dni': 1 });
  });

  it('leaves look-alikes that fail their checks, and what the policy does not list', () => {
    const kept = [
      'order 4111 1111 1111 1112', // Luhn fails
      'ref DE89 3704 0044 0532 0130 02', // mod 97 fails (and its digits fail Luhn)
      'dni 12345678A', // wrong check letter
      'ssn 000-12-3456', // never issued
      'version 1.2.3 of 2026-12-03',
    ];
    for (const text of kept) expect(redact(text).text, text).toBe(text);
    // Timestamps, long ids and decimals are not cards or phone numbers.
    for (let i = 0; i < 300; i++) {
      const ms = String(1_700_000_000_000 + i * 7_919_113);
      const id = `1${String(i).padStart(3, '0')}${'7'.repeat(14)}`;
      const decimal = `${100_000 + i * 37}.${String(i * 7_919).padStart(6, '0')}`;
      for (const text of [ms, id, decimal]) expect(redact(text).text, text).toBe(text);
    }
    // Without a region only +numbers are phone numbers; without a national id listed, it stays.
    expect(redact('(415) 555-2671 and 123-45-6789', { kinds: ['phone'], nationalIds: [] }).text).toBe(
      '(415) 555-2671 and 123-45-6789',
    );
  });

  it('finds a card followed by its expiry or code, inside an identifier, and IBANs in lower case', () => {
    expect(redact('card 4111 1111 1111 1111 12/27').text).toBe('card [pii:card] 12/27');
    expect(redact('card 4111111111111111 123').text).toBe('card [pii:card] 123');
    expect(redact('id_4111111111111111').text).toBe('id_[pii:card]');
    expect(redact('iban de89370400440532013000').text).toBe('iban [pii:iban]');
    expect(redact('josé@example.com').text).toBe('[pii:email]');
  });

  it('walks JSON: strings at any depth and keys, other values as they are', () => {
    const { value, counts } = redactValue(
      { to: ['bob@example.com'], 'eve@example.com': 1, n: 4111111111111111, nested: { x: null, ok: true } },
      ALL,
    );
    expect(value).toEqual({
      to: ['[pii:email]'],
      '[pii:email]': 1,
      n: 4111111111111111,
      nested: { x: null, ok: true },
    });
    expect(counts).toEqual({ email: 2 });
  });
});

describe('redaction on SQLite', () => redactionSuite('sqlite'));
describePostgres('redaction on PostgreSQL', () => redactionSuite('postgres'));

function redactionSuite(backend: 'sqlite' | 'postgres') {
  let store: Store;
  let cleanup: () => Promise<void>;
  let dir: string | undefined;
  let admin: Identity;
  let fabric: EmbeddedFabric;

  beforeEach(async () => {
    if (backend === 'sqlite') {
      // A folder of its own, to scan byte for byte.
      const temp = tempDir('cairn-redaction-');
      dir = temp.dir;
      store = await Store.openDir(join(temp.dir, 'store'));
      admin = await store.localIdentity();
      let closed = false;
      store.close = ((close) => async () => {
        if (!closed) await close();
        closed = true;
      })(store.close.bind(store));
      cleanup = async () => {
        await store.close();
        temp.remove();
      };
    } else ({ store, cleanup, who: admin } = await backendStore(backend, 'redaction'));
    fabric = store.fabric(admin);
  });

  afterEach(async () => {
    await cleanup();
  });

  const auditPii = async (action: string) =>
    store.engine.read(admin.tenant, async (tx) => {
      const rows = await tx.all<{ payload: string }>(
        'SELECT p.payload FROM audit_entries e JOIN audit_payloads p ON p.tenant = e.tenant AND p.seq = e.seq WHERE e.tenant = ? AND e.action = ? ORDER BY e.seq',
        [admin.tenant, action],
      );
      return rows.map((r) => (JSON.parse(r.payload) as { pii?: PiiCounts }).pii);
    });

  it('is off until a person who is an admin turns it on; then payloads and memory are stored redacted', async () => {
    expect(await fabric.getRedactionPolicy({})).toMatchObject({ enabled: false, updatedBy: '' });
    const session = await fabric.createSession({ title: 'pii' });
    const before = await fabric.append({
      session: session.id,
      kind: 'message',
      payload: { text: 'write to first.person@example.org' },
    });
    expect(before.payload).toEqual({ text: 'write to first.person@example.org' });

    const policy = await fabric.setRedactionPolicy({
      enabled: true,
      kinds: ['email', 'phone', 'card', 'iban'],
      nationalIds: ['us-ssn'],
      phoneRegion: 'US',
    });
    expect(policy).toMatchObject({ enabled: true, updatedBy: admin.principal });
    expect(await fabric.getRedactionPolicy({})).toEqual(policy);

    const secretMail = 'zq.unique.mailbox@example.net';
    const secretCard = '5500 0000 0000 0004';
    const secretSsn = '219-09-9999';
    const appended = await fabric.append({
      session: session.id,
      kind: 'message',
      payload: { text: `mail ${secretMail}, card ${secretCard}`, who: { ssn: secretSsn }, n: 7 },
    });
    expect(appended.payload).toEqual({
      text: 'mail [pii:email], card [pii:card]',
      who: { ssn: '[pii:us-ssn]' },
      n: 7,
    });
    expect((await fabric.getEvent({ event: appended.id })).payload).toEqual(appended.payload);

    const record = await fabric.remember({
      scope: { session: session.id },
      text: `the customer's mail is ${secretMail} and phone (212) 555-0187`,
      data: { card: secretCard },
    });
    expect(record.text).toBe("the customer's mail is [pii:email] and phone [pii:phone]");
    expect(record.data).toEqual({ card: '[pii:card]' });
    const many = await fabric.rememberMany({
      records: [{ scope: { session: session.id }, text: `also ${secretMail}` }],
    });
    expect(many.items[0]?.text).toBe('also [pii:email]');
    const recalled = await fabric.recall({ scope: { session: session.id }, query: 'zq unique mailbox' });
    expect(recalled.items).toEqual([]);

    // The audit entries count what went, never the values.
    expect((await auditPii('event.append')).filter(Boolean)).toEqual([{ email: 1, card: 1, 'us-ssn': 1 }]);
    expect(await auditPii('memory.remember')).toEqual([{ email: 1, phone: 1, card: 1 }, { email: 1 }]);
    expect((await store.verifyTenants([admin.tenant]))[0]).toMatchObject({ ok: true });

    if (backend === 'sqlite' && dir) {
      await store.close();
      for (const s of [secretMail, secretCard, secretSsn, 'zq.unique'])
        expect(filesContaining(join(dir, 'store'), s), s).toEqual([]);
      // What was written before the policy stays as it was.
      expect(filesContaining(join(dir, 'store'), 'first.person@example.org')).not.toEqual([]);
    }
  });

  it("redacts a session's title and meta under the policy, and counts them in the session's audit entry", async () => {
    const plain = await fabric.createSession({ title: 'call back kept.before@example.org' });
    expect(plain.title).toBe('call back kept.before@example.org');
    await fabric.setRedactionPolicy({
      enabled: true,
      kinds: ['email', 'phone'],
      nationalIds: [],
      phoneRegion: 'US',
    });
    const secretMail = 'qx.session.title@example.net';
    const secretPhone = '(212) 555-0143';
    const session = await fabric.createSession({
      title: `support for ${secretMail}`,
      meta: { caller: { phone: secretPhone }, [secretMail]: 'as a key', n: 3 },
    });
    expect(session.title).toBe('support for [pii:email]');
    expect(session.meta).toEqual({ caller: { phone: '[pii:phone]' }, '[pii:email]': 'as a key', n: 3 });
    expect(await fabric.getSession({ session: session.id })).toEqual(session);
    // A title that placeholders would take past its limit is refused, and no session is made.
    const sessionsBefore = (await fabric.listSessions({ limit: 100 })).sessions.length;
    await expectCode(fabric.createSession({ title: 'a@b.io '.repeat(71) }), 'INVALID_ARGUMENT');
    expect((await fabric.listSessions({ limit: 100 })).sessions).toHaveLength(sessionsBefore);
    const counts = (await auditPii('session.create')).filter(Boolean);
    expect(counts).toEqual([{ email: 2, phone: 1 }]);
    expect((await store.verifyTenants([admin.tenant]))[0]).toMatchObject({ ok: true });
    if (backend === 'sqlite' && dir) {
      await store.close();
      for (const s of [secretMail, '555-0143', 'qx.session'])
        expect(filesContaining(join(dir, 'store'), s), s).toEqual([]);
      expect(filesContaining(join(dir, 'store'), 'kept.before@example.org')).not.toEqual([]);
    }
  });

  it('keeps an idempotent retry the same append across a policy change', async () => {
    const session = await fabric.createSession({ title: 'retry' });
    const sent = {
      session: session.id,
      kind: 'message',
      payload: { to: 'retry.me@example.org' },
      idempotencyKey: 'k1',
    };
    const first = await fabric.append(sent);
    await fabric.setRedactionPolicy({ enabled: true });
    const again = await fabric.append(sent);
    expect(again).toMatchObject({ id: first.id, deduplicated: true });
    // A new append under the policy is stored redacted; its retry is the same append.
    const second = await fabric.append({ ...sent, idempotencyKey: 'k2' });
    expect(second.payload).toEqual({ to: '[pii:email]' });
    expect(await fabric.append({ ...sent, idempotencyKey: 'k2' })).toMatchObject({
      id: second.id,
      deduplicated: true,
    });
  });

  it("is a person's to set and an admin's to read; bad input changes nothing", async () => {
    const agent = store.fabric(
      await store.authenticate(
        (await fabric.createToken({ kind: 'agent', name: 'ops bot', role: 'admin' })).token,
      ),
    );
    await expectCode(agent.setRedactionPolicy({ enabled: false }), 'FORBIDDEN');
    expect((await agent.getRedactionPolicy({})).enabled).toBe(false);
    const member = store.fabric(
      await store.authenticate((await fabric.createToken({ kind: 'user', name: 'm', role: 'member' })).token),
    );
    await expectCode(member.getRedactionPolicy({}), 'FORBIDDEN');
    await expectCode(
      fabric.setRedactionPolicy({ enabled: true, kinds: ['ssn'] } as never),
      'INVALID_ARGUMENT',
    );
    await expectCode(fabric.setRedactionPolicy({ enabled: true, phoneRegion: 'usa' }), 'INVALID_ARGUMENT');
    await expectCode(fabric.setRedactionPolicy({ enabled: true, secret: 1 } as never), 'INVALID_ARGUMENT');
    expect(await fabric.getRedactionPolicy({})).toMatchObject({ enabled: false, updatedAt: 0 });
  });
}
