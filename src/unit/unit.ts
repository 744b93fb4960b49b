import { join } from 'node:path';
import type { z } from 'zod';
import type { Desk } from '../desk/desk.js';
import type { Workspace } from '../desk/rows.js';
import { conflict, forbidden, invalidArgument as invalid, notFound } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { type EventId, randomHex, type SnapshotId, type WorkspaceId } from '../ids.js';
import { type GrantRequest, grantState } from '../keys/grants.js';
import type { Keys } from '../keys/keys.js';
import { pathChange, readAll } from '../log/pages.js';
import { BranchName } from '../schema.js';
import type { StepPayload } from '../steps/journal.js';
import { Journal, STEP_EVENT } from '../steps/journal.js';
import type { CairnEvent } from '../types.js';
import { parseInput } from '../validate.js';
import { gitEvidence, runCheck } from './evidence.js';

export type { CheckResult } from './evidence.js';

import type * as shapes from './shapes.js';

export type UnitCheckpoint = z.output<typeof shapes.UnitCheckpoint>;
export type GrantRef = z.output<typeof shapes.GrantRef>;
export type StepEffect = z.output<typeof shapes.StepEffect>;
export type UnitRestorePreview = z.output<typeof shapes.UnitRestorePreview>;
export type UnitStatus = z.output<typeof shapes.UnitStatus>;

/**
 * The unit of work: a session branch (the mind), the workspace bound to it
 * (the desk) and its grants (the keys), checkpointed, forked and restored
 * together (DESIGN §2, §6, §7).
 *
 * A unit checkpoint is one event (`cairn.unit.checkpoint`) on the branch. It
 * names the log head before it, the workspace snapshot taken with it, the
 * steps in doubt at that moment and the acceptance evidence: the git
 * revision when the workspace is a git repository, and each check
 * command's exit code and output digest. It is accepted when every check
 * passed. It lists the branch's grants active at that moment — as a record
 * of what the branch relied on, never as something a restore re-issues.
 */
export const UNIT_CHECKPOINT_EVENT = 'cairn.unit.checkpoint';

/** The snapshot fields of a checkpoint's payload before its commit: the store fills them in. */
const UNSET = '' as SnapshotId;
export const UNIT_KEEP_EVENT = 'cairn.unit.keep';
export const UNIT_ABANDON_EVENT = 'cairn.unit.abandon';
/** How long an abandoned branch's workspace is kept before `reclaim` discards it, by default. */
export const DEFAULT_ABANDON_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const MAX_FORK_BRANCHES = 64;

/** One grant a fork gives one new branch: it narrows `parent` (default: the forked branch's grant on the credential). */
export type ForkGrant = GrantRequest & { credential: string; parent?: string };

/** What `reclaim` discarded, and the abandoned workspaces it left for their own host's desk. */
export interface ReclaimReport {
  reclaimed: string[];
  leftAlone: { workspace: string; host: string; dir: string; reason: 'other-host' | 'not-created' }[];
}

export interface RestoreOptions {
  /**
   * The workspace the caller acts on (default: the checkpoint's own). It must
   * be the checkpoint's own: a restore never rewrites another directory.
   */
  workspace?: WorkspaceId;
  /** Restore a checkpoint whose checks failed. */
  allowUnaccepted?: boolean;
}

/**
 * What the unit needs of the keys: the branch's grants (a checkpoint records
 * them, a restore preview says how they stand) and, for a fork that hands
 * grants on, checking and issuing them. The keys themselves (`Keys`) are
 * one; `keysOverFabric` is the other, through a server.
 */
export type UnitKeys = Pick<Keys, 'who' | 'listGrants' | 'getGrant' | 'checkGrant' | 'grant'>;

/** The unit's keys through a fabric (a server's): each call one operation of the table. */
export async function keysOverFabric(fabric: Fabric): Promise<UnitKeys> {
  const who = await fabric.whoami();
  return {
    who,
    listGrants: async (filter = {}) => (await fabric.listGrants(filter)).grants,
    getGrant: (id) => fabric.getGrant({ grant: id }),
    checkGrant: async (input) => {
      await fabric.checkGrant(input);
    },
    grant: (input) => fabric.addGrant(input),
  };
}

/** Where a fork's branch workspaces go unless the caller says: beside the forked workspace. */
export function defaultForkRoot(ws: Workspace): string {
  return `${ws.dir}.forks`;
}

export class Units {
  constructor(
    private readonly fabric: Fabric,
    private readonly desk: Desk,
    private readonly keys?: UnitKeys,
  ) {}

