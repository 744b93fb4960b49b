import { invalidArgument } from '../errors.js';
import type { SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import type { Dialect, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { removal } from './memory.js';
import { audit } from './rows.js';
import type { ForgetAnswer } from './schema.js';
import { visibility } from './visibility.js';

/**
 * An abandoned branch's memory goes with it: every record of the session
 * seen on `branch` and on none of `keepFor` (the session's branches still in
 * use) is forgotten. A record is judged whole: one with a version seen on a
 * branch that stays (a newer version written there) is kept.
 */
export async function dropBranch(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: { session: string; branch: string; keepFor: string[] },
  now: number,
): Promise<ForgetAnswer> {
  const scope = { session: input.session as SessionId };
  const on = await visibility(tx, dialect, who, scope, [input.branch], 'r');
  // Seen on none of keepFor: not seen on the union of their paths (one joined list, however many branches).
  const kept = await visibility(tx, dialect, who, scope, input.keepFor, 'r');
  const seenOn = await tx.all<{ id: string }>(`SELECT DISTINCT r.id FROM memory_records r WHERE ${on.sql}`, [
    ...on.params,
  ]);
  const stays = new Set(
    seenOn.length === 0
      ? []
      : (
          await tx.all<{ id: string }>(`SELECT DISTINCT r.id FROM memory_records r WHERE ${kept.sql}`, [
            ...kept.params,
          ])
        ).map((r) => r.id),
  );
  const answer = await removal(
    tx,
    dialect,
    who.tenant,
    seenOn.map((r) => r.id).filter((id) => !stays.has(id)),
    false,
  );
  if (answer.records.length > 0)
    await audit(
      tx,
      who,
      'memory.drop-branch',
      input.session,
      { branch: input.branch, records: answer.records },
      now,
    );
  return answer;
}

/** The log event that carries a kept branch's records to its parent (ids counted, no text). */
export const MEMORY_CARRY_EVENT = 'cairn.memory.carry';

/**
 * What a kept branch remembered becomes its parent's: every version of the
 * session seen on `from` and not on `to` is anchored, from now, at one new
 * event on `to` (so a restore of `to` to before it hides them again).
 */
export async function carry(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: { session: string; from: string; to: string },
  now: number,
): Promise<{ records: string[]; event: string }> {
  if (input.from === input.to)
    throw invalidArgument('a branch carries its memory to another branch, not to itself', {
      branch: input.from,
    });
  const seen = async (branch: string) =>
    visibility(tx, dialect, who, { session: input.session as SessionId }, [branch], 'r');
  const onFrom = await seen(input.from);
  const onTo = await seen(input.to);
  const rows = await tx.all<{ id: string; version: number }>(
    `SELECT r.id, r.version FROM memory_records r WHERE ${onFrom.sql} AND NOT (${onTo.sql}) ORDER BY r.n`,
    [...onFrom.params, ...onTo.params],
  );
  if (rows.length === 0) return { records: [], event: '' };
  const records = [...new Set(rows.map((r) => r.id))];
  const event = await log.appendEvent(
    tx,
    who,
    { session: input.session as SessionId, branch: input.to, kind: MEMORY_CARRY_EVENT, payload: null },
    log.encodePayload({ from: input.from, records: records.length, versions: rows.length }),
    now,
  );
  const at = await log.eventPosition(tx, who, event.id);
  for (const row of rows)
    await tx.run(
      'INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)',
      [who.tenant, row.id, row.version, event.id, at.line, at.seq],
    );
  await audit(tx, who, 'memory.carry', event.id, { from: input.from, to: input.to, records }, now);
  return { records, event: event.id };
}
