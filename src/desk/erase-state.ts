import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { idPattern } from '../ids.js';
import { type Engine, inBatches, placeholders } from '../storage/engine.js';
import { Mounter, mountEscape, unmountOverlay } from './overlay.js';

/**
 * What the desk keeps of a workspace on a host, in its state folder
 * (`<store>/desk/` for a store in a folder: context.ts, docs/design/desk.md
 * "Local state"), erased after the workspace's rows (erase.ts):
 *
 * - `stat/<ws>.json` — the stat cache: every file's name, size and chunk
 *   digests (stat-cache.ts), and the temporary files of interrupted saves
 *   (`<ws>.json.<hex>`);
 * - `created/<ws>.json` — the registry entry naming the fork's directory
 *   (created.ts), and its temporary files (`<ws>.json.tmp-<pid>`);
 * - `forks/<ws>/` — an overlay fork's upper layer (its changed files, bytes
 *   and all) and overlayfs's work directory; a fork still mounted is
 *   unmounted first (deleting a layer under a live mount is undefined), and
 *   one that cannot be unmounted (a process is using it) is left whole and
 *   reported in `busy`, to erase again later;
 * - `lower/<tenant>/<root>/` — overlay lower layers: a snapshot's files,
 *   materialised once per root tree. Shared by root, so a layer goes when no
 *   snapshot row of the tenant has that root any more: after the erasure's
 *   commit that is every layer only erased snapshots had (a root a surviving
 *   snapshot also has is that snapshot's content too; it stays, and GC's
 *   layer sweep takes it once unused). Half-made layers (`<root>.tmp-…`) are
 *   judged by their root. A layer some overlay still has mounted (one that
 *   could not be unmounted) stays until it is unmounted.
 *
 * Only this host's state folder is reachable here: a desk whose store is a
 * server keeps its state on its own machine (the CLI's
 * `~/.local/state/cairn/desks/<server>`), and that desk must run this there.
 * The workspace directories themselves (an attached directory, a copy fork's)
 * are the user's, outside the store, and are never touched. A desk process
 * holding one of the workspaces open still has its model in memory and
 * rewrites its stat cache when it closes: erase after such processes stopped,
 * or run this again.
 *
 * Idempotent: run again (after a crash, or with the same ids) it removes what
 * is left. `preview` lists what it would remove and removes nothing (lower
 * layers only once no snapshot has their root: before the rows' erasure, the
 * erased snapshots still do). The per-workspace state is found by id only (a
 * stat cache does not say whose tenant it is, and a registry entry with no row
 * yet may be a fork being made), so whoever runs it must hold the ids: run it
 * with the ids a preview of the desk part found before that part's
 * transaction, and again after it commits (the lower layers go only once no
 * snapshot row has their root), or keep the part's `resources` with the
 * erasure so a resumed one has them.
 */
export interface ErasedState {
  /** Paths removed (or, in a preview, that would be), relative to the state folder. */
  removed: string[];
  /** Workspaces whose overlay could not be unmounted: their layers are still there. */
  busy: string[];
}

const WORKSPACE = idPattern('ws');

export async function eraseDeskState(input: {
  /** The desk's state folder: `Store.deskDir` for a store in a folder. */
  stateDir: string;
  engine: Engine;
  tenant: string;
  /** The erased workspaces: the desk part's `resources` (erase.ts). */
  workspaces: readonly string[];
  preview?: boolean;
}): Promise<ErasedState> {
  const { stateDir, tenant, preview = false } = input;
  const out: ErasedState = { removed: [], busy: [] };
  if (!existsSync(stateDir)) return out;
  const remove = (relative: string): void => {
    out.removed.push(relative);
    if (!preview) rmSync(join(stateDir, relative), { recursive: true, force: true });
  };
  const ids = new Set(input.workspaces.filter((id) => WORKSPACE.test(id)));
  // Each folder listed once: `<ws>.json` and its temporary files (`<ws>.json.…`), by workspace.
  const files = new Map<string, string[]>();
  for (const folder of ['stat', 'created'])
    for (const name of listing(join(stateDir, folder))) {
      const id = name.split('.json')[0] as string;
      if (ids.has(id) && name.startsWith(`${id}.json`))
        files.set(id, [...(files.get(id) ?? []), join(folder, name)]);
    }
  const mounter = new Mounter();
  try {
    for (const id of [...ids].sort()) {
      const forks = join('forks', id);
      if (existsSync(join(stateDir, forks))) {
        const mountpoint = mountedOver(join(stateDir, forks, 'upper'));
        if (mountpoint !== null && !preview) {
          try {
            await unmountOverlay(mountpoint, mounter);
          } catch {
            out.busy.push(id);
            continue;
          }
        }
        remove(forks);
      }
      for (const file of files.get(id) ?? []) remove(file);
    }
  } finally {
    mounter.close();
  }
  const lower = join(stateDir, 'lower', tenant);
  const mounted = new Set(overlayOptions('lowerdir'));
  for (const name of await unnamedLayers(input.engine, tenant, lower))
    if (!mounted.has(join(lower, name))) remove(join('lower', tenant, name));
  return out;
}

function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The overlay mounts this process sees: mount point and options, paths unescaped. */
function overlays(): { mountpoint: string; options: string[] }[] {
  if (process.platform !== 'linux') return [];
  const out: { mountpoint: string; options: string[] }[] = [];
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const fields = line.split(' ');
    if (fields[2] === 'overlay')
      out.push({ mountpoint: unescapeMount(fields[1] ?? ''), options: (fields[3] ?? '').split(',') });
  }
  return out;
}

/** The mount point of the overlay whose upper layer is `upper`, or null. */
function mountedOver(upper: string): string | null {
  const option = `upperdir=${mountEscape(upper, true)}`;
  // The topmost, should there be several.
  return (
    overlays()
      .filter((o) => o.options.includes(option))
      .at(-1)?.mountpoint ?? null
  );
}

/** The paths every mounted overlay names in one option (`lowerdir` may name several, ":"-separated). */
function overlayOptions(name: string): string[] {
  return overlays().flatMap((o) =>
    o.options
      .filter((option) => option.startsWith(`${name}=`))
      .flatMap((option) =>
        option
          .slice(name.length + 1)
          .split(':')
          .map(unescapeMount),
      ),
  );
}

/** A path as /proc/self/mounts wrote it, its octal escapes undone. */
function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Of the lower layers in `dir`, those whose root tree no snapshot row of the tenant has. */
async function unnamedLayers(engine: Engine, tenant: string, dir: string): Promise<string[]> {
  const names = listing(dir);
  if (names.length === 0) return [];
  const rootOf = (name: string) => name.split('.tmp-')[0] as string;
  const roots = [...new Set(names.map(rootOf))];
  const named = new Set<string>();
  await engine.read(tenant, (tx) =>
    inBatches(roots, async (slice) => {
      for (const r of await tx.all<{ root: string }>(
        `SELECT DISTINCT root FROM desk_snapshots WHERE tenant = ? AND root IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      ))
        named.add(r.root);
    }),
  );
  return names.filter((name) => !named.has(rootOf(name))).sort();
}
