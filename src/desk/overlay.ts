import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { invalidArgument, unavailable } from '../errors.js';

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

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs mount and umount through one long-lived `sh`: forking this (large)
 * process for every mount costs ~10 ms here, a fork of the small shell ~1 ms.
 * Commands run one at a time; the shell does not keep the process alive
 * while idle, and `close` ends it.
 */
export class Mounter {
  private shell: ChildProcessWithoutNullStreams | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private start(): ChildProcessWithoutNullStreams {
    if (this.shell && this.shell.exitCode === null) return this.shell;
    const shell = spawn('sh', [], { stdio: ['pipe', 'pipe', 'pipe'] });
    shell.stdout.setEncoding('utf8');
    shell.on('error', () => undefined);
    this.shell = shell;
    return shell;
  }

  private idle(shell: ChildProcessWithoutNullStreams, idle: boolean): void {
    for (const handle of [shell, shell.stdin, shell.stdout, shell.stderr] as unknown as {
      ref(): void;
      unref(): void;
    }[]) {
      if (idle) handle.unref();
      else handle.ref();
    }
  }

  /** Runs one command line; resolves to its exit status and combined output. */
  run(args: string[]): Promise<{ ok: boolean; message: string }> {
    const step = this.queue.then(
      () =>
        new Promise<{ ok: boolean; message: string }>((resolve) => {
          const shell = this.start();
          this.idle(shell, false);
          let output = '';
          const onData = (chunk: string) => {
            output += chunk;
            const done = /__cairn_done (\d+)\n$/.exec(output);
            if (!done) return;
            shell.stdout.off('data', onData);
            shell.off('exit', onExit);
            this.idle(shell, true);
            resolve({ ok: done[1] === '0', message: output.slice(0, done.index).trim() });
          };
          const onExit = () => {
            shell.stdout.off('data', onData);
            resolve({ ok: false, message: output.trim() || 'the helper shell exited' });
          };
          shell.stdout.on('data', onData);
          shell.once('exit', onExit);
          shell.stdin.write(`${args.map(quote).join(' ')} 2>&1; printf '\\n__cairn_done %d\\n' $?\n`);
        }),
    );
    this.queue = step.catch(() => undefined);
    return step;
  }

  close(): void {
    this.shell?.stdin.end();
    this.shell?.kill();
    this.shell = null;
  }
}

export async function mountOverlay(layout: OverlayLayout, mounter: Mounter): Promise<void> {
  for (const path of [layout.lower, layout.upper, layout.work]) {
    if (/[,:\n]/.test(path)) {
      throw unavailable(`overlay layer path ${path} holds "," ":" or a newline: use the copy driver`, {
        path,
      });
    }
  }
  if (layout.mountpoint.includes('\n')) {
    throw invalidArgument('a directory name with a newline cannot be an overlay mount point');
  }
  mkdirSync(layout.upper, { recursive: true });
  mkdirSync(layout.work, { recursive: true });
  mkdirSync(layout.mountpoint, { recursive: true });
  const options = `lowerdir=${layout.lower},upperdir=${layout.upper},workdir=${layout.work}`;
  const result = await mounter.run(['mount', '-t', 'overlay', 'overlay', '-o', options, layout.mountpoint]);
  if (!result.ok) {
    throw unavailable(
      `could not mount an overlay at ${layout.mountpoint} (${result.message}): use the copy driver, or run with CAP_SYS_ADMIN`,
      { mountpoint: layout.mountpoint },
    );
  }
}

export async function unmountOverlay(mountpoint: string, mounter: Mounter): Promise<void> {
  const result = await mounter.run(['umount', mountpoint]);
  if (!result.ok && !/not mounted|no mount point/i.test(result.message)) {
    throw unavailable(`could not unmount ${mountpoint} (${result.message}): is a process using it?`, {
      mountpoint,
    });
  }
}

/** A path as /proc/self/mounts writes it: octal escapes for space, tab, newline and backslash (and, in an option's value, "," and "="). */
export function mountEscape(path: string, inOption = false): string {
  const special = inOption ? /[\\ \t\n,=]/g : /[\\ \t\n]/g;
  return path.replace(special, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/** The options of the topmost mount at `mountpoint` (one per comma), or null when nothing is mounted there. */
export function mountOptions(mountpoint: string): string[] | null {
  if (process.platform !== 'linux') return null;
  const escaped = mountEscape(mountpoint);
  let found: string[] | null = null;
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const fields = line.split(' ');
    if (fields[1] === escaped) found = (fields[3] ?? '').split(',');
  }
  return found;
}

export function isMounted(mountpoint: string): boolean {
  return mountOptions(mountpoint) !== null;
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
    mkdirSync(layout.upper);
    mkdirSync(layout.work);
    mkdirSync(layout.mountpoint);
    writeFileSync(join(layout.lower, 'probe'), 'x');
    const options = `lowerdir=${layout.lower},upperdir=${layout.upper},workdir=${layout.work}`;
    supported = run(['mount', '-t', 'overlay', 'overlay', '-o', options, layout.mountpoint]).ok;
    if (supported) run(['umount', layout.mountpoint]);
  } catch {
    supported = false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return supported;
}
