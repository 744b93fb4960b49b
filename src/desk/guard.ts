/**
 * What a workspace snapshot does not keep.
 *
 * Two separate things decide it:
 *
 * - The path filter: `.cairnignore` (gitignore syntax, via the `ignore`
 *   package) on top of {@link DEFAULT_IGNORES}. An ignored path is simply not
 *   part of the workspace as far as Cairn is concerned.
 * - The secret guard ({@link Guard}): credential files recognised by their
 *   path (guard/paths.ts), names and symlink targets that hold a credential,
 *   and every byte of every file's content (guard/scan.ts: secretlint's
 *   preset and Cairn's own rules, UTF-16/32 decoded, git objects inflated).
 *   Low-confidence findings (examples) in a text file that fits one chunk
 *   are redacted in the stored copy; anything else withholds the entry. What to do with a
 *   high-confidence finding is the caller's policy ({@link SecretPolicy});
 *   {@link guardFailure} builds the error for `'fail'`.
 *
 * A finding names the rule, the path (a secret-bearing name redacted), the
 * line and a confidence, never the secret itself.
 *
 * Library code: it reads no environment, working directory or home folder.
 */
import ignore from 'ignore';
import { type CairnError, forbidden, invalidArgument } from '../errors.js';
import {
  describeObject,
  inflateLoose,
  isLooseObject,
  isPack,
  looseObjectId,
  reachablePaths,
  walkPack,
} from './guard/git.js';
import { contentPathKind, contentPathLines, credentialPathRule } from './guard/paths.js';
import type { Span } from './guard/rules.js';
import {
  type FindingAction,
  lineCounter,
  lineIn,
  looksBinary,
  redact,
  type SecretFinding,
  StreamScan,
  scanWhole,
} from './guard/scan.js';
import { ScanWorker } from './guard/scan-pool.js';
import { readPackIndex } from './pack-format.js';

export { credentialPathRule } from './guard/paths.js';
export { type Confidence, checksumValid, withChecksum } from './guard/rules.js';

export { type FindingAction, LOOKAHEAD, type SecretFinding } from './guard/scan.js';
export { placeholder, type Redaction, redactEncoded, redactJson, scanText } from './guard/text.js';

/**
 * `'exclude'` (default): keep credentials out of the snapshot (the span
 * redacted, or the entry withheld) and report them; `'fail'`: refuse the
 * checkpoint when a high-confidence finding would have to be kept out.
 */
export type SecretPolicy = 'exclude' | 'fail';

/**
 * Patterns (gitignore syntax) left out of every snapshot before `.cairnignore`
 * is applied; a `.cairnignore` negation (`!.venv/`) brings one back.
 * `.git/` is deliberately kept: an agent's repository is part of its work.
 */
export const DEFAULT_IGNORES: readonly string[] = Object.freeze([
  // Cairn's own store, when it lives inside the workspace.
  '.cairn/',
  // Tool caches (babel, eslint, webpack, …): rebuilt on demand.
  'node_modules/.cache/',
  // Python virtualenvs: large, and reproducible from the project's lock file.
  '.venv/',
  // Python byte code and tool caches.
  '__pycache__/',
  '.pytest_cache/',
  '.mypy_cache/',
  '.ruff_cache/',
  // Editor swap files and desktop litter.
  '*.swp',
  '*.swo',
  '.DS_Store',
  'Thumbs.db',
]);

export interface PathFilter {
  /** True when relPath (`/`-separated, relative to the workspace root) is ignored; isDir for directory entries. */
  ignored(relPath: string, isDir: boolean): boolean;
}

/**
 * The filter for one workspace: {@link DEFAULT_IGNORES}, then the
 * `.cairnignore` text (null when there is none), then `extra`, later rules
 * winning as in git. Matching is case-sensitive, as git's is by default.
 */
