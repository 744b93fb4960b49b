/**
 * What no store may hold after a branch sweep, or at any time (issue 22,
 * retention): a reference to a row that is not there. Each check is one SQL
 * query over the tenant's rows, naming what points at what; the answer is
 * every dangling reference found (empty when there is none).
 */
import type { Engine } from '../../src/storage/engine.js';

const CHECKS: readonly [what: string, sql: string][] = [
  [
    'branch head names no event',
    `SELECT b.id AS ref FROM branches b WHERE b.tenant = ? AND b.head <> ''
     AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant = b.tenant AND e.id = b.head)`,
  ],
  [
    'branch head line names no line',
    `SELECT b.id AS ref FROM branches b WHERE b.tenant = ? AND b.head_line <> ''
     AND NOT EXISTS (SELECT 1 FROM lines l WHERE l.tenant = b.tenant AND l.id = b.head_line)`,
  ],
  [
    'branch of no session',
    `SELECT b.id AS ref FROM branches b WHERE b.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.tenant = b.tenant AND s.id = b.session)`,
  ],
  [
    'line based on no line',
    `SELECT l.id AS ref FROM lines l WHERE l.tenant = ? AND l.base_line <> ''
     AND NOT EXISTS (SELECT 1 FROM lines b WHERE b.tenant = l.tenant AND b.id = l.base_line)`,
  ],
  [
    'event on no line',
    `SELECT e.id AS ref FROM events e WHERE e.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM lines l WHERE l.tenant = e.tenant AND l.id = e.line)`,
  ],
  [
    'event whose parent is gone',
    `SELECT e.id AS ref FROM events e WHERE e.tenant = ? AND e.parent <> ''
     AND NOT EXISTS (SELECT 1 FROM events p WHERE p.tenant = e.tenant AND p.id = e.parent)`,
  ],
  [
    'ref log of no branch',
    `SELECT r.branch AS ref FROM ref_log r WHERE r.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.tenant = r.tenant AND b.id = r.branch)`,
  ],
  [
    'memory anchor at no event',
    `SELECT a.id AS ref FROM memory_anchors a WHERE a.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant = a.tenant AND e.id = a.event)`,
  ],
  [
    'workspace of no branch',
    `SELECT w.id AS ref FROM desk_workspaces w WHERE w.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.tenant = w.tenant AND b.session = w.session AND b.name = w.branch)`,
  ],
  [
    'workspace at no snapshot',
    `SELECT w.id AS ref FROM desk_workspaces w WHERE w.tenant = ?
     AND ((w.head_snapshot <> '' AND NOT EXISTS (SELECT 1 FROM desk_snapshots s WHERE s.tenant = w.tenant AND s.id = w.head_snapshot))
       OR (w.base_snapshot <> '' AND NOT EXISTS (SELECT 1 FROM desk_snapshots s WHERE s.tenant = w.tenant AND s.id = w.base_snapshot)))`,
  ],
  [
    'snapshot of no workspace',
    `SELECT s.id AS ref FROM desk_snapshots s WHERE s.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM desk_workspaces w WHERE w.tenant = s.tenant AND w.id = s.workspace)`,
  ],
  [
    'snapshot whose event is gone',
    `SELECT s.id AS ref FROM desk_snapshots s WHERE s.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant = s.tenant AND e.id = s.event)`,
  ],
  [
    'grant of no branch',
    `SELECT g.id AS ref FROM key_grants g WHERE g.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.tenant = g.tenant AND b.session = g.session AND b.name = g.branch)`,
  ],
  [
    'grant narrowing no grant',
    `SELECT g.id AS ref FROM key_grants g WHERE g.tenant = ? AND g.parent <> ''
     AND NOT EXISTS (SELECT 1 FROM key_grants p WHERE p.tenant = g.tenant AND p.id = g.parent)`,
  ],
  [
    'snapshot whose parent is gone',
    `SELECT s.id AS ref FROM desk_snapshots s WHERE s.tenant = ? AND s.parent <> ''
     AND NOT EXISTS (SELECT 1 FROM desk_snapshots p WHERE p.tenant = s.tenant AND p.id = s.parent)`,
  ],
  [
    'approval under no grant',
    `SELECT a.id AS ref FROM key_approvals a WHERE a.tenant = ?
     AND NOT EXISTS (SELECT 1 FROM key_grants g WHERE g.tenant = a.tenant AND g.id = a.grant_id)`,
  ],
  ...['event', 'checkpoint', 'step_event', 'source_event'].map((column): [string, string] => [
    `artifact whose ${column} is gone`,
    `SELECT a.id AS ref FROM artifacts a WHERE a.tenant = ? AND a.${column} <> ''
       AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant = a.tenant AND e.id = a.${column})`,
  ]),
  [
    'artifact whose snapshot is gone',
    `SELECT a.id AS ref FROM artifacts a WHERE a.tenant = ? AND a.snapshot <> ''
     AND NOT EXISTS (SELECT 1 FROM desk_snapshots s WHERE s.tenant = a.tenant AND s.id = a.snapshot)`,
  ],
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
