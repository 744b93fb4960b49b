/**
 * Artifacts: a deliverable's bytes as chunks (blobs of the tenant, cut as the
 * desk cuts files, so equal content is stored once per tenant), its record
 * and its lineage, each part of which is checked when it is published.
 * docs/design/artifacts.md gives the rules. This file publishes, reads,
 * removes and sweeps; ./lineage.ts checks and walks lineage, ./rows.ts turns
 * rows into answers, ./putter.ts stores a publication's chunks, ./quota.ts
 * keeps the tenant's quota (only src/artifacts/ names the feature's tables).
 *
 * Publishing streams the content (it is never held whole), in three steps,
 * so nothing acknowledged is lost and nothing stored is left unowned:
 *   1. under the tenant's lock: the record is written as `writing`, its
 *      declared size (when there is one) checked against the quota;
 *   2. as the content arrives, cut into chunks: under the lock, a batch's
 *      chunk rows and the size so far (the quota checked again, counting
 *      publications under way); then that batch's chunks are stored as
 *      blobs (a chunk the tenant holds already is a no-op);
 *   3. under the lock again: the record goes `live` with its log event and
 *      audit entry, in one transaction.
 * A blob is deleted only under the same lock, and only when no chunk row
 * names it: a publication's rows commit before its blobs are stored, so a
 * sweep never takes a chunk a publication still needs. A writer killed
 * between 1 and 3 leaves a `writing` record that `sweepArtifacts` removes
 * once it has made no progress for a grace period.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { BlobStore } from '../blob/blob-store.js';
import { deleteUnnamed } from '../blob/named.js';
import { type ContentAnswer, MAX_CONTENT_BYTES } from '../contract/spec.js';
import type { StreamChunk } from '../desk/chunker.js';
import { forbidden, invalidArgument, isCairnError, unavailable } from '../errors.js';
import { lockTenant } from '../identity/identity-store.js';
import { newId } from '../ids.js';
import * as log from '../log/session-log.js';
import type { OpContext } from '../ops/op.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import type { PublishArtifactInput } from './contract.js';
import { checkBytes, checkLineage } from './lineage.js';
import { BATCH_BYTES, chunksOf, Putter, ROWS_AT_ONCE } from './putter.js';
import { checkQuota } from './quota.js';
import { type Artifact, type ArtifactRow, COLUMNS, liveRow, toArtifacts } from './rows.js';

export type Publish = z.output<typeof PublishArtifactInput>;

/** The event kind that records a publication on its branch. */
export const ARTIFACT_EVENT = 'cairn.artifact';
function blobsOf(ctx: OpContext): BlobStore {
  if (!ctx.blobs)
    throw unavailable("this fabric was opened without the store's blobs: open it with Store.fabric", {});
  return ctx.blobs;
}

function sizeMismatch(declared: number, got: number) {
  return invalidArgument(
    `the content is ${got > declared ? 'longer than' : `${got} bytes, not`} the ${declared} bytes its size declares: send the size of what you send`,
    { field: 'size' },
  );
}

/**
 * Publishes an artifact: checks its lineage, then stores its content as it
 * arrives — chunk rows committed a batch at a time under the tenant's lock
 * (its quota checked against the bytes so far), each batch's chunks stored
 * after its rows — and records it live (see the steps above).
 */