export function createPathFilter(cairnignoreText: string | null, extra: readonly string[] = []): PathFilter {
  const ig = ignore({ ignorecase: false }).add([...DEFAULT_IGNORES]);
  if (cairnignoreText !== null) ig.add(cairnignoreText);
  ig.add([...extra]);
  return {
    ignored(relPath: string, isDir: boolean): boolean {
      if (
        relPath === '' ||
        relPath.startsWith('/') ||
        relPath.startsWith('./') ||
        relPath.startsWith('../')
      ) {
        throw invalidArgument(`path ${JSON.stringify(relPath)} is not workspace-relative`, {
          path: relPath,
        });
      }
      return ig.ignores(isDir ? `${relPath}/` : relPath);
    },
  };
}

// ---- the guard ------------------------------------------------------------------

/**
 * An admin's exception: findings of `rule` (a rule id, or `*` for any) in
 * paths matching `paths` (gitignore syntax) are not findings. It lives in the
 * store's configuration (DeskOptions.guard), never in the workspace:
 * `secretlint-disable` comments in files change nothing.
 */
export interface AllowRule {
  rule: string;
  paths: readonly string[];
}

export interface GuardOptions {
  allow?: readonly AllowRule[];
  /** Content scanning (default on). Off leaves path rules only: for benchmarks' baselines, not for use. */
  scanContent?: boolean;
}

/** What to store for one file. */
export type Verdict =
  | { store: 'as-is'; findings: SecretFinding[] }
  | { store: 'withhold'; findings: SecretFinding[] }
  | { store: 'redacted'; bytes: Buffer; findings: SecretFinding[] };

/** One file scanned window by window (files larger than one chunk). */
export interface GuardStream {
  /**
   * Scans the next window (this piece, then look-ahead) at `offset`; `clean`
   * is false once the file must be withheld. The window is handed over: a
   * buffer of the caller's own (not a view into a larger one), which may move
   * to the scan worker's thread and comes back, the same bytes, in the
   * result. The caller may feed the next window before this one resolves.
   */
  feed(window: Buffer, offset: number): Promise<{ clean: boolean; window: Buffer }>;
  readonly findings: SecretFinding[];
  /** Done with the file (whatever the outcome). */
  close(): void;
}

/** Files at least this large are scanned on the worker thread; smaller ones do not repay a message. */
const WORKER_MIN_BYTES = 4 * 1024 * 1024;

const MASTER_KEY_FILE = /^\s*(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)\s*$/;

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The path with its last component replaced: how an entry whose name holds a credential is reported. */
export function redactedName(path: string): string {
  const slash = path.lastIndexOf('/');
  return `${slash < 0 ? '' : path.slice(0, slash + 1)}[redacted name]`;
}

export class Guard {
  private readonly allowList: { rule: string; paths: ReturnType<typeof ignore> }[];
  readonly scanContent: boolean;

  constructor(options: GuardOptions = {}) {
    this.scanContent = options.scanContent ?? true;
    this.allowList = (options.allow ?? []).map((a) => ({
      rule: String(a.rule),
      paths: ignore({ ignorecase: false }).add([...a.paths].map(String)),
    }));
  }

  private allowed(f: SecretFinding, path: string): boolean {
    return this.allowList.some((a) => (a.rule === '*' || a.rule === f.rule) && a.paths.ignores(path));
  }

  private keep(findings: SecretFinding[], path: string): SecretFinding[] {
    return this.allowList.length === 0 ? findings : findings.filter((f) => !this.allowed(f, path));
  }

  /** A finding when the path alone names a credential file. */
  pathFinding(path: string): SecretFinding | null {
    const rule = credentialPathRule(path);
    if (!rule) return null;
    const finding: SecretFinding = { rule, path, line: 0, confidence: 'high', action: 'withheld' };
    return this.keep([finding], path).length > 0 ? finding : null;
  }

  /**
   * A finding when an entry's name (or a symlink's target) holds a
   * credential; its path is reported with the name redacted.
   */
  async nameFinding(path: string, target: string | null = null): Promise<SecretFinding | null> {
    for (const text of target === null ? [nameOf(path)] : [nameOf(path), target]) {
      const scan = new StreamScan(path);
      await scan.feed(Buffer.from(text, 'utf8'), 0);
      const found = this.keep(scan.findings, path);
      if (found.length > 0) {
        const first = found[0] as SecretFinding;
        const inTarget = target !== null && text === target;
        const rule = `${first.rule} (${inTarget ? 'symlink target' : 'name'})`;
        const shown = inTarget ? path : redactedName(path);
        return { rule, path: shown, line: 0, confidence: first.confidence, action: 'withheld' };
      }
    }
    return null;
  }