  /** The branch's active grants, as a checkpoint records them. */
  private async activeGrants(session: string, branch: string): Promise<GrantRef[] | undefined> {
    if (!this.keys) return undefined;
    return (await this.keys.listGrants({ session, branch }))
      .filter((g) => g.state === 'active')
      .map((g) => ({ id: g.id, credential: g.credential, mode: g.mode, approval: g.approval }));
  }

  /** Checkpoints the unit of a workspace: its snapshot, its branch's log head, steps in doubt, evidence. */
  async checkpoint(input: {
    workspace: WorkspaceId;
    label?: string;
    checks?: string[];
  }): Promise<UnitCheckpoint> {
    return this.checkpointWith(input);
  }

  /**
   * A unit checkpoint; with `then`, the one a restore takes first: its
   * snapshot, its event and the head move to the restored checkpoint are
   * one transaction, which commits only while the branch head is still
   * `then.ifHead` — so a restore that loses a race records nothing.
   */
  private async checkpointWith(
    input: { workspace: WorkspaceId; label?: string; checks?: string[] },
    then?: { ifHead: EventId | ''; ifMoves: number; moveHeadTo: EventId },
  ): Promise<UnitCheckpoint> {
    const ws = await this.desk.getWorkspace(input.workspace);
    for (const check of input.checks ?? []) {
      if (typeof check !== 'string' || check.trim() === '')
        throw invalid('a check is a non-empty shell command');
    }
    const journal = await Journal.open(this.fabric, { session: ws.session, branch: ws.branch });
    const checks = (input.checks ?? []).map((c) => runCheck(c, ws.dir));
    const git = gitEvidence(ws.dir);
    const grants = await this.activeGrants(ws.session, ws.branch);
    // The log keeps each check's digest, never its output.
    const recorded = checks.map(({ outputTail: _tail, ...kept }) => kept);
    const payloadFor = (snapshot: { id: SnapshotId; root: string }, head: EventId | '') => ({
      label: input.label ?? '',
      head,
      workspace: ws.id,
      snapshot: snapshot.id,
      root: snapshot.root,
      inDoubt: journal.inDoubt().map((s) => ({ position: s.position, name: s.name, key: s.key })),
      evidence: { ...(git ? { git } : {}), checks: recorded },
      accepted: checks.every((c) => c.passed),
      ...(grants ? { grants } : {}),
    });
    // One commit when the workspace changed: the unit event rides with the snapshot's.
    const taken = await this.desk.checkpoint(ws.id, {
      // The store fills in the snapshot's id, root and event (as head) when it commits.
      also: { kind: UNIT_CHECKPOINT_EVENT, payload: payloadFor({ id: UNSET, root: '' }, '') },
      // A restore's checkpoint is always recorded, so its event rides in the transaction that moves the head.
      ...(then
        ? { force: true, ifHead: then.ifHead, ifMoves: then.ifMoves, moveHeadTo: then.moveHeadTo }
        : {}),
    });
    let payload: ReturnType<typeof payloadFor>;
    let event: CairnEvent;
    if (taken.appended) {
      event = taken.appended;
      payload = event.payload as ReturnType<typeof payloadFor>;
    } else {
      const head = (await this.fabric.readBranch({ session: ws.session, branch: ws.branch, limit: 1 })).head;
      payload = payloadFor(taken.snapshot, head);
      event = await this.fabric.recordCheckpoint({ session: ws.session, branch: ws.branch, payload });
    }
    return {
      id: event.id,
      session: ws.session,
      branch: ws.branch,
      ...payload,
      evidence: { ...payload.evidence, checks },
      createdAt: event.at,
    };
  }

  async get(id: string): Promise<UnitCheckpoint> {
    const event = await this.fabric.getEvent({ event: id });
    if (event.kind !== UNIT_CHECKPOINT_EVENT) {
      throw notFound(`${id} is not a unit checkpoint (it is a ${event.kind} event)`, {
        id,
      });
    }
    return {
      id: event.id,
      session: event.session,
      branch: event.branch,
      ...(event.payload as object),
      createdAt: event.at,
    } as UnitCheckpoint;
  }

