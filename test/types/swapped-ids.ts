// Compiled (not run) by test/typed-ids.test.ts: each `@ts-expect-error` line must fail to
// compile. If one compiles, the directive is unused and the compiler reports it.
import type { Desk } from '../../src/desk/desk.js';
import type { SessionId, SnapshotId, WorkspaceId } from '../../src/ids.js';
import type { Units } from '../../src/unit/unit.js';

export async function swapped(desk: Desk, units: Units, ws: WorkspaceId, sn: SnapshotId, ss: SessionId) {
  // The right way round compiles.
  await desk.restore(ws, sn);
  await desk.diff({ from: sn, workspace: ws });
  await units.checkpoint({ workspace: ws });
  await desk.attach({ dir: '/tmp/x', session: ss });
  // @ts-expect-error a snapshot where the workspace belongs, and the other way round
  await desk.restore(sn, ws);
  // @ts-expect-error a session id is no workspace id
  await desk.checkpoint(ss);
  // @ts-expect-error a workspace id is no snapshot id
  await desk.diff({ from: ws });
  // @ts-expect-error a plain string must be checked first (parseId)
  await desk.getSnapshot('sn_from_somewhere' as string);
  // @ts-expect-error a workspace where the session belongs
  await desk.attach({ dir: '/tmp/x', session: ws });
  // @ts-expect-error the unit's workspace is a workspace id
  await units.status(sn);
  // What Cairn returns carries its kind, so it flows back in without a cast.
  const attached = await desk.attach({ dir: '/tmp/y' });
  await desk.restore(attached.workspace.id, attached.checkpoint.snapshot.id);
  const cp = await units.checkpoint({ workspace: attached.workspace.id });
  await desk.restore(cp.workspace, cp.snapshot);
  // @ts-expect-error a checkpoint's snapshot and workspace swapped
  await desk.restore(cp.snapshot, cp.workspace);
}