  /**
   * Whether {@link admit} can scan on the worker thread: a caller that does
   * not await each verdict before reading the next file then overlaps the two.
   */
  get scansOffThread(): boolean {
    return this.scanContent && this.worker() !== null;
  }

  /**
   * The verdict on a whole file's bytes (a file that fits one chunk). `abs`
   * locates `.git` for history findings. With `offThread`, the content scan
   * runs on the worker where there is one (`bytes` must not change until the
   * verdict is in).
   */
  async admit(
    path: string,
    bytes: Buffer,
    abs?: string,
    pathChecked = false,
    offThread = false,
  ): Promise<Verdict> {
    // A scan has judged the path already (its skip rule); a caller with bytes alone has not.
    const byPath = pathChecked ? null : this.pathFinding(path);
    if (byPath) return { store: 'withhold', findings: [byPath] };
    const findings: SecretFinding[] = [];
    const kind = contentPathKind(path);
    if (kind !== null) {
      for (const line of contentPathLines(kind, bytes.toString('utf8')))
        findings.push({
          rule: `credential-path:${kind}`,
          path,
          line,
          confidence: 'high',
          action: 'withheld',
        });
    }
    if (!this.scanContent) return this.verdict(path, bytes, findings, null);
    if (isLooseObject(path)) {
      const object = inflateLoose(bytes);
      if (object) {
        const scan = new StreamScan(path, { lineAt: (o) => lineIn(object.content, o) });
        await scan.feed(object.content, 0);
        const oid = looseObjectId(path);
        const located =
          scan.findings.length > 0 ? await locate(scan.findings, object.content, oid, abs, path) : [];
        findings.push(...located);
        return this.verdict(path, bytes, findings, null);
      }
    }
    const worker = offThread ? this.worker() : null;
    const scan = worker ? await worker.whole(path, bytes) : await scanWhole(path, bytes);
    findings.push(...scan.findings);
    if (/key/i.test(nameOf(path)) && bytes.length <= 128 && MASTER_KEY_FILE.test(bytes.toString('latin1'))) {
      findings.push({ rule: 'cairn:master-key', path, line: 1, confidence: 'high', action: 'withheld' });
    }
    const redactable =
      kind === null && !scan.decoded && !looksBinary(bytes) && findings.every((f) => f.line > 0);
    return this.verdict(path, bytes, findings, redactable ? scan.spans : null);
  }

  /** `spans`: where the findings are, when the file may be redacted rather than withheld. */
  private verdict(path: string, bytes: Buffer, all: SecretFinding[], spans: readonly Span[] | null): Verdict {
    const findings = dedupe(this.keep(all, path));
    if (findings.every((f) => f.action === 'kept')) return { store: 'as-is', findings };
    // A high-confidence credential withholds its file: companions the rules do not know (the secret
    // beside an AWS key id) are often next to it. Examples (low confidence) are redacted in place.
    if (spans && findings.every((f) => f.confidence === 'low')) {
      const kept = new Set(findings.map((f) => `${f.rule}\n${f.line}`));
      const found = spans.filter((s) => kept.has(`${s.rule}\n${lineIn(bytes, s.start)}`));
      const covered = new Set(found.map((s) => `${s.rule}\n${lineIn(bytes, s.start)}`));
      // Redaction is sound only when every finding has its span: anything else withholds the file.
      if (covered.size === kept.size) {
        return { store: 'redacted', bytes: redact(bytes, found), findings: mark(findings, 'redacted') };
      }
    }
    return { store: 'withhold', findings: mark(findings, 'withheld') };
  }