  /** The workspace a checkpoint's unit is restored into or forked from, checked to be of the same session. */
  private async workspaceFor(checkpoint: UnitCheckpoint, workspace?: WorkspaceId): Promise<Workspace> {
    const ws = await this.desk.getWorkspace(workspace ?? checkpoint.workspace);
    if (ws.session !== checkpoint.session) {
      throw invalid(
        `checkpoint ${checkpoint.id} belongs to session ${checkpoint.session}, not to workspace ${ws.id}'s session ${ws.session}`,
        { checkpoint: checkpoint.id, workspace: ws.id },
      );
    }
    return ws;
  }

  /** How moving the workspace branch's head to the checkpoint changes its path. */
  private async pathChange(
    checkpoint: UnitCheckpoint,
    ws: Workspace,
  ): Promise<Pick<UnitRestorePreview, 'head' | 'eventsAfter' | 'eventsBack'>> {
    const { head, off, back } = await pathChange(
      (from) => this.fabric.readBranch({ session: ws.session, branch: ws.branch, from, limit: 1000 }),
      (from) => this.fabric.readPath({ to: checkpoint.id, from, limit: 1000 }),
      await this.fabric.getEvent({ event: checkpoint.id }),
    );
    return { head, eventsAfter: off, eventsBack: back };
  }

  /**
   * What restoring a unit checkpoint would do: how the branch's path
   * changes, files, and the steps it takes off the path grouped by what
   * undoes them. It refuses exactly what `restore` refuses, so a preview
   * never promises a restore that is then refused.
   */
  async previewRestore(id: string, options: RestoreOptions = {}): Promise<UnitRestorePreview> {
    return (await this.planRestore(id, options)).preview;
  }

  private async planRestore(
    id: string,
    options: RestoreOptions,
  ): Promise<{ preview: UnitRestorePreview; ws: Workspace; moves: number }> {
    const checkpoint = await this.get(id);
    const ws = await this.workspaceFor(checkpoint, options.workspace);
    if (ws.id !== checkpoint.workspace) await refuseOtherWorkspace(this.desk, checkpoint, ws);
    if (!checkpoint.accepted && !options.allowUnaccepted) {
      throw conflict(
        `checkpoint ${id} is not accepted (a check failed): pass allowUnaccepted (--allow-unaccepted) to restore it anyway`,
        { checkpoint: id },
      );
    }
    // Counted before the head is read: a move in between makes the restore's commit refuse, never miss it.
    const moves = (await this.fabric.branchHistory({ session: ws.session, branch: ws.branch })).length;
    const { head, eventsAfter, eventsBack } = await this.pathChange(checkpoint, ws);
    const files = (await this.desk.previewRestore(ws.id, checkpoint.snapshot)).changes;
    const journal = await Journal.open(this.fabric, { session: ws.session, branch: ws.branch });
    const records = new Map(journal.steps().map((s) => [s.position, s]));
    const steps: UnitRestorePreview['steps'] = { undone: [], compensation: [], cannotUndo: [] };
    for (const event of eventsAfter) {
      if (event.kind !== STEP_EVENT) continue;
      const intent = (event.payload as StepPayload).intent;
      if (!intent) continue;
      const record = records.get(intent.position);
      const effect: StepEffect = {
        position: intent.position,
        name: intent.name,
        key: intent.key,
        state: record?.state ?? 'in-doubt',
        ...(intent.compensate ? { compensate: intent.compensate } : {}),
      };
      if (intent.effect === 'local') steps.undone.push(effect);
      else if (intent.compensate) steps.compensation.push(effect);
      else steps.cannotUndo.push(effect);
    }
    const now = Date.now();
    const grants: UnitRestorePreview['grants'] = [];
    for (const ref of checkpoint.grants ?? []) {
      const grant = this.keys ? await this.keys.getGrant(ref.id).catch(() => undefined) : undefined;
      grants.push({ ...ref, state: grant ? grantState(grant, now) : 'unknown' });
    }
    return {
      preview: {
        checkpoint,
        workspace: ws.id,
        dir: ws.dir,
        head,
        eventsAfter,
        eventsBack,
        files,
        grants,
        steps,
      },
      ws,
      moves,
    };
  }

  /**
   * Restores a unit checkpoint as a new operation: checkpoints the unit
   * first ("before restore", so the restore can be undone), moves the
   * branch head to the checkpoint wherever it sits in the session's tree
   * (back, or forward again after an earlier restore) and restores the
   * workspace to its snapshot. Everything a restore refuses is refused
   * before anything is recorded. Refused from a checkpoint whose checks
   * failed unless `allowUnaccepted`.
   */
  async restore(
    id: string,
    options: RestoreOptions = {},
  ): Promise<{ before: UnitCheckpoint; preview: UnitRestorePreview; undo: string }> {
    const { preview, ws, moves } = await this.planRestore(id, options);
    const { checkpoint } = preview;
    // One transaction: the "before" checkpoint and the head move, only while the head is where the
    // plan saw it — a concurrent append or restore makes this CONFLICT with nothing recorded.
    const before = await this.checkpointWith(
      { workspace: ws.id, label: `before restore of ${id}` },
      { ifHead: preview.head, ifMoves: moves, moveHeadTo: checkpoint.id },
    );
    await this.desk.restore(ws.id, checkpoint.snapshot);
    return { before, preview, undo: before.id };
  }