export async function publish(ctx: OpContext, input: Publish): Promise<Artifact> {
  const who = ctx.who;
  const blobs = blobsOf(ctx);
  const known = input.bytes instanceof Uint8Array ? input.bytes.length : undefined;
  if (known !== undefined && input.size !== undefined && known !== input.size)
    throw sizeMismatch(input.size, known);
  const declared = known ?? input.size;
  const id = newId('artifact');
  const source = input.bytes instanceof Uint8Array ? input.bytes : input.bytes[Symbol.asyncIterator]();
  const putter = new Putter(blobs, who.tenant);
  try {
    const lineage = await checkLineage(ctx, input, declared);
    // 1. The record, `writing`, its declared size (if any) held against the quota before a byte is stored.
    await ctx.write(async (tx, now) => {
      await lockTenant(tx, who.tenant);
      await tx.run(
        `INSERT INTO artifacts (tenant, ${COLUMNS}) VALUES (?, ?, 'writing', ?, ?, ?, ?, '', ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          who.tenant,
          id,
          input.name,
          input.mediaType,
          input.description,
          declared ?? 0,
          input.session,
          input.branch,
          input.checkpoint ?? '',
          lineage.snapshot,
          input.path ?? '',
          input.step ?? null,
          lineage.stepEvent,
          input.event ?? '',
          who.principal,
          now,
          null,
        ],
      );
      await checkQuota(tx, who.tenant, declared ?? 0, declared !== undefined);
    });
    // 2. The content as it arrives: each batch's rows (and the size so far) first, then its chunks.
    const whole = createHash('sha256');
    const digests: string[] = [];
    let size = 0;
    let batch: (StreamChunk & { idx: number })[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      batchBytes = 0;
      const held = Math.max(size, declared ?? 0);
      await ctx.write(async (tx, now) => {
        await lockTenant(tx, who.tenant);
        // Progress keeps a sweep off a slow publication: its grace counts from the last batch.
        const moved = await tx.run(
          "UPDATE artifacts SET size = ?, created_at = ? WHERE tenant = ? AND id = ? AND state = 'writing'",
          [held, now, who.tenant, id],
        );
        if (moved !== 1) throw swept(id);
        await checkQuota(tx, who.tenant, held, declared !== undefined);
        await tx.run(
          `INSERT INTO artifact_chunks (tenant, artifact, idx, digest, off, len) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
          rows.flatMap((c) => [who.tenant, id, c.idx, c.digest, c.offset, c.bytes.length]),
        );
      });
      for (const c of rows) await putter.put(c);
    };
    for await (const chunk of chunksOf(source)) {
      whole.update(chunk.bytes);
      size += chunk.bytes.length;
      if (declared !== undefined && size > declared) throw sizeMismatch(declared, size);
      batch.push(Object.assign(chunk, { idx: digests.length }));
      digests.push(chunk.digest);
      batchBytes += chunk.bytes.length;
      if (batch.length >= ROWS_AT_ONCE || batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
    await putter.done();
    if (declared !== undefined && size !== declared) throw sizeMismatch(declared, size);
    checkBytes(input, lineage, digests, size);
    const digest = whole.digest('hex');
    // 3. Live, with its inputs, its event on the branch and its audit entry, in one transaction.
    return await ctx.write(async (tx, now) => {
      await lockTenant(tx, who.tenant);
      for (const input_ of input.inputs) await liveRow(tx, who.tenant, input_);
      const inputs = [
        ...new Set(input.inputs.map((ref) => `artifact\u0000${ref}\u0000`)),
        ...new Set(input.inputFiles.map((f) => `snapshot\u0000${f.snapshot}\u0000${f.path}`)),
      ].map((k) => k.split('\u0000') as [string, string, string]);
      for (const [kind, ref, path] of inputs)
        await tx.run(
          'INSERT INTO artifact_inputs (tenant, artifact, kind, ref, path) VALUES (?, ?, ?, ?, ?)',
          [who.tenant, id, kind, ref, path],
        );
      const event = await log.appendOwnEvent(
        tx,
        who,
        { session: input.session, branch: input.branch, kind: ARTIFACT_EVENT, payload: null },
        log.encodePayload({ artifact: id, name: input.name, mediaType: input.mediaType, size, digest }),
        now,
      );
      const made = await tx.run(
        "UPDATE artifacts SET state = 'live', size = ?, digest = ?, event = ?, created_at = ?, expires_at = ? WHERE tenant = ? AND id = ? AND state = 'writing'",
        [size, digest, event.id, now, input.ttlMs === undefined ? null : now + input.ttlMs, who.tenant, id],
      );
      if (made !== 1) throw swept(id);
      await checkQuota(tx, who.tenant, size, true);
      await appendAudit(tx, {
        tenant: who.tenant,
        actor: who.principal,
        chain: actorChain(who),
        action: 'artifact.publish',
        resourceType: 'artifact',
        resourceId: id,
        payload: { name: input.name, mediaType: input.mediaType, size, digest, event: event.id },
        at: now,
      });
      const [artifact] = await toArtifacts(tx, who.tenant, [await liveRow(tx, who.tenant, id)]);
      return artifact as Artifact;
    });
  } catch (error) {
    // Nothing of a failed publication stays: its record, its rows, and the chunks only it held — once
    // every put started has stopped, and the content's source is let go. A commit whose outcome is
    // unknown (IN_DOUBT) may have made it live: it is left as it is, for the sweep to take if it is not.
    await putter.settled();
    if (!(source instanceof Uint8Array)) {
      await source.return?.().catch(() => undefined);
      // A stream never started ignores `return`: one that can be destroyed (a file's) is, so it lets go of its file.
      (input.bytes as { destroy?: () => void }).destroy?.();
    }
    if (!isCairnError(error, 'IN_DOUBT'))
      await discard(ctx.engine, blobs, who.tenant, [id], WRITING, () => Promise.resolve()).catch(
        () => undefined,
      );
    throw error;
  }
}

/** A publication still being written (its own failure's cleanup), and a live artifact (a removal). */
const WRITING = { sql: "state = 'writing'", values: [] };
const LIVE = { sql: "state = 'live'", values: [] };

/** A sweep took a publication for a killed writer's (no progress for longer than its grace): nothing of it is left. */
function swept(id: string) {
  return unavailable(
    `publication ${id} was swept before it finished (no progress for longer than the sweep's grace): publish again`,
    { artifact: id },
  );
}

/**
 * Removes the artifacts of `ids` that still meet `still` (a condition on
 * their row, checked under the tenant's lock: what a caller read before may
 * have changed) — records and rows, `audit` recording them in the same
 * transaction — then deletes each chunk no row of any feature names. The
 * rows go first, in a transaction of their own: a failure or a crash after
 * it leaves blobs nothing names (a leak the blob GC takes), never an
 * artifact missing its bytes. The blobs go under the tenant's lock,
 * re-checked there: a publication naming one of them either committed its
 * rows first (the blob stays) or stores it again after. Returns the ids
 * removed and the bytes freed.
 */
async function discard(
  engine: OpContext['engine'],
  blobs: BlobStore,
  tenant: string,
  ids: readonly string[],
  still: { sql: string; values: (string | number)[] },
  audit: (tx: SqlExecutor, now: number, removed: string[]) => Promise<void>,
): Promise<{ removed: string[]; freed: number }> {
  if (ids.length === 0) return { removed: [], freed: 0 };
  const { removed, digests } = await engine.write(tenant, async (tx) => {
    await lockTenant(tx, tenant);
    const removed: string[] = [];
    const digests = new Map<string, number>();
    await inBatches([...ids], async (candidates) => {
      const slice = (
        await tx.all<{ id: string }>(
          `SELECT id FROM artifacts WHERE tenant = ? AND id IN (${placeholders(candidates.length)}) AND ${still.sql}`,
          [tenant, ...candidates, ...still.values],
        )
      ).map((r) => r.id);
      if (slice.length === 0) return;
      removed.push(...slice);
      const marks = placeholders(slice.length);
      for (const r of await tx.all<{ digest: string; len: number }>(
        `SELECT digest, len FROM artifact_chunks WHERE tenant = ? AND artifact IN (${marks})`,
        [tenant, ...slice],
      ))
        digests.set(r.digest, Number(r.len));
      for (const table of ['artifact_chunks', 'artifact_inputs'])
        await tx.run(`DELETE FROM ${table} WHERE tenant = ? AND artifact IN (${marks})`, [tenant, ...slice]);
      await tx.run(`DELETE FROM artifacts WHERE tenant = ? AND id IN (${marks})`, [tenant, ...slice]);
    });
    if (removed.length > 0) await audit(tx, Date.now(), removed);
    return { removed, digests };
  });
  // A chunk another artifact names stays; so does one another feature names (a desk pack): one blob space.
  const deleted = await deleteUnnamed(engine, blobs, tenant, [...digests.keys()]);
  return { removed, freed: deleted.reduce((bytes, digest) => bytes + (digests.get(digest) ?? 0), 0) };
}

export async function getArtifact(ctx: OpContext, id: string): Promise<Artifact> {
  return ctx.read(async (tx) => {
    const [artifact] = await toArtifacts(tx, ctx.who.tenant, [await liveRow(tx, ctx.who.tenant, id)]);
    return artifact as Artifact;
  });
}

export async function listArtifacts(
  ctx: OpContext,
  input: { session?: string; limit: number; after?: string },
): Promise<{ artifacts: Artifact[]; next: string | null }> {
  const tenant = ctx.who.tenant;
  return ctx.read(async (tx) => {
    const where = ['tenant = ?', "state = 'live'"];
    const values: (string | number)[] = [tenant];
    if (input.session !== undefined) {
      where.push('session = ?');
      values.push(input.session);
    }
    if (input.after !== undefined) {
      where.push('id > ?');
      values.push(input.after);
    }
    const rows = await tx.all<ArtifactRow>(
      `SELECT ${COLUMNS} FROM artifacts WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
      [...values, input.limit + 1],
    );
    const page = rows.slice(0, input.limit);
    return {
      artifacts: await toArtifacts(tx, tenant, page),
      next: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null,
    };
  });
}

/** Reads `length` bytes from `offset`: whole chunks re-hashed, the edges read as ranges of their chunk. */
export async function readArtifact(
  ctx: OpContext,
  input: { artifact: string; offset: number; length?: number },
): Promise<ContentAnswer> {
  const tenant = ctx.who.tenant;
  const blobs = blobsOf(ctx);
  // The record and its chunk rows in one read: a removal between the two cannot shorten the answer.
  const { row, size, end, chunks } = await ctx.read(async (tx) => {
    const row = await liveRow(tx, tenant, input.artifact);
    const size = Number(row.size);
    if (input.offset > size)
      throw invalidArgument(
        `offset ${input.offset} is past the end of artifact ${input.artifact} (${size} bytes): ask for a range inside it`,
        { field: 'offset', size },
      );
    if (input.length === undefined && size - input.offset > MAX_READ)
      throw invalidArgument(
        `artifact ${input.artifact} has ${size - input.offset} bytes from offset ${input.offset}, more than one read returns (${MAX_READ}): pass a length and read it in ranges`,
        { field: 'length', size },
      );
    const end = Math.min(size, input.offset + (input.length ?? MAX_READ));
    const chunks = await tx.all<{ digest: string; off: number; len: number }>(
      'SELECT digest, off, len FROM artifact_chunks WHERE tenant = ? AND artifact = ? AND off < ? AND off + len > ? ORDER BY idx',
      [tenant, input.artifact, end, input.offset],
    );
    return { row, size, end, chunks };
  });
  const parts: Buffer[] = [];
  for (const c of chunks) {
    const off = Number(c.off);
    const len = Number(c.len);
    const from = Math.max(input.offset, off) - off;
    const to = Math.min(end, off + len) - off;
    if (to <= from) continue;
    parts.push(
      from === 0 && to === len
        ? await blobs.get(tenant, c.digest)
        : await blobs.getRange(tenant, c.digest, from, to - from),
    );
  }
  return {
    bytes: Buffer.concat(parts),
    offset: input.offset,
    size,
    mediaType: row.media_type,
    digest: row.digest,
  };
}

/** The most one read returns: 64 MiB. */
export const MAX_READ = MAX_CONTENT_BYTES;

/** Removes an artifact: its publisher or an admin of the tenant. */
export async function removeArtifact(ctx: OpContext, id: string): Promise<{ ok: true }> {
  const who = ctx.who;
  const row = await ctx.read((tx) => liveRow(tx, who.tenant, id));
  if (row.owner !== who.principal && who.role !== 'admin')
    throw forbidden(
      `artifact ${id} was published by ${row.owner}: only its publisher or an admin of the tenant may remove it`,
      { action: 'artifact.write', principal: who.principal },
    );
  // Only while it is live: a removal racing another, or a sweep, removes and audits it once.
  await discard(ctx.engine, blobsOf(ctx), who.tenant, [id], LIVE, (tx, now) =>
    appendAudit(tx, {
      tenant: who.tenant,
      actor: who.principal,
      chain: actorChain(who),
      action: 'artifact.remove',
      resourceType: 'artifact',
      resourceId: id,
      payload: { name: row.name, size: Number(row.size), digest: row.digest },
      at: now,
    }).then(() => undefined),
  );
  return { ok: true };
}

/**
 * The tenant's retention: artifacts past their TTL, and publications left
 * `writing` longer than `graceMs` (a killed writer's), are removed with the
 * chunks only they held. Their workspaces have nothing to do with it.
 */
export async function sweepArtifacts(
  ctx: OpContext,
  input: { graceMs: number },
): Promise<{ expired: number; abandoned: number; freedBytes: number }> {
  const who = ctx.who;
  const now = Date.now();
  const [expired, abandoned] = await ctx.read(async (tx) => [
    await tx.all<{ id: string; name: string; size: number }>(
      "SELECT id, name, size FROM artifacts WHERE tenant = ? AND state = 'live' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY id",
      [who.tenant, now],
    ),
    await tx.all<{ id: string }>(
      "SELECT id FROM artifacts WHERE tenant = ? AND state = 'writing' AND created_at < ? ORDER BY id",
      [who.tenant, now - input.graceMs],
    ),
  ]);
  // Each condition again under the lock: a publication that went live or made progress since the read
  // above, or an artifact removed meanwhile, is left alone.
  const gone = await discard(
    ctx.engine,
    blobsOf(ctx),
    who.tenant,
    expired.map((r) => r.id),
    { sql: "state = 'live' AND expires_at IS NOT NULL AND expires_at <= ?", values: [now] },
    async (tx, at, removed) => {
      const taken = new Set(removed);
      for (const r of expired.filter((e) => taken.has(e.id)))
        await appendAudit(tx, {
          tenant: who.tenant,
          actor: who.principal,
          chain: actorChain(who),
          action: 'artifact.expire',
          resourceType: 'artifact',
          resourceId: r.id,
          payload: { name: r.name, size: Number(r.size) },
          at,
        });
    },
  );
  const left = await discard(
    ctx.engine,
    blobsOf(ctx),
    who.tenant,
    abandoned.map((r) => r.id),
    { sql: "state = 'writing' AND created_at < ?", values: [now - input.graceMs] },
    () => Promise.resolve(),
  );
  return {
    expired: gone.removed.length,
    abandoned: left.removed.length,
    freedBytes: gone.freed + left.freed,
  };
}
