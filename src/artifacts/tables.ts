/**
 * Artifacts' tables (format 9; docs/design/artifacts.md): an artifact's
 * record, its content as an ordered list of chunks (each a blob of the
 * tenant, shared by every artifact that holds the same bytes), its inputs
 * (the lineage's edges to other artifacts and snapshot paths), and a
 * tenant's quota.
 */

import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

const ARTIFACT_TABLES = ['artifacts', 'artifact_chunks', 'artifact_inputs', 'artifact_quotas'] as const;

function artifactTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE artifacts (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('writing', 'live')),
  name TEXT NOT NULL,
  media_type TEXT NOT NULL,
  description TEXT NOT NULL,
  size ${t.bigint} NOT NULL,
  digest TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  event TEXT NOT NULL,
  checkpoint TEXT NOT NULL,
  snapshot TEXT NOT NULL,
  path TEXT NOT NULL,
  step ${t.bigint},
  step_event TEXT NOT NULL,
  source_event TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  expires_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX artifacts_by_session ON artifacts (tenant, session, created_at);
CREATE TABLE artifact_chunks (
  tenant TEXT NOT NULL,
  artifact TEXT NOT NULL,
  idx INTEGER NOT NULL,
  digest TEXT NOT NULL,
  off ${t.bigint} NOT NULL,
  len ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, artifact, idx)
)${t.clustered};
CREATE INDEX artifact_chunks_by_digest ON artifact_chunks (tenant, digest);
CREATE TABLE artifact_inputs (
  tenant TEXT NOT NULL,
  artifact TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('artifact', 'snapshot')),
  ref TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (tenant, artifact, kind, ref, path)
)${t.clustered};
CREATE INDEX artifact_inputs_by_ref ON artifact_inputs (tenant, ref);
CREATE TABLE artifact_quotas (
  tenant TEXT NOT NULL,
  bytes ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant)
)${t.clustered};`;
}

export const ARTIFACTS_TABLES: FeatureTables = {
  folder: 'artifacts',
  blobNames: [{ table: 'artifact_chunks', column: 'digest' }],
  tables: ARTIFACT_TABLES,
  rowSecured: ARTIFACT_TABLES,
  migrations: [
    {
      version: 9,
      name: 'artifacts: records, chunks, inputs, quotas',
      sqlite: artifactTables('sqlite'),
      postgres: `${artifactTables('postgres')}
${rowLevelSecurityOf(ARTIFACT_TABLES)}`,
    },
  ],
};