  /**
   * Forks the unit at a checkpoint into N branches (or the named ones), each
   * with its own log branch and its own workspace in `<dirRoot>/<branch>`.
   * A fork never copies a grant: `grants[i]` states the i-th branch's grants,
   * each narrowing a grant of the forked branch (checked before anything is
   * made); a branch given none has none.
   */
  async fork(
    id: string,
    input: {
      branches: number | string[];
      dirRoot: string;
      driver?: 'copy' | 'overlay';
      allowUnaccepted?: boolean;
      /** Per branch, in order: the grants it gets. Omitted or [] means none. */
      grants?: ForkGrant[][];
    },
  ): Promise<{
    checkpoint: UnitCheckpoint;
    branches: { branch: string; workspace: Workspace; grants: GrantRef[] }[];
  }> {
    const names = Array.isArray(input.branches) ? input.branches : null;
    const count = names ? names.length : input.branches;
    // Every name is checked before anything is made.
    for (const name of names ?? []) parseInput(BranchName, name, 'fork');
    if (names && new Set(names).size !== names.length)
      throw invalid('branch names of one fork must differ', { names });
    if (!Number.isSafeInteger(count) || (count as number) < 1 || (count as number) > MAX_FORK_BRANCHES) {
      throw invalid(`a fork makes 1 to ${MAX_FORK_BRANCHES} branches, not ${String(count)}`, {
        branches: count,
      });
    }
    const checkpoint = await this.get(id);
    if (!checkpoint.accepted && !input.allowUnaccepted) {
      throw conflict(
        `checkpoint ${id} is not accepted (a check failed): pass allowUnaccepted to fork it anyway`,
        {
          checkpoint: id,
        },
      );
    }
    const ws = await this.workspaceFor(checkpoint);
    const plans = await this.planGrants(checkpoint, input.grants ?? [], count as number);
    const out: { branch: string; workspace: Workspace; grants: GrantRef[] }[] = [];
    for (let i = 0; i < (count as number); i++) {
      // Generated names carry a random part: the same checkpoint may be forked again.
      const name = names?.[i] ?? `${checkpoint.branch}-try-${i + 1}-${randomHex(3)}`;
      const forked = await this.desk.fork(ws.id, {
        dir: join(input.dirRoot, name),
        branch: name,
        driver: input.driver,
        at: { snapshot: checkpoint.snapshot, event: checkpoint.id },
      });
      const grants: GrantRef[] = [];
      for (const plan of plans[i] ?? []) {
        const g = await (this.keys as UnitKeys).grant({ session: checkpoint.session, branch: name, ...plan });
        grants.push({ id: g.id, credential: g.credential, mode: g.mode, approval: g.approval });
      }
      out.push({ branch: forked.workspace.branch, workspace: forked.workspace, grants });
    }
    return { checkpoint, branches: out };
  }

