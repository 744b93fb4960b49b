import { expect, it } from 'vitest';
import { expectCode } from '../expect-code.js';
import { type KeysSuite, NO_APPROVAL } from './suite.js';

/** Approvals: held writes listed and got, decided once, filtered by state. */
export function approvalCases(s: KeysSuite): void {
  it('lists and gets held writes; approve and deny decide each once; the list filters by state', async () => {
    const { a, session, target, leaked, branch, credential, liveValue, sorted } = s;
    const cred = await credential('payments');
    const value = liveValue(cred.name);
    const on = await branch('approvals');
    const grant = await a.addGrant({
      session,
      branch: on,
      credential: cred.name,
      mode: 'live',
      approval: 'each-write',
    });
    const bodies = [`{"amount":1,"memo":"${value}"}`, '{"amount":2,"password":"pw-hunter2"}', '{"amount":3}'];
    const ids: string[] = [];
    for (const [i, body] of bodies.entries())
      ids.push(
        await target.holdWrite({ session, branch: on, credential: cred.name, path: `/pay/${i}`, body }),
      );
    const mine = async (state?: 'pending' | 'approved' | 'denied' | 'expired' | 'used' | 'all') => {
      const { approvals } = await a.listApprovals(state === undefined ? {} : { state });
      if (state !== undefined && state !== 'all') for (const x of approvals) expect(x.state).toBe(state);
      return sorted(approvals.map((x) => x.id).filter((id) => ids.includes(id)));
    };
    expect(await mine()).toEqual(sorted(ids));
    const held = await a.getApproval({ approval: ids[0] as string });
    expect(held).toMatchObject({
      id: ids[0],
      grant: grant.id,
      session,
      branch: on,
      credential: cred.name,
      method: 'POST',
      bodyBytes: Buffer.byteLength(bodies[0] as string),
      state: 'pending',
      decidedBy: '',
      decidedAt: null,
      usedAt: null,
    });
    expect(held.url).toContain('/pay/0');
    expect(held.preview).toContain('"amount":1');
    expect(held.preview).not.toContain(value);
    expect((await a.getApproval({ approval: ids[1] as string })).preview).not.toContain('pw-hunter2');
    const me = (await a.whoami()).principal;
    const approved = await a.approve({ approval: ids[0] as string, note: 'looks right' });
    expect(approved).toMatchObject({ id: ids[0], state: 'approved', decidedBy: me });
    expect(approved.decidedAt).not.toBeNull();
    const denied = await a.deny({ approval: ids[1] as string });
    expect(denied).toMatchObject({ id: ids[1], state: 'denied', decidedBy: me });
    // One decision each: a second one, either way, is CONFLICT and changes nothing.
    for (const id of [ids[0], ids[1]] as string[]) {
      await expectCode(a.approve({ approval: id }), 'CONFLICT');
      await expectCode(a.deny({ approval: id }), 'CONFLICT');
    }
    expect(await a.getApproval({ approval: ids[0] as string })).toEqual(approved);
    expect(await a.getApproval({ approval: ids[1] as string })).toEqual(denied);
    expect(await mine()).toEqual([ids[2]]);
    expect(await mine('pending')).toEqual([ids[2]]);
    expect(await mine('approved')).toEqual([ids[0]]);
    expect(await mine('denied')).toEqual([ids[1]]);
    expect(await mine('used')).toEqual([]);
    expect(await mine('expired')).toEqual([]);
    expect(await mine('all')).toEqual(sorted(ids));
    await expectCode(a.getApproval({ approval: NO_APPROVAL }), 'NOT_FOUND');
    await expectCode(a.approve({ approval: NO_APPROVAL }), 'NOT_FOUND');
    await expectCode(a.deny({ approval: NO_APPROVAL }), 'NOT_FOUND');
    expect(leaked()).toEqual([]);
  });
}
