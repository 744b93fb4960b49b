import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { BlobStore } from '../blob/blob-store.js';
import { namedBlobs } from '../blob/named.js';
import { type CairnError, conflict, invalidArgument, notFound } from '../errors.js';
import { type Action, authorize } from '../identity/access-gate.js';
import type { EventId, SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import { type Engine, inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import type { CairnEvent, EventPage, Identity } from '../types.js';
import { digestOf } from './chunker.js';
import type { CommitAnswer, CommitInput, DeskStore, ForkInput, RefusedInput } from './desk-store.js';
import { RETRY } from './desk-store.js';
import { indexEntries, type PackEntry, packIndexOf, readPackIndex } from './pack-format.js';
import {
  insertSnapshot,
  insertWorkspace,
  lockDesk,
  SNAPSHOT_COLUMNS,
  type Snapshot,
  type SnapshotRow,
  snapshotRow,
  toSnapshot,
  toWorkspace,
  WORKSPACE_COLUMNS,
  type Workspace,
  type WorkspaceRow,
  workspaceRow,
} from './rows.js';

/** Where an object lies: its pack, its range, and whether the pack's bytes are in the database. */
export interface IndexRow {
  digest: string;
  kind: 'chunk' | 'tree';
  pack: string;
  off: number;
  len: number;
  /** 1 when the pack's bytes live in `desk_packs.bytes` rather than the blob store. */
  inline: number;
}

export async function findObjects(
  tx: SqlExecutor,
  tenant: string,
  digests: readonly string[],
): Promise<Map<string, IndexRow>> {
  const found = new Map<string, IndexRow>();
  await inBatches(digests, async (slice) => {
    // Joined with the pack, so an object whose pack row is gone counts as missing.
    const rows = await tx.all<IndexRow>(
      `SELECT o.digest, o.kind, o.pack, o.off, o.len, p.inline FROM desk_objects o
       JOIN desk_packs p ON p.tenant = o.tenant AND p.digest = o.pack
       WHERE o.tenant = ? AND o.digest IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    );
    for (const row of rows) {
      found.set(row.digest, {
        ...row,
        off: Number(row.off),
        len: Number(row.len),
        inline: Number(row.inline),
      });
    }
  });
  return found;
}

/** Indexes a pack's objects (an object already indexed keeps its place). */
async function insertObjects(
  tx: SqlExecutor,
  tenant: string,
  pack: string,
  entries: readonly PackEntry[],
): Promise<void> {
  await inBatches(entries, async (slice) => {
    await tx.run(
      `INSERT INTO desk_objects (tenant, digest, kind, pack, off, len) VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (tenant, digest) DO NOTHING`,
      slice.flatMap((e) => [tenant, e.digest, e.kind, pack, e.off, e.len]),
    );
  });
}

/** The most bytes one `getObjects` call reads and answers with (one object of any size is always served). */
export const READ_LIMIT = 64 * 1024 * 1024;

function retry(why: string, data: Record<string, unknown> = {}): CairnError {
  return conflict(`the workspace changed under this checkpoint (${why}): take it again`, {
    [RETRY]: why,
    ...data,
  });
}

/**
 * The store side of the desk over the store's own database and blobs: what
 * an embedded desk uses directly and `cairn serve` runs for remote ones.
 *
 * Write order (content first, pointer last): a pack is announced (its row
 * `writing`, its objects staged) and stored; only the transaction that
 * records a snapshot naming it moves its objects into the index and marks it
 * `live`. A crash anywhere before leaves an unreferenced pack GC removes.
 */
export class LocalDeskStore implements DeskStore {
  /** Where objects were last found (GC may move them: a miss looks again). */
  private readonly located = new Map<string, IndexRow>();

  constructor(
    readonly engine: Engine,
    readonly blobs: BlobStore,
    readonly who: Identity,
    private readonly now: () => number = Date.now,
  ) {}

  get tenant(): string {
    return this.who.tenant;
  }

  private read<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    authorize(this.who, action);
    return this.engine.read(this.tenant, fn);
  }

  private write<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    authorize(this.who, action);
    return this.engine.write(this.tenant, fn);
  }

  // ---- objects ----------------------------------------------------------------

  async missing(digests: readonly string[]): Promise<string[]> {
    const found = await this.read('desk.read', (tx) => findObjects(tx, this.tenant, digests));
    return digests.filter((d) => !found.has(d));
  }

  async getObjects(digests: readonly string[]): Promise<Buffer[]> {
    authorize(this.who, 'desk.read');
    const unknown = digests.filter((d) => !this.located.has(d));
    if (unknown.length > 0) {
      const found = await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, unknown));
      if (this.located.size > 100_000) this.located.clear();
      for (const row of found.values()) this.located.set(row.digest, row);
    }
    // One answer holds all of them at once: bounded, so no call can make the store read a gigabyte.
    const total = digests.reduce((sum, d) => sum + (this.located.get(d)?.len ?? 0), 0);
    if (digests.length > 1 && total > READ_LIMIT) {
      throw invalidArgument(
        `these ${digests.length} objects hold ${total} bytes, over ${READ_LIMIT} in one read: ask for fewer at once`,
        { limit: READ_LIMIT, bytes: total },
      );
    }
    const out: Buffer[] = [];
    for (const digest of digests) out.push(await this.objectBytes(digest));
    return out;
  }

  private async objectBytes(digest: string, again = true): Promise<Buffer> {
    const row = this.located.get(digest);
    if (!row) {
      throw notFound(`desk object ${digest} is not in the store: the snapshot that names it is damaged`, {
        digest,
      });
    }
    try {
      return row.inline
        ? await this.inlineRange(row)
        : await this.blobs.getRange(this.tenant, row.pack, row.off, row.len);
    } catch (error) {
      // GC may have repacked the object since it was located: look it up once more.
      this.located.delete(digest);
      if ((error as CairnError).code !== 'NOT_FOUND' || !again) throw error;
      const now = (await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, [digest]))).get(
        digest,
      );
      if (!now || (now.pack === row.pack && now.off === row.off)) throw error;
      this.located.set(digest, now);
      return this.objectBytes(digest, false);
    }
  }

  private async inlineRange(row: IndexRow): Promise<Buffer> {
    const found = await this.engine.read(this.tenant, (tx) =>
      tx.get<{ part: Buffer | null }>(
        'SELECT substr(bytes, ?, ?) AS part FROM desk_packs WHERE tenant = ? AND digest = ?',
        [row.off + 1, row.len, this.tenant, row.pack],
      ),
    );
    if (!found?.part) throw notFound(`desk pack ${row.pack} is gone`, { pack: row.pack });
    return Buffer.from(found.part);
  }

  async putPack(digest: string, bytes: Buffer): Promise<void> {
    readPackIndex(bytes);
    const index = Buffer.from(packIndexOf(bytes));
    await this.write('desk.write', async (tx) => {
      // Under the lock a blob is deleted under: a deleter either sees this row or deletes before it commits.
      await lockDesk(tx, this.tenant);
      const known = await tx.get<{ state: string }>(
        'SELECT state FROM desk_packs WHERE tenant = ? AND digest = ?',
        [this.tenant, digest],
      );
      if (known) return;
      await tx.run(
        `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline) VALUES (?, ?, 'writing', ?, ?, 0)`,
        [this.tenant, digest, bytes.length, this.now()],
      );
      await tx.run(
        'INSERT INTO desk_staged (tenant, pack, entries) VALUES (?, ?, ?) ON CONFLICT (tenant, pack) DO NOTHING',
        [this.tenant, digest, index],
      );
    });
    await this.blobs.put(this.tenant, bytes, digest);
  }

  async discardPacks(digests: readonly string[]): Promise<void> {
    if (digests.length === 0) return;
    // Rows first, under the desk lock, and only of packs no commit made live: a live pack's bytes are
    // never deleted here, whoever asks. Then the blobs of those packs, and of digests with no row at all
    // (a put cut off before its row, or a blob whose row GC took) — nothing indexed can point there.
    await this.write('desk.write', async (tx) => {
      await lockDesk(tx, this.tenant);
      const out: string[] = [];
      await inBatches(digests, async (slice) => {
        const list = placeholders(slice.length);
        const known = await tx.all<{ digest: string; state: string }>(
          `SELECT digest, state FROM desk_packs WHERE tenant = ? AND digest IN (${list})`,
          [this.tenant, ...slice],
        );
        const state = new Map(known.map((r) => [r.digest, r.state]));
        const writing = slice.filter((d) => state.get(d) === 'writing');
        out.push(...slice.filter((d) => !state.has(d)), ...writing);
        if (writing.length === 0) return;
        const wl = placeholders(writing.length);
        await tx.run(`DELETE FROM desk_packs WHERE tenant = ? AND state = 'writing' AND digest IN (${wl})`, [
          this.tenant,
          ...writing,
        ]);
        await tx.run(`DELETE FROM desk_staged WHERE tenant = ? AND pack IN (${wl})`, [
          this.tenant,
          ...writing,
        ]);
      });
      // A blob another feature names (an artifact's chunk) is theirs too (one blob space per tenant): it
      // stays. The rest go under the lock, so nothing can start naming one between this check and its deletion.
      const artifacts = await namedBlobs(tx, this.tenant, out, 'desk');
      for (const digest of out)
        if (!artifacts.has(digest)) await this.blobs.delete(this.tenant, digest).catch(() => undefined);
    });
  }

  // ---- the commit ---------------------------------------------------------------

  async commit(input: CommitInput): Promise<CommitAnswer> {
    authorize(this.who, 'desk.write');
    if (input.moveHeadTo !== undefined) authorize(this.who, 'branch.move');
    const inlineEntries = input.inline ? readPackIndex(input.inline) : [];
    const now = this.now();
    let appended: CairnEvent | undefined;
    const answer = await this.write('desk.write', async (tx) => {
      await lockDesk(tx, this.tenant);
      let ws: WorkspaceRow;
      if (input.attach) {
        let session = input.attach.session;
        if (session === undefined) {
          session = (
            await log.createSession(
              tx,
              this.who,
              { title: input.attach.path, meta: { workspace: input.workspace } },
              now,
            )
          ).id;
        } else await log.getSession(tx, this.who, session);
        ws = {
          tenant: this.tenant,
          id: input.workspace,
          host: input.attach.host,
          path: input.attach.path,
          session,
          branch: input.attach.branch,
          driver: 'plain',
          state: 'attached',
          base_snapshot: input.id,
          head_snapshot: input.id,
          forked_from: '',
          created_at: now,
        };
        await insertWorkspace(tx, ws);
      } else {
        ws = await workspaceRow(tx, this.tenant, input.workspace, tx.lockRows);
        if (ws.head_snapshot !== input.expectHead) throw retry('head moved', { head: ws.head_snapshot });
      }
      const missing = await this.reachable(tx, input, inlineEntries);
      if (missing.length > 0) throw retry('objects collected', { missing: missing.slice(0, 20) });
      if (input.ifHead !== undefined) {
        const head = await log.branchHead(tx, this.who, ws.session, ws.branch);
        const moves =
          input.ifMoves === undefined
            ? undefined
            : await log.branchMoves(tx, this.who, ws.session, ws.branch);
        if (head !== input.ifHead || moves !== input.ifMoves)
          throw conflict(
            head !== input.ifHead
              ? `branch ${ws.branch} moved (its head is ${head || '(root)'}, not ${input.ifHead}) while this ran: look again, then retry`
              : `branch ${ws.branch} moved away and back to ${head || '(root)'} while this ran: look again, then retry`,
            { branch: ws.branch, head, expected: input.ifHead },
          );
      }
      // Its event is appended next, and named in `recorded`.
      const row: Omit<SnapshotRow, 'event'> = {
        tenant: this.tenant,
        id: input.id,
        workspace: ws.id,
        kind: input.kind,
        root: input.root,
        parent: input.attach ? '' : input.expectHead,
        files: input.files,
        bytes: input.bytes,
        added_bytes: input.addedBytes,
        created_at: now,
      };
      const event = await log.appendEvent(
        tx,
        this.who,
        { session: ws.session, branch: ws.branch, kind: `cairn.ws.${input.kind}`, payload: null },
        log.encodePayload({
          ...input.payload,
          workspace: ws.id,
          snapshot: row.id,
          root: row.root,
          parent: row.parent,
          files: row.files,
          bytes: row.bytes,
        }),
        now,
      );
      const recorded: SnapshotRow = { ...row, event: event.id };
      if (input.also) {
        appended = await log.appendEvent(
          tx,
          this.who,
          { session: ws.session, branch: ws.branch, kind: input.also.kind, payload: null },
          log.encodePayload({ ...input.also.payload, snapshot: row.id, root: row.root, head: event.id }),
          now,
        );
      }
      if (input.moveHeadTo !== undefined) {
        await log.moveHead(
          tx,
          this.who,
          { session: ws.session, branch: ws.branch, to: input.moveHeadTo, ifHead: (appended ?? event).id },
          now,
        );
      }
      await insertSnapshot(tx, recorded);
      await tx.run('UPDATE desk_workspaces SET head_snapshot = ? WHERE tenant = ? AND id = ?', [
        row.id,
        this.tenant,
        ws.id,
      ]);
      return { snapshot: toSnapshot(recorded), workspace: toWorkspace({ ...ws, head_snapshot: row.id }) };
    });
    return { ...answer, ...(appended ? { appended } : {}) };
  }

  /**
   * Inside the commit: makes the snapshot's new objects reachable (the staged
   * objects of its packs, the objects of its inline pack) and checks that
   * every object it reuses is still held. Returns what is missing (a
   * concurrent GC took it, or a pack was never stored); the caller retries.
   */
  private async reachable(
    tx: SqlExecutor,
    input: CommitInput,
    inlineEntries: readonly PackEntry[],
  ): Promise<string[]> {
    const tenant = this.tenant;
    const fresh = new Set(inlineEntries.map((e) => e.digest));
    let live = 0;
    const packs = [...new Set(input.packs)];
    await inBatches(packs, async (slice) => {
      const list = placeholders(slice.length);
      // A pack GC took for abandoned (its grace ran out) has no row: it counts as missing.
      live += await tx.run(
        `UPDATE desk_packs SET state = 'live' WHERE tenant = ? AND inline = 0 AND digest IN (${list})`,
        [tenant, ...slice],
      );
      for (const staged of await tx.all<{ pack: string; entries: Buffer }>(
        `SELECT pack, entries FROM desk_staged WHERE tenant = ? AND pack IN (${list})`,
        [tenant, ...slice],
      )) {
        await insertObjects(tx, tenant, staged.pack, indexEntries(Buffer.from(staged.entries)));
      }
      await tx.run(`DELETE FROM desk_staged WHERE tenant = ? AND pack IN (${list})`, [tenant, ...slice]);
    });
    if (live !== packs.length) return packs;
    if (input.inline) {
      const inline = input.inline;
      const digest = digestOf(inline);
      const known = await tx.get<{ inline: number }>(
        'SELECT inline FROM desk_packs WHERE tenant = ? AND digest = ?',
        [tenant, digest],
      );
      if (known && Number(known.inline) !== 1)
        throw invalidArgument(
          `pack ${digest} was stored with putPack: name it in \`packs\`, not as the inline pack`,
          { pack: digest },
        );
      await tx.run(
        `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline, bytes) VALUES (?, ?, 'live', ?, ?, 1, ?)
         ON CONFLICT (tenant, digest) DO NOTHING`,
        [tenant, digest, inline.length, this.now(), inline],
      );
      await insertObjects(tx, tenant, digest, inlineEntries);
    }
    const expected = [...new Set([...input.reused, input.root])].filter((d) => !fresh.has(d));
    const present = await findObjects(tx, tenant, expected);
    const rootKind = fresh.has(input.root)
      ? inlineEntries.find((e) => e.digest === input.root)?.kind
      : present.get(input.root)?.kind;
    if (rootKind !== undefined && rootKind !== 'tree')
      throw invalidArgument(`root ${input.root} is a file chunk, not a tree: name the root tree`, {
        root: input.root,
      });
    return expected.filter((d) => !present.has(d));
  }

  // ---- workspaces and snapshots ---------------------------------------------------

  async workspace(id: string): Promise<Workspace> {
    return toWorkspace(await this.read('desk.read', (tx) => workspaceRow(tx, this.tenant, id)));
  }

  async head(id: string): Promise<{ workspace: Workspace; head: Snapshot }> {
    return this.read('desk.read', async (tx) => {
      const row = await workspaceRow(tx, this.tenant, id);
      return {
        workspace: toWorkspace(row),
        head: toSnapshot(await snapshotRow(tx, this.tenant, row.head_snapshot)),
      };
    });
  }

  async listWorkspaces(): Promise<Workspace[]> {
    const rows = await this.read('desk.read', (tx) =>
      tx.all<WorkspaceRow>(`SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? ORDER BY id`, [
        this.tenant,
      ]),
    );
    return rows.map(toWorkspace);
  }

  async attachedAt(host: string, paths: readonly string[]): Promise<Workspace[]> {
    if (paths.length === 0) return [];
    const rows = await this.read('desk.read', (tx) =>
      tx.all<WorkspaceRow>(
        `SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? AND host = ? AND state = 'attached'
         AND path IN (${placeholders(paths.length)})`,
        [this.tenant, host, ...paths],
      ),
    );
    return rows.map(toWorkspace);
  }

  async listSnapshots(workspace: string): Promise<Snapshot[]> {
    const rows = await this.read('desk.read', async (tx) => {
      await workspaceRow(tx, this.tenant, workspace);
      return tx.all<SnapshotRow>(
        `SELECT * FROM desk_snapshots WHERE tenant = ? AND workspace = ? ORDER BY created_at, id`,
        [this.tenant, workspace],
      );
    });
    return rows.map(toSnapshot);
  }

  async snapshot(id: string): Promise<Snapshot> {
    return toSnapshot(await this.read('desk.read', (tx) => snapshotRow(tx, this.tenant, id)));
  }

  /** The snapshots of these ids the tenant holds, in no particular order (an id it does not hold is left out). */
  async snapshots(ids: readonly string[]): Promise<Snapshot[]> {
    if (ids.length === 0) return [];
    const rows = await this.read('desk.read', async (tx) => {
      const found: SnapshotRow[] = [];
      await inBatches([...new Set(ids)], async (slice) => {
        found.push(
          ...(await tx.all<SnapshotRow>(
            `SELECT ${SNAPSHOT_COLUMNS} FROM desk_snapshots WHERE tenant = ? AND id IN (${placeholders(slice.length)})`,
            [this.tenant, ...slice],
          )),
        );
      });
      return found;
    });
    return rows.map(toSnapshot);
  }

  async fork(input: ForkInput): Promise<Workspace> {
    authorize(this.who, 'desk.write');
    authorize(this.who, 'branch.fork');
    const now = this.now();
    return this.write('desk.write', async (tx) => {
      await lockDesk(tx, this.tenant);
      const from = await workspaceRow(tx, this.tenant, input.from);
      const base = await snapshotRow(tx, this.tenant, input.baseSnapshot);
      const owner = base.workspace === from.id ? from : await workspaceRow(tx, this.tenant, base.workspace);
      if (owner.session !== from.session) {
        throw invalidArgument(
          `snapshot ${base.id} belongs to session ${owner.session}, not ${from.session}`,
          { snapshot: base.id },
        );
      }
      const branch = await log.forkBranch(
        tx,
        this.who,
        {
          session: from.session,
          ...(input.at !== undefined ? { at: input.at } : { from: from.branch }),
          name: input.branch,
        },
        now,
      );
      const row: WorkspaceRow = {
        tenant: this.tenant,
        id: input.id,
        host: input.host,
        path: input.path,
        session: from.session,
        branch: branch.name,
        driver: input.driver,
        state: 'attached',
        base_snapshot: base.id,
        head_snapshot: base.id,
        forked_from: from.id,
        created_at: now,
      };
      await insertWorkspace(tx, row);
      return toWorkspace(row);
    });
  }

  async detach(id: string): Promise<Workspace> {
    return this.write('desk.write', async (tx) => {
      const row = await workspaceRow(tx, this.tenant, id);
      await tx.run(`UPDATE desk_workspaces SET state = 'detached' WHERE tenant = ? AND id = ?`, [
        this.tenant,
        id,
      ]);
      return toWorkspace({ ...row, state: 'detached' });
    });
  }

  async refused(input: RefusedInput): Promise<void> {
    const row = await this.workspace(input.workspace);
    await this.write('desk.write', async (tx) => {
      await appendAudit(tx, {
        tenant: this.tenant,
        actor: this.who.principal,
        chain: actorChain(this.who),
        action: 'desk.refused',
        resourceType: 'workspace',
        resourceId: row.id,
        payload: { action: input.action, reason: input.reason, host: input.host, dir: input.dir },
        at: this.now(),
      });
    });
  }

  // ---- the log, as the desk needs it ------------------------------------------------

  async checkSession(id: string): Promise<void> {
    await this.read('session.read', (tx) => log.getSession(tx, this.who, id));
  }

  getEvent(id: EventId): Promise<CairnEvent> {
    return this.read('log.read', (tx) => log.getEvent(tx, this.who, id));
  }

  readBranch(input: { session: SessionId; branch: string; from: number; limit: number }): Promise<EventPage> {
    return this.read('log.read', (tx) => log.readBranch(tx, this.who, input));
  }
}
