/**
 * The desk's contract over the table (see desk/desk-store.ts): what a desk on
 * another host — where the directory is — asks of the store. A remote desk
 * (`RemoteDeskStore`) calls these; `cairn serve` runs them over its own
 * store. They are the store side only: attaching a directory, scanning it
 * and writing files stay on the caller's host.
 *
 * What comes in over the network is checked here, at the edge, before the
 * store acts: every pack hashes to its name and every object in it to its
 * digest (so a client cannot plant bytes under another digest that other
 * workspaces of the tenant would then reuse).
 */
import { digestOf } from '../desk/chunker.js';
import { refuseSecretsInPack } from '../desk/guard.js';
import { PACK_BYTES } from '../desk/objects.js';
import { packIndexBytes, verifyPack } from '../desk/pack-format.js';
import * as schema from '../schema.js';
import { op } from './op.js';
import * as shape from './shapes.js';

/** A pack's largest size: a full pack of the smallest objects, with its index. */
export const MAX_PACK_BYTES = PACK_BYTES + 4 * 1024 * 1024 + packIndexBytes(1 << 16);

export const DESK_OPS = {
  deskMissing: op({
    name: 'deskMissing',
    summary: 'Which of these desk objects the store does not hold',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskDigestsInput,
    output: shape.MissingObjects,
    http: { method: 'POST', path: '/v1/desk/objects/missing' },
    run: async (ctx, input) => ({ missing: await ctx.desk().missing(input.digests) }),
  }),
  deskReadObjects: op({
    name: 'deskReadObjects',
    summary: 'The bytes of desk objects, in the order asked (the caller re-hashes them)',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskReadObjectsInput,
    output: shape.ObjectBytes,
    http: { method: 'POST', path: '/v1/desk/objects/read', answer: 'bytes' },
    run: (ctx, input) => ctx.desk().getObjects(input.digests),
  }),
  deskPutPack: op({
    name: 'deskPutPack',
    summary: 'Store a pack of desk objects ahead of the snapshot that names it (again: a no-op)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskPutPackInput,
    output: shape.StoredPack,
    http: { method: 'PUT', path: '/v1/desk/packs/{digest}', body: 'bytes', maxBodyBytes: MAX_PACK_BYTES },
    run: async (ctx, input) => {
      const objects = verifyPack(input.digest, input.bytes).length;
      // The client's guard is not the store's: its objects are scanned again here.
      await refuseSecretsInPack(input.bytes);
      await ctx.desk().putPack(input.digest, input.bytes);
      return { pack: input.digest, objects };
    },
  }),
  deskDiscardPacks: op({
    name: 'deskDiscardPacks',
    summary: 'Delete packs stored for a checkpoint that failed before its commit',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskDiscardInput,
    output: shape.Done,
    http: { method: 'POST', path: '/v1/desk/packs/discard' },
    run: async (ctx, input) => {
      await ctx.desk().discardPacks(input.packs);
      return { ok: true as const };
    },
  }),
  deskCommit: op({
    name: 'deskCommit',
    summary:
      'Record a snapshot: compare-and-swap on the workspace head, its objects made reachable, its log events',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskCommitInput,
    output: shape.DeskCommitted,
    // The commit names every object it reuses (a digest each: ~70 bytes of JSON), so its body grows with the tree.
    http: { method: 'POST', path: '/v1/desk/snapshots', status: 201, maxBodyBytes: 24 * 1024 * 1024 },
    run: async (ctx, input) => {
      const { inline, ...rest } = input;
      let pack: Buffer | undefined;
      if (inline !== undefined) {
        pack = Buffer.from(inline, 'base64');
        // Named by its own hash: what is checked is each object against its digest.
        verifyPack(digestOf(pack), pack);
        await refuseSecretsInPack(pack);
      }
      return ctx.desk().commit({ ...rest, ...(pack ? { inline: pack } : {}) });
    },
  }),
  getWorkspace: op({
    name: 'getWorkspace',
    summary: 'Get a workspace',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.WorkspaceInput,
    output: shape.Workspace,
    http: { method: 'GET', path: '/v1/workspaces/{workspace}' },
    run: (ctx, input) => ctx.desk().workspace(input.workspace),
  }),
  workspaceHead: op({
    name: 'workspaceHead',
    summary: 'A workspace with its head snapshot',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.WorkspaceInput,
    output: shape.WorkspaceHead,
    http: { method: 'GET', path: '/v1/workspaces/{workspace}/head' },
    run: (ctx, input) => ctx.desk().head(input.workspace),
  }),
  listWorkspaces: op({
    name: 'listWorkspaces',
    summary: "List the tenant's workspaces, on every host",
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.WorkspaceList,
    http: { method: 'GET', path: '/v1/workspaces' },
    run: async (ctx) => ({ items: await ctx.desk().listWorkspaces() }),
  }),
  attachedAt: op({
    name: 'attachedAt',
    summary: 'The workspaces attached on a host at any of these directories',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskAttachedInput,
    output: shape.WorkspaceList,
    http: { method: 'POST', path: '/v1/desk/workspaces/attached' },
    run: async (ctx, input) => ({ items: await ctx.desk().attachedAt(input.host, input.paths) }),
  }),
  listSnapshots: op({
    name: 'listSnapshots',
    summary: "A workspace's snapshots, oldest first",
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.WorkspaceInput,
    output: shape.SnapshotList,
    http: { method: 'GET', path: '/v1/workspaces/{workspace}/snapshots' },
    run: async (ctx, input) => ({ items: await ctx.desk().listSnapshots(input.workspace) }),
  }),
  getSnapshot: op({
    name: 'getSnapshot',
    summary: 'Get a snapshot',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.SnapshotInput,
    output: shape.Snapshot,
    http: { method: 'GET', path: '/v1/snapshots/{snapshot}' },
    run: (ctx, input) => ctx.desk().snapshot(input.snapshot),
  }),
  deskFork: op({
    name: 'deskFork',
    summary: "Record a fork's workspace and start its log branch, in one transaction",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskForkInput,
    output: shape.Workspace,
    http: { method: 'POST', path: '/v1/desk/forks', status: 201 },
    run: (ctx, input) => ctx.desk().fork(input),
  }),
  detachWorkspace: op({
    name: 'detachWorkspace',
    summary: 'Mark a workspace detached (its directory is left to the host)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.WorkspaceInput,
    output: shape.Workspace,
    http: { method: 'POST', path: '/v1/workspaces/{workspace}/detach' },
    run: (ctx, input) => ctx.desk().detach(input.workspace),
  }),
  deskRefused: op({
    name: 'deskRefused',
    summary:
      "Audit a desk's refusal of destructive work on a workspace's directory (not its host's, or not one it created)",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.DeskRefusedInput,
    output: shape.Done,
    http: { method: 'POST', path: '/v1/workspaces/{workspace}/refusals' },
    run: async (ctx, input) => {
      await ctx.desk().refused(input);
      return { ok: true as const };
    },
  }),
};

export type DeskOps = typeof DESK_OPS;
