import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CairnError } from '../errors.js';

/**
 * The overlay fork driver (Linux): a fork is a fresh upper directory mounted
 * over a shared, read-only lower directory that holds the snapshot, so
 * creating it costs the same whatever the workspace size, and the upper
 * directory is exactly the fork's change set. Mounting needs CAP_SYS_ADMIN;
 * `overlaySupported` tries once, in a scratch folder, and callers fall back
 * to the copy driver when it cannot.
 */
export interface OverlayLayout {
  lower: string;
  upper: string;
  work: string;
  mountpoint: string;
}

function run(args: string[]): { ok: boolean; message: string } {
  const result = spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });
  return {
    ok: result.status === 0,
    message: (result.stderr || result.error?.message || '').trim(),
  };
}

export function mountOverlay(layout: OverlayLayout): void {
  mkdirSync(layout.upper, { recursive: true });
  mkdirSync(layout.work, { recursive: true });
  mkdirSync(layout.mountpoint, { recursive: true });
  const options = `lowerdir=${layout.lower},upperdir=${layout.upper},workdir=${layout.work}`;
  const result = run(['mount', '-t', 'overlay', 'overlay', '-o', options, layout.mountpoint]);
  if (!result.ok) {
    throw new CairnError(
      'UNAVAILABLE',
      `could not mount an overlay at ${layout.mountpoint} (${result.message}): use the copy driver, or run with CAP_SYS_ADMIN`,
      { mountpoint: layout.mountpoint },
    );
  }
}

export function unmountOverlay(mountpoint: string): void {
  const result = run(['umount', mountpoint]);
  if (!result.ok && !/not mounted|no mount point/i.test(result.message)) {
    throw new CairnError(
      'UNAVAILABLE',
      `could not unmount ${mountpoint} (${result.message}): is a process using it?`,
      {
        mountpoint,
      },
    );
  }
}

export function isMounted(mountpoint: string): boolean {
  const mounts = readFileSync('/proc/self/mounts', 'utf8');
  return mounts.split('\n').some((line) => line.split(' ')[1] === mountpoint.replace(/ /g, '\\040'));
}

let supported: boolean | undefined;

/** Whether this process can mount overlays here; tried once per process. */
export function overlaySupported(scratchParent: string): boolean {
  if (supported !== undefined) return supported;
  if (process.platform !== 'linux') {
    supported = false;
    return false;
  }
  mkdirSync(scratchParent, { recursive: true });
  const dir = mkdtempSync(join(scratchParent, 'overlay-probe-'));
  const layout = {
    lower: join(dir, 'lower'),
    upper: join(dir, 'upper'),
    work: join(dir, 'work'),
    mountpoint: join(dir, 'mnt'),
  };
  try {
    mkdirSync(layout.lower);
    writeFileSync(join(layout.lower, 'probe'), 'x');
    mountOverlay(layout);
    unmountOverlay(layout.mountpoint);
    supported = true;
  } catch {
    supported = false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return supported;
}
