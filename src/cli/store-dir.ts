/**
 * Where the local store is, from the command line and the environment:
 * shared by the CLI and its watcher front (front.ts), which must find
 * the same store without loading the rest of the CLI.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { FlagValues } from './command.js';
import { UsageError } from './output.js';

/** Treats an empty environment variable as unset. */
export function fromEnv(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The local store: --store, else $CAIRN_STORE, else the user's data folder
 * ($XDG_DATA_HOME/cairn, else ~/.local/share/cairn). The default lies outside
 * every project, so `cairn ws attach .` works in any directory and leaves
 * nothing behind in it.
 */
export function storeDir(
  values: FlagValues,
  env: Record<string, string | undefined>,
  cwd: string,
): { dir: string; chosen: boolean } {
  const flag = values.store;
  const chosen = (typeof flag === 'string' ? flag : undefined) ?? fromEnv(env, 'CAIRN_STORE');
  if (chosen !== undefined) return { dir: resolve(cwd, chosen), chosen: true };
  const dataHome = fromEnv(env, 'XDG_DATA_HOME');
  if (dataHome !== undefined && isAbsolute(dataHome)) return { dir: join(dataHome, 'cairn'), chosen: false };
  const home = fromEnv(env, 'HOME');
  if (home === undefined || !isAbsolute(home))
    throw new UsageError(
      'no home folder to keep the store in ($HOME is not set): pass --store DIR or set $CAIRN_STORE',
    );
  return { dir: join(home, '.local', 'share', 'cairn'), chosen: false };
}
