import { unsupportedFormat } from '../errors.js';
import { FEATURE_TABLES } from '../features.js';
import type { Dialect } from './engine.js';
import type { FeatureTables } from './table-sql.js';

/**
 * The one ordered list of schema migrations, each engine's SQL side by side,
 * assembled from the features' shares (each feature's `tables.ts`, in the
 * order of src/features.ts). A store's format version is the number of
 * migrations applied to it; a store whose version is higher than this list's
 * length was written by a newer Cairn and is refused (see
 * docs/design/store-format.md).
 */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/** The features' shares grouped by version, in registry order within one; versions must run 1, 2, 3, … */
export function assembleMigrations(features: readonly FeatureTables[]): Migration[] {
  const byVersion = new Map<number, Migration>();
  for (const feature of features) {
    for (const part of feature.migrations) {
      const made = byVersion.get(part.version);
      if (!made) byVersion.set(part.version, { ...part });
      else {
        made.name = `${made.name}; ${part.name}`;
        made.sqlite = `${made.sqlite}\n${part.sqlite}`;
        made.postgres = `${made.postgres}\n${part.postgres}`;
      }
    }
  }
  const migrations = [...byVersion.values()].sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migration ${i + 1} is missing: the features' tables skip a version`);
  });
  return migrations;
}

export const MIGRATIONS: readonly Migration[] = assembleMigrations(FEATURE_TABLES);

export const CURRENT_FORMAT_VERSION = MIGRATIONS.length;

/** What a store's engine needs to offer for its migrations to run. */
export interface MigrationTarget {
  dialect: Dialect;
  /** The store's format version, 0 for an empty store. */
  formatVersion(): Promise<number>;
  /** Applies one migration and records its version, atomically. */
  apply(migration: Migration): Promise<void>;
}

/**
 * Brings a store up to this build's format version. Refuses a store written
 * by a newer Cairn rather than guessing at its layout.
 */
export async function migrate(target: MigrationTarget, where: string): Promise<number> {
  const version = await target.formatVersion();
  if (version > CURRENT_FORMAT_VERSION) {
    throw unsupportedFormat(
      `store at ${where} has format version ${version}, newer than this Cairn understands (${CURRENT_FORMAT_VERSION}): upgrade Cairn to open it`,
      { storeVersion: version, supportedVersion: CURRENT_FORMAT_VERSION },
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version > version) await target.apply(migration);
  }
  return CURRENT_FORMAT_VERSION;
}
