import { type FSWatcher, lstatSync, readdirSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomHex } from '../ids.js';
import { childPath } from './model.js';

/** Temporary names a restore writes beside a file before renaming it into place. */
export const TEMP_NAME = /\.cairn-[0-9a-f]{12}$/;

/** Files the watcher writes into the workspace root to learn that every earlier event has arrived; never snapshotted. */
export const COOKIE_PREFIX = '.cairn-cookie-';

/**
 * Tracks which directories changed since the last drain, with one inotify
 * watch per directory (`fs.watch`, not recursive: Node 20's recursive mode on
 * Linux polls). A drain first writes a cookie file into the root and waits
 * for its event: events are queued in order, so every change made before the
 * drain began has then been seen (the same trick as watchman's cookies).
 * Anything it cannot vouch for (a watch that failed, the inotify limit)
 * makes the next drain answer 'all', i.e. a full stat-cache scan.
 */
export class DirWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  /** Entries whose content changed (a 'change' event), when their directory's listing did not. */
  private dirtyFiles = new Set<string>();
  /** Directories created, or moved into place, since the last drain: rescanned whole. */
  private deep = new Set<string>();
  /** Paths this process is about to write itself: their events mark only the entry, not the listing. */
  private expected = new Set<string>();
  private lost = false;
  private readonly cookies = new Map<string, () => void>();

  constructor(
    private readonly root: string,
    private readonly skip: (path: string, isDir: boolean) => boolean,
  ) {
    this.watchTree('');
  }

  private watchTree(rel: string): void {
    if (this.watchers.has(rel)) return;
    const abs = rel === '' ? this.root : join(this.root, rel);
    let watcher: FSWatcher;
    try {
      watcher = watch(abs, { persistent: false }, (event, name) => this.onEvent(rel, event, name));
    } catch {
      this.lost = true;
      return;
    }
    watcher.on('error', () => {
      this.lost = true;
      watcher.close();
      this.watchers.delete(rel);
    });
    this.watchers.set(rel, watcher);
    let names: import('node:fs').Dirent[] = [];
    try {
      names = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      const child = childPath(rel, d.name);
      if (d.isDirectory() && !this.skip(child, true)) this.watchTree(child);
    }
  }

  private onEvent(rel: string, event: string, name: string | Buffer | null): void {
    if (name === null) {
      this.lost = true;
      return;
    }
    const text = name.toString();
    if (rel === '' && text.startsWith(COOKIE_PREFIX)) {
      this.cookies.get(text)?.();
      return;
    }
    if (TEMP_NAME.test(text)) return;
    const child = childPath(rel, text);
    if (event === 'change' || this.expected.has(child)) {
      // Content or attributes changed (or our own rename into place): the entry, not the listing.
      this.dirtyFiles.add(child);
      return;
    }
    this.dirty.add(rel);
    // Created, deleted or renamed: a watch follows a directory, not its name, so whatever watched
    // this path before may now watch a directory that lives elsewhere. Drop it and watch afresh.
    for (const [path, watcher] of this.watchers) {
      if (path === child || path.startsWith(`${child}/`)) {
        watcher.close();
        this.watchers.delete(path);
      }
    }
    const st = lstatSync(join(this.root, child), { throwIfNoEntry: false });
    if (st?.isDirectory() && !this.skip(child, true)) {
      this.watchTree(child);
      this.deep.add(child);
    }
  }

  /**
   * Paths this process is about to write (a restore): events about them
   * mark only those entries dirty, not their directories' listings.
   */
  expect(paths: Iterable<string>): void {
    for (const path of paths) this.expected.add(path);
  }

  /**
   * What changed since the previous drain: directories whose listing may
   * have changed and entries whose content did; 'all' when the watcher
   * cannot tell.
   */
  async drain(): Promise<{ dirs: Set<string>; files: Set<string>; deep: Set<string> } | 'all'> {
    const cookie = `${COOKIE_PREFIX}${randomHex(8)}`;
    const path = join(this.root, cookie);
    const seen = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2000);
      this.cookies.set(cookie, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      writeFileSync(path, '');
      unlinkSync(path);
    } catch {
      this.lost = true;
    }
    const arrived = await seen;
    this.cookies.delete(cookie);
    const lost = this.lost || !arrived || !this.watchers.has('');
    const dirs = this.dirty;
    const files = this.dirtyFiles;
    const deep = this.deep;
    this.dirty = new Set();
    this.dirtyFiles = new Set();
    this.deep = new Set();
    this.expected.clear();
    this.lost = false;
    return lost ? 'all' : { dirs, files, deep };
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
