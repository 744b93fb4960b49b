import { expect, it } from 'vitest';
import type { Fabric } from '../../fabric.js';
import { expectCode } from '../expect-code.js';
import { type KeysSuite, LIVE_UPSTREAM, NO_APPROVAL, NO_GRANT, NO_SESSION } from './suite.js';

/** Tenant isolation, and bad input refused with typed errors, changing nothing. */
export function boundaryCases(s: KeysSuite): void {
  it("another tenant sees none of a tenant's credentials, grants or approvals, gets NOT_FOUND for them, and changes nothing", async () => {
    const { a, b, session, target, secret, branch, credential, auditEntries } = s;
    const cred = await credential('isolated');
    const on = await branch('isolated');
    const grant = await a.addGrant({
      session,
      branch: on,
      credential: cred.name,
      mode: 'live',
      approval: 'each-write',
    });
    const approval = await target.holdWrite({
      session,
      branch: on,
      credential: cred.name,
      path: '/refund',
      body: '{"amount":9}',
    });
    const heldBefore = await a.getApproval({ approval });
    const auditBefore = await auditEntries();
    expect((await b.listCredentials()).credentials.map((c) => c.id)).not.toContain(cred.id);
    expect((await b.listGrants({})).grants.map((g) => g.id)).not.toContain(grant.id);
    expect((await b.listGrants({ session })).grants).toEqual([]);
    expect((await b.listApprovals({ state: 'all' })).approvals.map((x) => x.id)).not.toContain(approval);
    await expectCode(b.getGrant({ grant: grant.id }), 'NOT_FOUND');
    await expectCode(b.revokeGrant({ grant: grant.id }), 'NOT_FOUND');
    await expectCode(b.getApproval({ approval }), 'NOT_FOUND');
    await expectCode(b.approve({ approval }), 'NOT_FOUND');
    await expectCode(b.deny({ approval }), 'NOT_FOUND');
    await expectCode(b.rotateCredential({ name: cred.name, value: secret('intruder') }), 'NOT_FOUND');
    await expectCode(b.deleteCredential({ name: cred.name }), 'NOT_FOUND');
    await expectCode(b.addGrant({ session, branch: on, credential: cred.name, mode: 'read' }), 'NOT_FOUND');
    await expectCode(b.checkGrant({ session, credential: cred.name, mode: 'read' }), 'NOT_FOUND');
    // B's own credential of the same name is B's; A's grant cannot be narrowed into B's session.
    const theirs = (await b.createSession({ title: 'tenant b' })).id;
    await b.append({ session: theirs, kind: 'note', payload: 'b' });
    const same = await b.addCredential({
      name: cred.name,
      kind: 'bearer',
      upstream: LIVE_UPSTREAM,
      value: secret('tenant_b'),
    });
    expect(same.id).not.toBe(cred.id);
    await expectCode(
      b.addGrant({
        session: theirs,
        branch: 'main',
        credential: cred.name,
        mode: 'read',
        parent: grant.id,
      }),
      'NOT_FOUND',
    );
    await expectCode(
      b.checkGrant({ session: theirs, credential: cred.name, mode: 'read', parent: grant.id }),
      'NOT_FOUND',
    );
    expect((await b.deleteCredential({ name: cred.name })).revokedGrants).toEqual([]);
    // A's are as they were.
    expect((await a.listCredentials()).credentials.find((c) => c.name === cred.name)).toEqual(cred);
    expect(await a.getGrant({ grant: grant.id })).toEqual(grant);
    expect(await a.getApproval({ approval })).toEqual(heldBefore);
    expect(await auditEntries()).toBe(auditBefore);
  });

  it('refuses bad input with typed errors and changes nothing', async () => {
    const { a, session, fresh, secret, branch, auditEntries } = s;
    const plain = await a.addCredential({
      name: fresh('guarded'),
      kind: 'bearer',
      upstream: LIVE_UPSTREAM,
      value: secret('guarded'),
    });
    const on = await branch('guarded');
    await a.addGrant({ session, branch: on, credential: plain.name, mode: 'read' });
    const credentials = await a.listCredentials();
    const grants = await a.listGrants({});
    const approvals = await a.listApprovals({ state: 'all' });
    const audit = await auditEntries();
    const cred = (fields: Record<string, unknown>) =>
      a.addCredential({
        name: fresh('bad'),
        kind: 'bearer',
        upstream: LIVE_UPSTREAM,
        value: secret('bad'),
        ...fields,
      } as Parameters<Fabric['addCredential']>[0]);
    for (const fields of [
      { name: '' },
      { name: 'Has Space' },
      { name: `x${'y'.repeat(64)}` },
      { kind: 'bogus' },
      { value: '' },
      { value: '   ' },
      { value: `two\n${secret('lines')}` },
      { kind: 'basic', value: secret('no_colon') },
      { kind: 'header' },
      { upstream: 'not a url' },
      { upstream: 'ftp://files.example.test/' },
      { upstream: 'https://api.example.test/v1?key=1' },
    ])
      await expectCode(cred(fields), 'INVALID_ARGUMENT');
    const grant = (fields: Record<string, unknown>) =>
      a.addGrant({
        session,
        branch: on,
        credential: plain.name,
        mode: 'read',
        ...fields,
      } as Parameters<Fabric['addGrant']>[0]);
    for (const fields of [
      { mode: 'admin' },
      { mode: 'live', approval: 'sometimes' },
      { mode: 'sandbox' },
      { branch: 'bad name!' },
      { allow: { methods: ['TRACE'] } },
      { allow: { pathPrefixes: ['no-slash'] } },
      { allow: { pathPrefixes: ['/a/../b'] } },
      { allow: { hosts: ['bad host'] } },
      { expiresAt: Date.now() - 1000 },
      { maxUses: 0 },
      { parent: 'not-an-id' },
    ])
      await expectCode(grant(fields), 'INVALID_ARGUMENT');
    for (const fields of [
      { credential: fresh('missing') },
      { session: NO_SESSION },
      { branch: fresh('missing') },
      { parent: NO_GRANT },
    ])
      await expectCode(grant(fields), 'NOT_FOUND');
    const check = (fields: Record<string, unknown>) =>
      a.checkGrant({
        session,
        credential: plain.name,
        mode: 'read',
        ...fields,
      } as Parameters<Fabric['checkGrant']>[0]);
    await expectCode(check({ mode: 'admin' }), 'INVALID_ARGUMENT');
    await expectCode(check({ session: 'not-an-id' }), 'INVALID_ARGUMENT');
    await expectCode(check({ session: NO_SESSION }), 'NOT_FOUND');
    await expectCode(check({ credential: fresh('missing') }), 'NOT_FOUND');
    await expectCode(a.rotateCredential({ name: '', value: secret('r') }), 'INVALID_ARGUMENT');
    await expectCode(a.rotateCredential({ name: plain.name, value: '' }), 'INVALID_ARGUMENT');
    await expectCode(
      a.rotateCredential({ name: plain.name, value: `a\nb${secret('r')}` }),
      'INVALID_ARGUMENT',
    );
    await expectCode(a.rotateCredential({ name: fresh('missing'), value: secret('r') }), 'NOT_FOUND');
    await expectCode(a.deleteCredential({ name: '' }), 'INVALID_ARGUMENT');
    await expectCode(a.deleteCredential({ name: fresh('missing') }), 'NOT_FOUND');
    await expectCode(a.getGrant({ grant: 'not-an-id' }), 'INVALID_ARGUMENT');
    await expectCode(a.getGrant({ grant: NO_GRANT }), 'NOT_FOUND');
    await expectCode(a.revokeGrant({ grant: NO_GRANT }), 'NOT_FOUND');
    await expectCode(a.listGrants({ session: 'not-an-id' }), 'INVALID_ARGUMENT');
    await expectCode(
      a.listApprovals({ state: 'bogus' } as unknown as Parameters<Fabric['listApprovals']>[0]),
      'INVALID_ARGUMENT',
    );
    await expectCode(a.getApproval({ approval: 'not-an-id' }), 'INVALID_ARGUMENT');
    await expectCode(a.approve({ approval: 'not-an-id' }), 'INVALID_ARGUMENT');
    await expectCode(a.deny({ approval: NO_APPROVAL }), 'NOT_FOUND');
    expect(await a.listCredentials()).toEqual(credentials);
    expect(await a.listGrants({})).toEqual(grants);
    expect(await a.listApprovals({ state: 'all' })).toEqual(approvals);
    expect(await auditEntries()).toBe(audit);
  });
}
