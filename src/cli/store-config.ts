import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { DeskOptions } from '../desk/context.js';
import { invalidArgument, unavailable } from '../errors.js';
import { TRUST_TIERS } from '../memory/schema.js';
import { parseInput } from '../validate.js';

/**
 * The store's own settings, kept by its admin in `<store>/config.json` (the
 * agent's files never change them): the secret policy and the guard's
 * allow-list. Absent file: the defaults. A malformed file is refused, never
 * half-read.
 */
export const StoreConfig = z
  .object({
    /** `fail` refuses a checkpoint with a high-confidence credential; `exclude` (default) leaves it out. */
    secrets: z.enum(['exclude', 'fail']).default('exclude'),
    guard: z
      .object({
        /** Findings an admin accepts: a rule id (or `*`) and gitignore-style path globs. */
        allow: z
          .array(z.object({ rule: z.string().min(1), paths: z.array(z.string().min(1)).min(1) }).strict())
          .default([]),
      })
      .strict()
      .default({ allow: [] }),
    snapshots: z
      .object({
        /** `.git` directories: left out (default; a unit checkpoint records HEAD, branch and dirty state) or snapshotted. */
        git: z.enum(['exclude', 'include']).default('exclude'),
      })
      .strict()
      .default({ git: 'exclude' }),
    memory: z
      .object({
        /** The trust tier each source's records arrive with, e.g. {"tool": "quarantined"}. */
        policy: z
          .object({
            person: z.enum(TRUST_TIERS).optional(),
            agent: z.enum(TRUST_TIERS).optional(),
            tool: z.enum(TRUST_TIERS).optional(),
            import: z.enum(TRUST_TIERS).optional(),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({ policy: {} }),
  })
  .strict();

export type StoreConfig = z.output<typeof StoreConfig>;

export const STORE_CONFIG_FILE = 'config.json';

/** The desk's options the store config decides, for every desk the CLI opens on a local store. */
export function deskSettings(
  config: StoreConfig,
): Pick<DeskOptions, 'secretPolicy' | 'guard' | 'includeGit'> {
  return {
    secretPolicy: config.secrets,
    guard: { allow: config.guard.allow },
    includeGit: config.snapshots.git === 'include',
  };
}

export function readStoreConfig(storeDir: string): StoreConfig {
  const file = join(storeDir, STORE_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return StoreConfig.parse({});
    throw unavailable(`cannot read ${file} (${code ?? String(error)}): check it is a readable file`, {
      file,
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`${file} is not valid JSON (${(error as Error).message}): fix it or remove it`, {
      file,
    });
  }
  return parseInput(StoreConfig, raw, file);
}
