import { expect, it } from 'vitest';
import { expectCode } from '../expect-code.js';
import { type KeysSuite, NO_GRANT } from './suite.js';

/** Grants: checkGrant within and outside a grant's mode, narrowing only, revocation. */
export function grantCases(s: KeysSuite): void {
  it("a branch's grant lets checkGrant narrow it within its mode and refuses anything outside it", async () => {
    const { a, session, branch, credential, sorted } = s;
    const cred = await credential('ledger');
    const on = await branch('checked');
    const read = await a.addGrant({ session, branch: on, credential: cred.name, mode: 'read' });
    expect(read).toMatchObject({
      session,
      branch: on,
      credential: cred.name,
      parent: '',
      mode: 'read',
      approval: 'none',
      uses: 0,
      revokedAt: null,
    });
    for (const method of read.allow.methods) expect(['GET', 'HEAD', 'OPTIONS']).toContain(method);
    const sandbox = await a.addGrant({ session, branch: on, credential: cred.name, mode: 'sandbox' });
    const live = await a.addGrant({
      session,
      branch: on,
      credential: cred.name,
      mode: 'live',
      approval: 'each-write',
    });
    const ok = { ok: true };
    const check = (parent: string, rest: Record<string, unknown>) =>
      a.checkGrant({ session, credential: cred.name, parent, mode: 'read', ...rest });
    // Within: the same mode, a narrower allow-list; under live, any mode, live keeping each-write.
    expect(await check(read.id, {})).toEqual(ok);
    expect(await check(read.id, { allow: { methods: ['GET'], pathPrefixes: ['/invoices'] } })).toEqual(ok);
    expect(await check(sandbox.id, { mode: 'sandbox', allow: { methods: ['POST'] } })).toEqual(ok);
    for (const mode of ['live', 'sandbox', 'read']) expect(await check(live.id, { mode })).toEqual(ok);
    expect(await check(live.id, { mode: 'live', approval: 'each-write' })).toEqual(ok);
    expect(await a.checkGrant({ session, credential: cred.name, mode: 'live' })).toEqual(ok);
    // Outside: a read grant never writes; a test account never becomes the real one; live keeps its approvals.
    const wider = await expectCode(check(read.id, { mode: 'live' }), 'INVALID_ARGUMENT');
    expect(wider.data).toMatchObject({ parent: read.id });
    await expectCode(check(read.id, { mode: 'sandbox' }), 'INVALID_ARGUMENT');
    await expectCode(check(read.id, { allow: { methods: ['POST'] } }), 'INVALID_ARGUMENT');
    await expectCode(check(sandbox.id, { mode: 'live' }), 'INVALID_ARGUMENT');
    await expectCode(check(sandbox.id, { mode: 'read' }), 'INVALID_ARGUMENT');
    await expectCode(check(live.id, { mode: 'live', approval: 'none' }), 'INVALID_ARGUMENT');
    await expectCode(
      a.checkGrant({ session, credential: cred.name, mode: 'read', allow: { methods: ['DELETE'] } }),
      'INVALID_ARGUMENT',
    );
    // Checking issues nothing.
    const issued = (await a.listGrants({ session, branch: on })).grants.map((g) => g.id);
    expect(sorted(issued)).toEqual(sorted([read.id, sandbox.id, live.id]));
  });

  it('a narrower grant cannot be widened; a refused grant records nothing', async () => {
    const { a, session, branch, credential, auditEntries } = s;
    const cred = await credential('invoices');
    const expiresAt = Date.now() + 3_600_000;
    const root = await a.addGrant({
      session,
      branch: await branch('wide'),
      credential: cred.name,
      mode: 'live',
      allow: { methods: ['GET', 'POST'], pathPrefixes: ['/invoices'] },
      maxUses: 10,
      expiresAt,
    });
    const narrow = await a.addGrant({
      session,
      branch: await branch('narrow'),
      credential: cred.name,
      mode: 'read',
      parent: root.id,
      allow: { pathPrefixes: ['/invoices/7'] },
      maxUses: 3,
    });
    expect(narrow).toMatchObject({
      parent: root.id,
      mode: 'read',
      allow: { hosts: root.allow.hosts, methods: ['GET'], pathPrefixes: ['/invoices/7'] },
      maxUses: 3,
      expiresAt,
      onBehalfOf: root.onBehalfOf,
    });
    const into = await branch('wider');
    const other = (await a.createSession({ title: 'another session' })).id;
    await a.append({ session: other, kind: 'note', payload: 'elsewhere' });
    const elsewhere = await credential('elsewhere');
    const before = (await a.listGrants({})).grants.map((g) => g.id);
    const audit = await auditEntries();
    const widenings: Record<string, unknown>[] = [
      { mode: 'live' },
      { mode: 'sandbox' },
      { mode: 'read', allow: { methods: ['GET', 'HEAD'] } },
      { mode: 'read', allow: { pathPrefixes: ['/invoices'] } },
      { mode: 'read', allow: { pathPrefixes: ['/'] } },
      { mode: 'read', allow: { hosts: ['evil.example.test'] } },
      { mode: 'read', maxUses: 4 },
      { mode: 'read', expiresAt: expiresAt + 60_000 },
    ];
    for (const widening of widenings) {
      const input = {
        session,
        credential: cred.name,
        parent: narrow.id,
        mode: 'read' as const,
        ...widening,
      };
      await expectCode(a.addGrant({ ...input, branch: into }), 'INVALID_ARGUMENT');
      await expectCode(a.checkGrant(input), 'INVALID_ARGUMENT');
    }
    // Nor moved to another credential or another session.
    await expectCode(
      a.addGrant({ session, branch: into, credential: elsewhere.name, mode: 'read', parent: narrow.id }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      a.addGrant({
        session: other,
        branch: 'main',
        credential: cred.name,
        mode: 'read',
        parent: narrow.id,
      }),
      'INVALID_ARGUMENT',
    );
    expect((await a.listGrants({})).grants.map((g) => g.id)).toEqual(before);
    expect(await auditEntries()).toBe(audit);
    // As narrow as its parent is allowed, and inherits what it leaves unset.
    const same = await a.addGrant({
      session,
      branch: into,
      credential: cred.name,
      mode: 'read',
      parent: narrow.id,
    });
    expect(same).toMatchObject({ parent: narrow.id, allow: narrow.allow, maxUses: 3, expiresAt });
  });

  it('revoking a grant revokes every grant narrowed from it, and checkGrant then refuses to narrow it', async () => {
    const { a, session, branch, credential, sorted } = s;
    const cred = await credential('revocable');
    const on = await branch('revoking');
    const root = await a.addGrant({ session, branch: on, credential: cred.name, mode: 'live' });
    const child = await a.addGrant({
      session,
      branch: await branch('revoking-child'),
      credential: cred.name,
      mode: 'read',
      parent: root.id,
    });
    const grandchild = await a.addGrant({
      session,
      branch: await branch('revoking-grandchild'),
      credential: cred.name,
      mode: 'read',
      parent: child.id,
    });
    const narrowChild = { session, credential: cred.name, mode: 'read' as const, parent: child.id };
    expect(await a.checkGrant(narrowChild)).toEqual({ ok: true });
    const revoked = await a.revokeGrant({ grant: child.id, reason: 'task done' });
    expect(sorted(revoked.revoked)).toEqual(sorted([child.id, grandchild.id]));
    const got = await a.getGrant({ grant: child.id });
    expect(got).toMatchObject({ revokeReason: 'task done', revokedBy: (await a.whoami()).principal });
    expect(got.revokedAt).not.toBeNull();
    expect((await a.getGrant({ grant: grandchild.id })).revokedAt).not.toBeNull();
    expect((await a.getGrant({ grant: root.id })).revokedAt).toBeNull();
    const states = Object.fromEntries((await a.listGrants({ session })).grants.map((g) => [g.id, g.state]));
    expect([states[root.id], states[child.id], states[grandchild.id]]).toEqual([
      'active',
      'revoked',
      'revoked',
    ]);
    await expectCode(a.checkGrant(narrowChild), 'FORBIDDEN');
    await expectCode(a.checkGrant({ ...narrowChild, parent: grandchild.id }), 'FORBIDDEN');
    await expectCode(a.addGrant({ ...narrowChild, branch: await branch('too-late') }), 'FORBIDDEN');
    // Revoking again does not revive it or move its time; the root is revoked on its own.
    await a.revokeGrant({ grant: child.id });
    expect(await a.getGrant({ grant: child.id })).toEqual(got);
    expect((await a.revokeGrant({ grant: root.id })).revoked).toContain(root.id);
    await expectCode(a.checkGrant({ ...narrowChild, parent: root.id }), 'FORBIDDEN');
    await expectCode(a.revokeGrant({ grant: NO_GRANT }), 'NOT_FOUND');
  });
}
