/**
 * An artifact's lineage: checked against the store when it is published
 * (every part of it the caller's tenant's, the bytes the snapshot file's),
 * and walked both ways afterwards.
 */
import { fileAt } from '../desk/file-at.js';
import { invalidArgument, notFound } from '../errors.js';
import * as log from '../log/session-log.js';
import type { OpContext } from '../ops/op.js';
import { stepAt } from '../steps/lookup.js';
import { inBatches, placeholders } from '../storage/engine.js';
import type { Publish } from './artifacts.js';
import { type Artifact, type ArtifactRow, COLUMNS, liveRow, toArtifacts } from './rows.js';

/** The unit checkpoint's event kind (unit/unit.ts), as a lineage names it. */
const CHECKPOINT_EVENT = 'cairn.unit.checkpoint';

/** What a lineage names, checked against the store before anything is written. */
export interface CheckedLineage {
  snapshot: string;
  stepEvent: string;
  /** The snapshot file the bytes must be, when the lineage names one: its chunks and size. */
  file?: { chunks: string[]; size: number };
}

function notTheFile(input: Publish, snapshot: string, there: number, here: number) {
  return invalidArgument(
    `these bytes are not those of ${input.path} in snapshot ${snapshot} (${there} bytes there, ${here} here): publish the file as the snapshot holds it, or leave the snapshot out of the lineage`,
    { field: 'bytes' },
  );
}

/**
 * Checks every part of a lineage against the store, before any byte is
 * stored; `size`, when known, against the snapshot file's. The bytes
 * themselves are checked by {@link checkBytes} once they have arrived.
 */
export async function checkLineage(
  ctx: OpContext,
  input: Publish,
  size: number | undefined,
): Promise<CheckedLineage> {
  const who = ctx.who;
  let snapshot = input.snapshot ?? '';
  await ctx.read(async (tx) => {
    if ((await log.branchOwner(tx, who.tenant, input.session, input.branch)) === null)
      throw notFound(`session ${input.session} has no branch ${input.branch} in your tenant: check both`, {
        session: input.session,
        branch: input.branch,
      });
    if (input.checkpoint !== undefined) {
      const event = await log.getEvent(tx, who, input.checkpoint);
      if (event.kind !== CHECKPOINT_EVENT)
        throw invalidArgument(
          `event ${input.checkpoint} is a ${event.kind} event, not a unit checkpoint: pass a checkpoint's id (cairn unit checkpoints)`,
          { field: 'checkpoint' },
        );
      const recorded = (event.payload as { snapshot?: string } | null)?.snapshot ?? '';
      if (snapshot !== '' && recorded !== snapshot)
        throw invalidArgument(
          `checkpoint ${input.checkpoint} holds snapshot ${recorded || '(none)'}, not ${snapshot}: pass one of them, or both agreeing`,
          { field: 'snapshot' },
        );
      if (snapshot === '' && input.path !== undefined) {
        if (recorded === '')
          throw invalidArgument(
            `checkpoint ${input.checkpoint} holds no workspace snapshot to find ${input.path} in`,
            {
              field: 'path',
            },
          );
        snapshot = recorded;
      }
    }
    if (input.event !== undefined) await log.getEvent(tx, who, input.event);
    for (const id of input.inputs) await liveRow(tx, who.tenant, id);
  });
  let file: CheckedLineage['file'];
  if (input.path !== undefined) {
    const found = await fileAt(ctx, snapshot, input.path);
    if (size !== undefined && size !== found.size) throw notTheFile(input, snapshot, found.size, size);
    file = { chunks: found.chunks, size: found.size };
  }
  for (const f of input.inputFiles) await fileAt(ctx, f.snapshot, f.path);
  let stepEvent = '';
  if (input.step !== undefined) {
    const step = await stepAt(ctx, { session: input.session, branch: input.branch, position: input.step });
    if (!step)
      throw notFound(
        `branch ${input.branch} of session ${input.session} has no step at position ${input.step}`,
        {
          field: 'step',
        },
      );
    stepEvent = step.event;
  }
  return { snapshot, stepEvent, ...(file ? { file } : {}) };
}

/** The bytes, once arrived, are the snapshot file's the lineage names: chunk lists compared, nothing read back. */
export function checkBytes(input: Publish, lineage: CheckedLineage, chunks: string[], size: number): void {
  const file = lineage.file;
  if (!file) return;
  if (file.chunks.length !== chunks.length || file.chunks.some((c, i) => c !== chunks[i]))
    throw notTheFile(input, lineage.snapshot, file.size, size);
}

/** Walks the lineage both ways, `depth` generations each, breadth first (nearest first). */
export async function lineageOf(
  ctx: OpContext,
  input: { artifact: string; depth: number },
): Promise<{ artifact: Artifact; ancestors: Artifact[]; descendants: Artifact[] }> {
  const tenant = ctx.who.tenant;
  return ctx.read(async (tx) => {
    const root = await liveRow(tx, tenant, input.artifact);
    const walk = async (up: boolean): Promise<ArtifactRow[]> => {
      const seen = new Set<string>([root.id]);
      const found: ArtifactRow[] = [];
      let frontier = [root.id];
      for (let generation = 0; generation < input.depth && frontier.length > 0; generation++) {
        const next: string[] = [];
        await inBatches(frontier, async (slice) => {
          const marks = placeholders(slice.length);
          const rows = up
            ? await tx.all<{ id: string }>(
                `SELECT ref AS id FROM artifact_inputs WHERE tenant = ? AND kind = 'artifact' AND artifact IN (${marks}) ORDER BY ref`,
                [tenant, ...slice],
              )
            : await tx.all<{ id: string }>(
                `SELECT artifact AS id FROM artifact_inputs WHERE tenant = ? AND kind = 'artifact' AND ref IN (${marks}) ORDER BY artifact`,
                [tenant, ...slice],
              );
          for (const r of rows) {
            if (seen.has(r.id)) continue;
            seen.add(r.id);
            next.push(r.id);
          }
        });
        await inBatches(next, async (slice) => {
          found.push(
            ...(await tx.all<ArtifactRow>(
              `SELECT ${COLUMNS} FROM artifacts WHERE tenant = ? AND state = 'live' AND id IN (${placeholders(slice.length)}) ORDER BY id`,
              [tenant, ...slice],
            )),
          );
        });
        frontier = next;
      }
      return found;
    };
    const [artifact] = await toArtifacts(tx, tenant, [root]);
    return {
      artifact: artifact as Artifact,
      ancestors: await toArtifacts(tx, tenant, await walk(true)),
      descendants: await toArtifacts(tx, tenant, await walk(false)),
    };
  });
}