  /**
   * A scan of a file larger than one chunk (`abs` on disk, `size` bytes),
   * window by window; such a file is withheld whole on a finding. Files of
   * 4 MiB and more go to the scan worker where there is one.
   */
  stream(path: string, abs: string, size: number): GuardStream {
    const guard = this;
    let findings: SecretFinding[] = [];
    const settle = (found: SecretFinding[]) => {
      findings = dedupe(guard.keep(found, path));
      return findings.length === 0;
    };
    const worker = this.scanContent && size >= WORKER_MIN_BYTES ? this.worker() : null;
    if (worker) {
      const file = worker.open();
      return {
        get findings() {
          return findings;
        },
        async feed(window, offset) {
          const scanned = await worker.feed(file, path, abs, window, offset);
          return { clean: settle(scanned.findings), window: scanned.window };
        },
        close: () => worker.end(file),
      };
    }
    const scan = new StreamScan(path, { lineAt: lineCounter(abs) });
    let queue: Promise<unknown> = Promise.resolve();
    return {
      get findings() {
        return findings;
      },
      feed(window, offset) {
        if (!guard.scanContent) return Promise.resolve({ clean: true, window });
        // Windows are scanned in order.
        const done = queue.then(async () => {
          await scan.feed(window, offset);
          return { clean: settle(scan.findings), window };
        });
        queue = done.catch(() => undefined);
        return done;
      },
      close: () => {},
    };
  }

  private scanWorker: ScanWorker | null | undefined;

  /** The scan worker, started on first use; null where the built worker module is not there. */
  private worker(): ScanWorker | null {
    if (this.scanWorker === undefined) this.scanWorker = ScanWorker.available() ? new ScanWorker() : null;
    return this.scanWorker;
  }

  /** Starts the scan worker now (where there is one), ahead of the scans that will need it. */
  warmUp(): void {
    if (this.scanContent) this.worker()?.warm();
  }

  /** Windows scanned on the worker thread so far (benchmarks and tests). */
  get workerWindows(): number {
    return this.scanWorker?.windows ?? 0;
  }

  /** Small files scanned on the worker thread so far (benchmarks and tests). */
  get workerFiles(): number {
    return this.scanWorker?.wholeFiles ?? 0;
  }

  async close(): Promise<void> {
    await this.scanWorker?.close();
    this.scanWorker = undefined;
  }

  /** Findings in a git pack's objects (through git); one `pack-not-scanned` finding, kept, when git is missing. */
  async packFindings(path: string, abs: string): Promise<SecretFinding[]> {
    if (!this.scanContent || !isPack(path)) return [];
    const findings: SecretFinding[] = [];
    let described = 0;
    let paths: Map<string, string> | null = null;
    const walked = await walkPack(abs, path, async (type, oid, content) => {
      if (type === 'tree') return true;
      const scan = new StreamScan(path, { lineAt: (o) => lineIn(content, o) });
      await scan.feed(content, 0);
      const found = this.keep(scan.findings, path);
      if (found.length === 0) return true;
      // Every finding is judged by the path its object lives under (one rev-list for the pack); the
      // commit is named for the first few only: each is a `git log`.
      paths ??= reachablePaths(abs, path);
      const inPath = paths.get(oid);
      findings.push(
        ...(described++ < 20
          ? await locate(found, content, oid, abs, path)
          : await locate(found, content, oid, undefined, path, inPath)),
      );
      return true;
    });
    if (!walked) {
      return [{ rule: 'git-history:pack-not-scanned', path, line: 0, confidence: 'low', action: 'kept' }];
    }
    return dedupe(findings);
  }
}

/**
 * Findings in a git object, with the commit and path git gives for it and
 * judged by that path (the object is rescanned under it). Withholding an
 * object (or a whole pack) takes it out of the restored repository, so a
 * low-confidence finding there (an example in a test or README, whose
 * working-tree copy is redacted) is listed and kept; a high one is withheld.
 */
async function locate(
  found: SecretFinding[],
  content: Buffer,
  object: string,
  abs: string | undefined,
  path: string,
  knownPath?: string,
): Promise<SecretFinding[]> {
  const where = abs ? describeObject(abs, path, object) : knownPath ? { inPath: knownPath } : {};
  let judged = found;
  if (where.inPath) {
    const rescan = new StreamScan(where.inPath, { lineAt: (o) => lineIn(content, o) });
    await rescan.feed(content, 0);
    if (rescan.findings.length > 0) judged = rescan.findings.map((f) => ({ ...f, path }));
  }
  return judged.map((f) => ({
    ...f,
    action: f.confidence === 'low' ? ('kept' as const) : f.action,
    object,
    ...where,
  }));
}