  /**
   * Resolves each fork grant's parent (default: the forked branch's one
   * active grant on the credential) and checks it narrows that parent,
   * before any branch is made.
   */
  private async planGrants(
    checkpoint: UnitCheckpoint,
    grants: ForkGrant[][],
    count: number,
  ): Promise<ForkGrant[][]> {
    if (grants.length > count)
      throw invalid(`grants are stated for ${grants.length} branches, but the fork makes ${count}`);
    if (grants.every((g) => g.length === 0)) return grants;
    const keys = this.keys;
    if (!keys) throw invalid('this Units has no keys: it cannot issue grants to forks');
    // A member narrows only grants of a branch it owns (the keys layer checks it again per grant).
    if (keys.who.role !== 'admin') {
      const source = (await this.fabric.listBranches({ session: checkpoint.session })).find(
        (b) => b.name === checkpoint.branch,
      );
      if (source?.owner !== keys.who.principal)
        throw forbidden(
          `principal ${keys.who.principal} does not own branch ${checkpoint.branch}: only its owner or an admin may hand its grants to forks`,
          { branch: checkpoint.branch },
        );
    }
    const held = await keys.listGrants({ session: checkpoint.session, branch: checkpoint.branch });
    return Promise.all(
      grants.map((specs) =>
        Promise.all(
          specs.map(async (spec) => {
            const candidates = spec.parent
              ? [await keys.getGrant(spec.parent)]
              : held.filter((g) => g.credential === spec.credential && g.state === 'active');
            if (candidates.length > 1)
              throw invalid(
                `branch ${checkpoint.branch} holds ${candidates.length} active grants on ${spec.credential}: name the parent`,
                { grants: candidates.map((g) => g.id) },
              );
            const parent = candidates[0];
            if (!parent) {
              // No grant to narrow: only an admin may issue one from nothing (a root grant).
              if (keys.who.role !== 'admin')
                throw forbidden(
                  `branch ${checkpoint.branch} holds no grant on ${spec.credential} to narrow: ask an admin to grant it`,
                  { credential: spec.credential },
                );
              await keys.checkGrant({ ...spec, session: checkpoint.session });
              return spec;
            }
            const planned = { ...spec, parent: parent.id };
            await keys.checkGrant({ ...planned, session: checkpoint.session });
            return planned;
          }),
        ),
      ),
    );
  }

  /** The workspace bound to a branch of a session on this host. */
  private async branchWorkspace(session: string, branch: string): Promise<Workspace> {
    const ws = (await this.desk.listWorkspaces()).find(
      (w) => w.session === session && w.branch === branch && w.state === 'attached',
    );
    if (!ws)
      throw notFound(`branch ${branch} of session ${session} has no attached workspace`, {
        branch,
      });
    return ws;
  }

  /**
   * Marks a fork's winner: an event on the branch; its workspace stays. What
   * the branch remembered becomes its parent's (the branch of the workspace
   * it was forked from), from a new event on the parent.
   */
  async keep(session: string, branch: string): Promise<CairnEvent> {
    const ws = await this.branchWorkspace(session, branch);
    const kept = await this.fabric.keepBranch({ session, branch, workspace: ws.id });
    if (ws.forkedFrom !== '') {
      const parent = await this.desk.getWorkspace(ws.forkedFrom);
      if (parent.session === session && parent.branch !== branch)
        await this.fabric.carryMemory({ session, from: branch, to: parent.branch });
    }
    return kept;
  }

