/** What the desk's operations answer, as zod schemas: workspaces, snapshots, and the remote desk's packs and objects. */
import { z } from 'zod';
import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import { CairnEvent } from '../log/shapes.js';
import { Bytes } from '../schema.js';
import { at, idOf } from '../shapes.js';

export const Workspace = z.object({
  id: idOf<WorkspaceId>(),
  dir: z.string().describe('the directory, on its host'),
  host: z.string(),
  session: idOf<SessionId>(),
  branch: z.string(),
  driver: z.enum(['plain', 'copy', 'overlay']),
  state: z.enum(['attached', 'detached']),
  baseSnapshot: idOf<SnapshotId>().describe(
    'the snapshot it started from (its fork point, or its first checkpoint)',
  ),
  headSnapshot: idOf<SnapshotId>(),
  forkedFrom: idOf<WorkspaceId | ''>().describe(
    "the workspace it was forked from; '' when attached directly",
  ),
  createdAt: at,
});

export const WorkspaceList = z.object({ items: z.array(Workspace) });

export const Snapshot = z.object({
  id: idOf<SnapshotId>(),
  workspace: idOf<WorkspaceId>(),
  kind: z.enum(['checkpoint', 'restore', 'merge']),
  root: z.string().describe('digest of the root tree'),
  parent: idOf<SnapshotId | ''>().describe("the snapshot it followed; '' for a workspace's first"),
  event: idOf<EventId>().describe("the log event that records it on the workspace's branch"),
  files: z.number().int(),
  bytes: z.number().int(),
  addedBytes: z.number().int().describe('bytes of new objects it stored'),
  createdAt: at,
});

export const SnapshotList = z.object({ items: z.array(Snapshot) });

export const WorkspaceHead = z.object({ workspace: Workspace, head: Snapshot });

export const DeskCommitted = z.object({
  snapshot: Snapshot,
  workspace: Workspace,
  appended: CairnEvent.optional(),
});

export const MissingObjects = z.object({ missing: z.array(z.string()) });

export const StoredPack = z.object({ pack: z.string(), objects: z.number().int() });

export const ObjectBytes = z.array(Bytes);
