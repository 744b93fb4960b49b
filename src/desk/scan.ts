import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeskContext, Handle } from './context.js';
import { createPathFilter, type SecretFinding } from './guard.js';
import { LaterFiles } from './later-files.js';
import { cloneDir, type DirNode, rescan, type ScanContext, seal, settleFiles } from './model.js';
import type { PackWriter } from './objects.js';
import { COOKIE_PREFIX, DirWatcher, TEMP_NAME } from './watcher.js';

/** What changed since the last checkpoint: listings, single entries, whole subtrees. */
export interface Dirty {
  dirs: Set<string>;
  files: Set<string>;
  deep: Set<string>;
}

/**
 * How the desk looks at a workspace directory: which paths it skips (its own
 * temporary files, the ignore rules, credential paths), how a scan hands
 * content to the guard, and what the watcher (or an overlay's upper layer)
 * says needs rescanning.
 */
export class Scanner {
  constructor(private readonly ctx: DeskContext) {}

  skipPath(h: Handle, path: string, isDir: boolean, findings: SecretFinding[] | null): boolean {
    const slash = path.lastIndexOf('/');
    const name = slash < 0 ? path : path.slice(slash + 1);
    if (slash < 0 && name.startsWith(COOKIE_PREFIX)) return true;
    if (TEMP_NAME.test(name)) return true;
    if (!this.ctx.options.includeGit && name === '.git') return true;
    if (path === '.cairnignore') return false;
    if (createPathFilterCached(h).ignored(path, isDir)) return true;
    if (!isDir) {
      const finding = this.ctx.guard.pathFinding(path);
      if (finding) {
        findings?.push(finding);
        return true;
      }
    }
    return false;
  }

  watcherFor(h: Handle): DirWatcher {
    return new DirWatcher(h.row.dir, (p, d) => this.skipPath(h, p, d, null));
  }

  /**
   * A full scan hands small files' content scans to the worker thread (where
   * there is one) and reads on meanwhile; the worker is started now, so its
   * start overlaps the first files. A scan of a few changed files stays on
   * this thread: a worker's start would cost more than their scans.
   */
  scanOffThread(ctx: ScanContext): void {
    if (!this.ctx.guard.scansOffThread) return;
    ctx.later = new LaterFiles(ctx.onFile);
    this.ctx.guard.warmUp();
  }

  scanContext(h: Handle, writer: PackWriter, findings: SecretFinding[]): ScanContext {
    const guard = this.ctx.guard;
    const text = readIgnore(h.row.dir);
    if (text !== h.ignoreText) {
      h.ignoreText = text;
      filters.delete(h);
      h.fullScan = true;
      // What is watched depends on the ignore rules: watch again under the new ones.
      if (h.watcher) {
        h.watcher.close();
        h.watcher = this.watcherFor(h);
      }
    }
    return {
      root: h.row.dir,
      objects: this.ctx.objects,
      writer,
      skip: (path, isDir) => this.skipPath(h, path, isDir, findings),
      admit: async (path, bytes, abs, offThread) => {
        // skipPath already withheld any credential path: the guard judges the content only.
        const verdict = await guard.admit(path, bytes, abs, true, offThread);
        findings.push(...verdict.findings);
        if (verdict.store === 'withhold') return null;
        return verdict.store === 'redacted'
          ? { bytes: verdict.bytes, redacted: true }
          : { bytes, redacted: false };
      },
      admitName: async (path, target) => {
        const finding = await guard.nameFinding(path, target);
        if (finding) findings.push(finding);
        return finding === null;
      },
      stream: (path, abs, size) => {
        const scan = guard.stream(path, abs, size);
        let reported = false;
        return {
          get findings() {
            return scan.findings;
          },
          feed: async (window, offset) => {
            const scanned = await scan.feed(window, offset);
            if (!scanned.clean && !reported) {
              findings.push(...scan.findings);
              reported = true;
            }
            return scanned;
          },
          close: () => scan.close(),
        };
      },
      admitPack: async (path, abs) => {
        const found = await guard.packFindings(path, abs);
        findings.push(...found);
        return found.every((f) => f.action === 'kept');
      },
      later: null,
      upper: h.upper,
      startedMs: this.ctx.now(),
      unsupported: [],
      onFile: this.ctx.counter('scan'),
    };
  }

  /**
   * What to rescan: the directories (and single entries) the watcher saw
   * change, the directories of an overlay's upper layer, or everything.
   */
  async dirtyDirs(h: Handle): Promise<Dirty | 'all'> {
    const full = h.fullScan;
    h.fullScan = false;
    if (h.watcher) {
      const seen = await h.watcher.drain();
      if (!full) return seen;
    }
    if (full && h.row.driver !== 'overlay') return 'all';
    if (h.upper) return { dirs: upperDirs(h.upper), files: new Set(), deep: new Set() };
    return 'all';
  }

  /** The live directory as a model, from a full scan of a copy of the workspace's model, storing nothing. */
  async dryScan(h: Handle, findings: SecretFinding[] = []): Promise<DirNode> {
    const copy = cloneDir(h.root);
    const writer = this.ctx.objects.writer();
    writer.dryRun = true;
    const ctx = this.scanContext(h, writer, findings);
    this.scanOffThread(ctx);
    await rescan(ctx, copy, '', true);
    await settleFiles(ctx);
    await seal(ctx, copy);
    return copy;
  }
}

/**
 * Whether a path lies in a `.git` directory (at any depth): left out of
 * snapshots unless the store includes git, and then never written or
 * removed by a restore, so a restore cannot rewind the user's git history.
 */
export function inGitDir(path: string): boolean {
  return path === '.git' || path.startsWith('.git/') || path.includes('/.git/') || path.endsWith('/.git');
}

const filters = new WeakMap<Handle, ReturnType<typeof createPathFilter>>();

function createPathFilterCached(h: Handle) {
  let filter = filters.get(h);
  if (!filter) {
    filter = createPathFilter(h.ignoreText);
    filters.set(h, filter);
  }
  return filter;
}

export function readIgnore(root: string): string | null {
  const ignore = join(root, '.cairnignore');
  return existsSync(ignore) ? readFileSync(ignore, 'utf8') : null;
}

/** Directories present in an overlay's upper layer: the only ones a change since the fork can be in. */
function upperDirs(upper: string): Set<string> {
  const out = new Set<string>(['']);
  const walk = (abs: string, rel: string) => {
    for (const d of readdirSync(abs, { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      const child = rel === '' ? d.name : `${rel}/${d.name}`;
      out.add(child);
      walk(join(abs, d.name), child);
    }
  };
  walk(upper, '');
  return out;
}