function mark(findings: SecretFinding[], action: FindingAction): SecretFinding[] {
  return findings.map((f) => (f.action === 'kept' ? f : { ...f, action }));
}

/** True when the `'fail'` policy refuses: a high-confidence credential would be kept out. */
export function blocksCheckpoint(findings: readonly SecretFinding[]): boolean {
  return findings.some((f) => f.confidence === 'high' && f.action !== 'kept');
}

const defaultGuard = new Guard();

/**
 * Scans one file's bytes as a checkpoint would (path rules included) and
 * returns its findings, empty when it may be kept as is. Findings are sorted
 * by line and hold no secret value.
 */
export async function scanFile(
  path: string,
  bytes: Uint8Array,
  guard: Guard = defaultGuard,
): Promise<SecretFinding[]> {
  return (await guard.admit(path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))).findings;
}

function dedupe(findings: SecretFinding[]): SecretFinding[] {
  const seen = new Set<string>();
  const out: SecretFinding[] = [];
  for (const f of findings.sort(
    (a, b) => a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  )) {
    const key = `${f.rule}\n${f.line}\n${f.object ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

// ---- objects a remote client sends -------------------------------------------------

/**
 * The store's own look at a pack a remote client sends (`deskPutPack`, a
 * commit's inline pack): the client's guard may be off or not Cairn's, so
 * every object is scanned again, off the event loop where the scan worker is
 * built. An honest client keeps credentials out (withheld, or redacted when
 * they are examples), so a high-confidence finding here means the client's
 * guard did not run: FORBIDDEN (see {@link guardFailure}), and nothing of the
 * pack is stored. Findings name the object; they hold no secret.
 */
export async function refuseSecretsInPack(pack: Buffer, guard: Guard = defaultGuard): Promise<void> {
  const findings: SecretFinding[] = [];
  for (const entry of readPackIndex(pack)) {
    // A copy: the scan worker may take the bytes over.
    const bytes = Buffer.from(pack.subarray(entry.off, entry.off + entry.len));
    const verdict = await guard.admit(`[${entry.kind} ${entry.digest}]`, bytes, undefined, true, true);
    findings.push(...verdict.findings);
  }
  if (blocksCheckpoint(findings)) throw guardFailure(findings);
}

// ---- policy -----------------------------------------------------------------

const MESSAGE_FINDINGS = 5;

/**
 * The error for the `'fail'` policy: FORBIDDEN, with `data.findings` holding
 * rule, path and line of each finding (copied field by field: nothing else
 * from the caller's objects is carried along).
 */
export function guardFailure(findings: readonly SecretFinding[]): CairnError {
  const clean = findings.map((f) => ({
    rule: String(f.rule),
    path: String(f.path),
    line: Number(f.line),
    confidence: f.confidence === 'low' ? 'low' : 'high',
    ...(f.commit ? { commit: String(f.commit) } : {}),
    ...(f.inPath ? { inPath: String(f.inPath) } : {}),
  }));
  const shown = clean
    .slice(0, MESSAGE_FINDINGS)
    .map(
      (f) =>
        `${f.path}${f.line > 0 ? `:${f.line}` : ''} (${f.rule}${f.commit ? ` in commit ${f.commit}` : ''}${f.inPath ? ` at ${f.inPath}` : ''})`,
    )
    .join(', ');
  const more = clean.length > MESSAGE_FINDINGS ? ` and ${clean.length - MESSAGE_FINDINGS} more` : '';
  return forbidden(
    `checkpoint refused: ${clean.length} secret finding(s) in the workspace: ${shown}${more}; ` +
      'remove the secret (from git history too, for a finding in .git), or add the path to .cairnignore to leave it out of snapshots',
    { findings: clean },
  );
}
