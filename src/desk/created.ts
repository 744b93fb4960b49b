import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forbidden, invalidArgument } from '../errors.js';
import { idPattern } from '../ids.js';
import type { DeskContext } from './context.js';
import { overlayLayout } from './fork.js';
import { mountEscape, mountOptions } from './overlay.js';
import type { Driver, Workspace } from './rows.js';

/**
 * The host-local registry of the directories this desk created (a fork's,
 * by copy or overlay): one file per workspace in the desk's state folder on
 * this host (`<stateDir>/created/<ws>.json`, 0600 in a 0700 folder). It is
 * the only proof destructive work accepts — discarding a fork's files,
 * unmounting or mounting its overlay, reclaiming it in `cairn gc` — because
 * nothing that talks to the store can write it: a workspace record says
 * where a directory is, never that the desk may delete it.
 */
export interface CreatedDir {
  workspace: string;
  tenant: string;
  dir: string;
  driver: Driver;
  /** The directory's identity when the desk made it (for an overlay: the mount point before mounting). */
  dev: number;
  ino: number;
  at: number;
}

/** Whether this desk may do destructive work on a workspace's directory, and if not, why. */
export type Holding =
  | { ok: true }
  | { ok: false; reason: 'other-host' | 'not-created'; message: string; host: string; dir: string };

const WORKSPACE = idPattern('ws');

export class CreatedDirs {
  constructor(private readonly ctx: DeskContext) {}

  private folder(): string {
    const folder = join(this.ctx.ensureStateDir(), 'created');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  }

  private file(workspace: string): string {
    // The name becomes a file name: only a well-formed id may.
    if (!WORKSPACE.test(workspace))
      throw invalidArgument(`"${workspace}" is not a workspace id: pass a ws_… id`, { workspace });
    return join(this.folder(), `${workspace}.json`);
  }

  /** Records a directory this desk has just made (or found empty and is about to fill), before anything is written into it. */
  record(input: { workspace: string; dir: string; driver: Driver }): void {
    const st = lstatSync(input.dir);
    const entry: CreatedDir = {
      ...input,
      tenant: this.ctx.tenant,
      dev: st.dev,
      ino: st.ino,
      at: this.ctx.now(),
    };
    const file = this.file(input.workspace);
    const temp = `${file}.tmp-${process.pid}`;
    writeFileSync(temp, JSON.stringify(entry), { mode: 0o600 });
    renameSync(temp, file);
  }

  forget(workspace: string): void {
    rmSync(this.file(workspace), { force: true });
  }

  read(workspace: string): CreatedDir | null {
    try {
      return JSON.parse(readFileSync(this.file(workspace), 'utf8')) as CreatedDir;
    } catch {
      return null;
    }
  }

  /**
   * Whether `row`'s directory is one this desk created on this host and is
   * still that directory: the registry names this workspace, tenant, path
   * and driver, and the path is the same directory (same device and inode,
   * not a link) — or, for an overlay that is mounted, a mount whose upper
   * layer is this fork's own.
   */
  holds(row: Workspace): Holding {
    const host = this.ctx.options.host;
    const refuse = (reason: 'other-host' | 'not-created', message: string): Holding => ({
      ok: false,
      reason,
      message,
      host: row.host,
      dir: row.dir,
    });
    if (row.host !== host) {
      return refuse(
        'other-host',
        `workspace ${row.id} lives on host ${row.host}, not ${host}: only the desk on ${row.host} may change ${row.dir}`,
      );
    }
    const notCreated = (why: string) =>
      refuse(
        'not-created',
        `${row.dir} (workspace ${row.id}) ${why}: Cairn deletes only directories its desk on this host created; remove it yourself if you mean to, then detach without --discard`,
      );
    const entry = this.read(row.id);
    if (
      !entry ||
      entry.workspace !== row.id ||
      entry.tenant !== this.ctx.tenant ||
      entry.dir !== row.dir ||
      entry.driver !== row.driver
    ) {
      return notCreated('was not created by this desk');
    }
    if (row.driver === 'overlay') {
      const options = mountOptions(row.dir);
      if (options !== null) {
        return options.includes(`upperdir=${mountEscape(overlayLayout(this.ctx, row.id).upper, true)}`)
          ? { ok: true }
          : notCreated('is a mount this desk did not make');
      }
    }
    const st = lstatSync(row.dir, { throwIfNoEntry: false });
    // Gone already: there is nothing left to delete.
    if (!st) return { ok: true };
    if (!st.isDirectory() || st.dev !== entry.dev || st.ino !== entry.ino)
      return notCreated('is no longer the directory this desk created (replaced or a link)');
    return { ok: true };
  }

  /**
   * Refuses destructive work (`discard`, `mount`) on a directory this desk
   * may not touch: FORBIDDEN with the reason, audited in the store, nothing changed.
   */
  async require(row: Workspace, action: 'discard' | 'mount'): Promise<void> {
    const held = this.holds(row);
    if (held.ok) return;
    const { reason, host, dir } = held;
    await this.ctx.store.refused({ workspace: row.id, action, reason, host, dir });
    throw forbidden(held.message, { action: `desk.${action}`, workspace: row.id, reason, host, dir });
  }
}