  /**
   * Marks a branch abandoned: after `ttlMs` its workspace may be reclaimed
   * (`reclaim`, run by `cairn gc`), then the branch itself is swept with the
   * events only it holds (`sweepBranches`, docs/design/retention.md). Until
   * then it stays readable, and `keep` takes the decision back.
   */
  async abandon(
    session: string,
    branch: string,
    ttlMs = DEFAULT_ABANDON_TTL_MS,
    now = Date.now(),
  ): Promise<CairnEvent> {
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 0)
      throw invalid(`ttl must be a whole number of milliseconds, not ${ttlMs}`);
    const ws = await this.branchWorkspace(session, branch);
    return this.fabric.abandonBranch({ session, branch, workspace: ws.id, expiresAt: now + ttlMs });
  }

  /**
   * Discards the workspaces of abandoned fork branches whose time ran out;
   * returns their ids (with `dryRun`, those it would discard, discarding nothing).
   */
  async reclaim(now = Date.now(), dryRun = false): Promise<ReclaimReport> {
    const reclaimed: string[] = [];
    const leftAlone: ReclaimReport['leftAlone'] = [];
    for (const ws of await this.desk.listWorkspaces()) {
      if (ws.state !== 'attached' || ws.forkedFrom === '') continue;
      // Only this workspace's own decisions count: a fork of an abandoned branch inherits its
      // events on the path, and must not be reclaimed for them.
      let last: CairnEvent | undefined;
      const { events } = await readAll((from) =>
        this.fabric.readBranch({ session: ws.session, branch: ws.branch, from, limit: 10_000 }),
      );
      for (const e of events) {
        const mine =
          e.branch === ws.branch && (e.payload as { workspace?: string } | null)?.workspace === ws.id;
        if (mine && (e.kind === UNIT_ABANDON_EVENT || e.kind === UNIT_KEEP_EVENT)) last = e;
      }
      if (last?.kind !== UNIT_ABANDON_EVENT) continue;
      if ((last.payload as { expiresAt: number }).expiresAt > now) continue;
      // A record says where a directory is, never that it may be deleted: another host's, or one this
      // desk did not create, is reported for its own desk and left as it is.
      const held = this.desk.holds(ws);
      if (!held.ok) {
        leftAlone.push({ workspace: ws.id, host: ws.host, dir: ws.dir, reason: held.reason });
        continue;
      }
      if (dryRun) {
        reclaimed.push(ws.id);
        continue;
      }
      await this.desk.detach(ws.id, { discard: true });
      // Its memory goes too, unless a branch still in use sees it (a fork made from it, say).
      const gone = new Set(
        (await this.desk.listWorkspaces())
          .filter((w) => w.session === ws.session && w.state === 'detached')
          .map((w) => w.branch),
      );
      const keepFor = (await this.fabric.listBranches({ session: ws.session }))
        .map((b) => b.name)
        .filter((name) => !gone.has(name));
      await this.fabric.dropBranchMemory({ session: ws.session, branch: ws.branch, keepFor });
      reclaimed.push(ws.id);
    }
    return { reclaimed, leftAlone };
  }

  /**
   * Where the layers disagree (drift): files changed since the workspace's
   * last snapshot outside any recorded step (found without recording
   * anything), steps in doubt, and — given probes by step name — recorded
   * steps the world contradicts.
   */
  async status(
    workspace: WorkspaceId,
    probes: Parameters<Journal['contradictions']>[0] = {},
  ): Promise<UnitStatus> {
    const ws = await this.desk.getWorkspace(workspace);
    const journal = await Journal.open(this.fabric, { session: ws.session, branch: ws.branch });
    const drift = await this.desk.diff({
      from: ws.headSnapshot,
      workspace: ws.id,
      patches: false,
      record: false,
    });
    const inDoubt = journal.inDoubt().map((s) => ({ position: s.position, name: s.name, key: s.key }));
    const contradicted = await journal.contradictions(probes);
    const unrecordedChanges = drift.map((d) => ({ path: d.path, change: d.change }));
    const endedGrants = this.keys ? await this.endedGrants(ws) : [];
    return {
      workspace: ws.id,
      session: ws.session,
      branch: ws.branch,
      unrecordedChanges,
      inDoubt,
      contradicted,
      endedGrants,
      clean:
        unrecordedChanges.length === 0 &&
        inDoubt.length === 0 &&
        contradicted.length === 0 &&
        endedGrants.length === 0,
    };
  }

  /**
   * Ended grants of a workspace's branch that a checkpoint on its path
   * recorded, or that it used. The log is read only when an ended grant was
   * never used (then only a checkpoint can show the branch relied on it).
   */
  private async endedGrants(ws: Workspace): Promise<UnitStatus['endedGrants']> {
    const ended = (
      await (this.keys as UnitKeys).listGrants({ session: ws.session, branch: ws.branch })
    ).filter((g) => g.state !== 'active');
    const recorded = new Set<string>();
    if (ended.some((g) => g.uses === 0)) {
      const { events } = await readAll((from) =>
        this.fabric.readBranch({ session: ws.session, branch: ws.branch, from, limit: 10_000 }),
      );
      for (const e of events) {
        if (e.kind !== UNIT_CHECKPOINT_EVENT) continue;
        for (const g of (e.payload as { grants?: GrantRef[] }).grants ?? []) recorded.add(g.id);
      }
    }
    return ended
      .filter((g) => g.uses > 0 || recorded.has(g.id))
      .map((g) => ({ id: g.id, credential: g.credential, mode: g.mode, state: g.state }));
  }
}

/**
 * A checkpoint is restored (or forked, from the CLI) only from its own
 * workspace: the caller's is another, so the refusal names both.
 */
export async function refuseOtherWorkspace(
  desk: Desk,
  checkpoint: UnitCheckpoint,
  ws: Workspace,
  /** How the caller's surface names a workspace (the CLI: `pass --ws ws_…`); default a tool's words. */
  nameIt: (workspace: string) => string = (w) => `name its workspace (${w})`,
): Promise<never> {
  const own = await desk.getWorkspace(checkpoint.workspace).catch(() => undefined);
  throw invalid(
    `checkpoint ${checkpoint.id} is of workspace ${checkpoint.workspace}${own ? ` (${own.dir})` : ''}, not of ${ws.id} (${ws.dir}) where you are: run it in ${own?.dir ?? 'its directory'}, or ${nameIt(checkpoint.workspace)}`,
    { checkpoint: checkpoint.id, workspace: ws.id, checkpointWorkspace: checkpoint.workspace },
  );
}
