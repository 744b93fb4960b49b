/**
 * What no store may hold after a branch sweep, or at any time (issue 22,
 * retention): a reference to a row that is not there. Each check is one SQL
 * query over the tenant's rows, naming what points at what; the answer is
 * every dangling reference found (empty when there is none).
 */
import type { Engine } from '../../src/storage/engine.js';

/**
 * `what`: rows of `table` whose `column` (when not '') names no row of
 * `target` by `key` (with `match`, more columns that must agree, as
 * `column = target column`).
 */
function pointer(
  what: string,
  table: string,
  column: string,
  target: string,
  key = 'id',
  match: readonly [string, string][] = [],
  ref = 'id',
): [string, string] {
  const agree = match.map(([mine, theirs]) => ` AND t.${theirs} = x.${mine}`).join('');
  return [
    what,
    `SELECT x.${ref} AS ref FROM ${table} x WHERE x.tenant = ? AND x.${column} <> ''
     AND NOT EXISTS (SELECT 1 FROM ${target} t WHERE t.tenant = x.tenant AND t.${key} = x.${column}${agree})`,
  ];
}

const CHECKS: readonly [what: string, sql: string][] = [
  pointer('branch head names no event', 'branches', 'head', 'events'),
  pointer('branch head line names no line', 'branches', 'head_line', 'lines'),
  pointer('branch of no session', 'branches', 'session', 'sessions'),
  pointer('line based on no line', 'lines', 'base_line', 'lines'),
  pointer('event on no line', 'events', 'line', 'lines'),
  pointer('event whose parent is gone', 'events', 'parent', 'events'),
  pointer('ref log of no branch', 'ref_log', 'branch', 'branches', 'id', [], 'branch'),
  pointer('memory anchor at no event', 'memory_anchors', 'event', 'events'),
  pointer('workspace of no branch', 'desk_workspaces', 'branch', 'branches', 'name', [
    ['session', 'session'],
  ]),
  pointer('workspace at no head snapshot', 'desk_workspaces', 'head_snapshot', 'desk_snapshots'),
  pointer('workspace at no base snapshot', 'desk_workspaces', 'base_snapshot', 'desk_snapshots'),
  pointer('snapshot of no workspace', 'desk_snapshots', 'workspace', 'desk_workspaces'),
  pointer('snapshot whose event is gone', 'desk_snapshots', 'event', 'events'),
  pointer('snapshot whose parent is gone', 'desk_snapshots', 'parent', 'desk_snapshots'),
  pointer('grant of no branch', 'key_grants', 'branch', 'branches', 'name', [['session', 'session']]),
  pointer('grant narrowing no grant', 'key_grants', 'parent', 'key_grants'),
  pointer('approval under no grant', 'key_approvals', 'grant_id', 'key_grants'),
  ...['event', 'checkpoint', 'step_event', 'source_event'].map((column) =>
    pointer(`artifact whose ${column} is gone`, 'artifacts', column, 'events'),
  ),
  pointer('artifact whose snapshot is gone', 'artifacts', 'snapshot', 'desk_snapshots'),
  [
    'artifact input snapshot is gone',
    `SELECT i.artifact AS ref FROM artifact_inputs i WHERE i.tenant = ? AND i.kind = 'snapshot'
     AND NOT EXISTS (SELECT 1 FROM desk_snapshots s WHERE s.tenant = i.tenant AND s.id = i.ref)`,
  ],
];

/** Every dangling reference in the tenant's rows, as `what: id`. */
export async function danglingReferences(engine: Engine, tenant: string): Promise<string[]> {
  return engine.read(tenant, async (tx) => {
    const found: string[] = [];
    for (const [what, sql] of CHECKS)
      for (const row of await tx.all<{ ref: string }>(sql, [tenant])) found.push(`${what}: ${row.ref}`);
    return found;
  });
}
