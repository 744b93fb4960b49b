/**
 * What a workspace snapshot does not keep.
 *
 * Two separate things decide it:
 *
 * - The path filter: `.cairnignore` (gitignore syntax, via the `ignore`
 *   package) on top of {@link DEFAULT_IGNORES}. An ignored path is simply not
 *   part of the workspace as far as Cairn is concerned.
 * - The secret guard: credential files recognised by their path
 *   ({@link credentialPathRule}; `.npmrc`/`.pypirc` by path and content), and
 *   file contents that secretlint's recommended rule set flags
 *   ({@link scanFile}). What to do with a finding is the caller's policy
 *   ({@link SecretPolicy}); {@link guardFailure} builds the error for `'fail'`.
 *
 * A finding names the rule, the path and the line, never the secret itself:
 * not in findings, messages or error data.
 *
 * Content scanning is kept cheap: only files that look like text (no NUL in
 * the first 8 KiB) and are at most `maxScanBytes` long are scanned, and one
 * pass of a keyword automaton over the bytes picks which secretlint rules can
 * possibly match, so most files never reach secretlint at all.
 *
 * Library code: it reads no environment, working directory or home folder.
 */
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import ignore from 'ignore';
import { CairnError } from '../errors.js';

/** `'exclude'` (default): leave the file out of the snapshot and report it; `'fail'`: refuse the checkpoint. */
export type SecretPolicy = 'exclude' | 'fail';

/** One secret found: which rule, where. `line` is 1-based, 0 for a finding on the path alone. */
export interface SecretFinding {
  rule: string;
  path: string;
  line: number;
}

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
        throw new CairnError(
          'INVALID_ARGUMENT',
          `path ${JSON.stringify(relPath)} is not workspace-relative`,
          {
            path: relPath,
          },
        );
      }
      return ig.ignores(isDir ? `${relPath}/` : relPath);
    },
  };
}

// ---- credential paths -------------------------------------------------------

/** `.env.*` files that by convention hold no real values. */
const SAFE_DOTENV_SUFFIXES = new Set(['example', 'sample', 'template']);
const SSH_KEY_PREFIXES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'];
const GCLOUD_FILES = new Set(['application_default_credentials.json', 'credentials.db', 'access_tokens.db']);
const AZURE_FILES = new Set([
  'accesstokens.json',
  'msal_token_cache.json',
  'msal_token_cache.bin',
  'service_principal_entries.json',
  'service_principal_entries.bin',
]);

/**
 * The credential-path rule a path falls under (`'credential-path:dotenv'`,
 * …), or null. Needs no content; `.npmrc` and `.pypirc` are judged by
 * {@link scanFile}, since they only hold a secret sometimes.
 */
export function credentialPathRule(relPath: string): string | null {
  const parts = relPath.split('/');
  const name = (parts[parts.length - 1] ?? '').toLowerCase();
  const parent = parts.length > 1 ? parts[parts.length - 2] : undefined;
  if (name === '.env') return 'credential-path:dotenv';
  if (name.startsWith('.env.')) {
    const last = name.slice(name.lastIndexOf('.') + 1);
    return SAFE_DOTENV_SUFFIXES.has(last) ? null : 'credential-path:dotenv';
  }
  if (name.endsWith('.pem')) return 'credential-path:pem';
  if (name.endsWith('.key')) return 'credential-path:private-key';
  if (name.endsWith('.p12') || name.endsWith('.pfx')) return 'credential-path:pkcs12';
  if (SSH_KEY_PREFIXES.some((p) => name.startsWith(p)) && !name.endsWith('.pub'))
    return 'credential-path:ssh-key';
  if (name === '.netrc' || name === '_netrc') return 'credential-path:netrc';
  if (name === '.pgpass') return 'credential-path:pgpass';
  if (parent === '.aws' && name === 'credentials') return 'credential-path:aws';
  if (parent === '.docker' && name === 'config.json') return 'credential-path:docker';
  const dirs = parts.slice(0, -1);
  if (dirs.includes('gcloud') && (GCLOUD_FILES.has(name) || dirs.includes('legacy_credentials'))) {
    return 'credential-path:gcloud';
  }
  if (dirs.includes('.azure') && AZURE_FILES.has(name)) return 'credential-path:azure';
  return null;
}

/** True when the path's verdict depends on its content (`.npmrc`, `.pypirc`): read it even if it is small. */
export function pathNeedsContent(relPath: string): boolean {
  return contentPathKind(relPath) !== null;
}

function contentPathKind(relPath: string): 'npmrc' | 'pypirc' | null {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  if (name === '.npmrc') return 'npmrc';
  if (name === '.pypirc') return 'pypirc';
  return null;
}

/** `_authToken=`, `_auth=`, `_password=` (optionally registry-scoped) in `.npmrc`; `password` in `.pypirc`. */
const CONTENT_PATH_KEYS = {
  npmrc: /^\s*(?:\S*:)?_(?:authToken|auth|password)\s*=\s*(.*)$/,
  pypirc: /^\s*password\s*[=:]\s*(.*)$/,
} as const;

function contentPathFindings(relPath: string, kind: 'npmrc' | 'pypirc', text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*[#;]/.test(line)) continue; // ini comments
    const m = CONTENT_PATH_KEYS[kind].exec(line);
    if (!m) continue;
    const value = (m[1] ?? '').trim().replace(/^["']|["']$/g, '');
    // `_authToken=${NPM_TOKEN}` reads the token from the environment: nothing is stored.
    if (value === '' || (kind === 'npmrc' && value.startsWith('${'))) continue;
    findings.push({ rule: `credential-path:${kind}`, path: relPath, line: i + 1 });
  }
  return findings;
}

// ---- content scanning (secretlint) ------------------------------------------

/** Files larger than this are not content-scanned (path rules still apply). */
export const DEFAULT_MAX_SCAN_BYTES = 1024 * 1024;
/** A NUL within this many leading bytes marks a file as binary, not scanned. */
const BINARY_SNIFF_BYTES = 8192;

export interface ScanOptions {
  /** Content-scan only files of at most this many bytes; default {@link DEFAULT_MAX_SCAN_BYTES}. */
  maxScanBytes?: number;
}

// The profiler is on by default and keeps every mark it makes: off, for speed and memory.
secretLintProfiler.setEnabled(false);

const RULE_PREFIX = '@secretlint/secretlint-rule-';

/**
 * Prefilter: for each rule of the recommended preset, literal strings (ASCII,
 * matched case-insensitively) of which every match of the rule contains at
 * least one, read off the rules' own patterns. A rule none of whose keywords
 * occur in a file cannot match it and is not run. A rule missing from this
 * table always runs (slower, never less safe); the tests fail when the preset
 * gains a rule that is not listed here.
 */
const RULE_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  aws: [
    'secret_access',
    'secretaccess',
    'a3t',
    'akia',
    'agpa',
    'aida',
    'aroa',
    'aipa',
    'anpa',
    'anva',
    'asia',
  ],
  gcp: ['private_key'],
  npm: ['x-oauth-basic', '_authtoken=', 'npm_'],
  slack: ['xoxb-', 'xoxp-', 'xapp-', 'xoxa-', 'xoxo-', 'xoxr-', 'hooks.slack.com'],
  basicauth: ['://'],
  openai: ['t3blbkfj'],
  anthropic: ['sk-ant-api0'],
  groq: ['gsk_'],
  huggingface: ['hf_'],
  linear: ['lin_api_'],
  notion: ['ntn_'],
  privatekey: ['-----begin'],
  sendgrid: ['sg.'],
  shopify: ['shppa_', 'shpca_', 'shpat_', 'shpss_'],
  stripe: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'],
  github: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  gitlab: ['glpat-'],
  grafana: ['glc_', 'glsa_'],
  '1password': ['ops_ey'],
  'database-connection-string': ['mongodb', 'mysql', 'postgres'],
  'hashicorp-vault': ['hvs.', 'hvb.', 'hvr.'],
  vercel: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
  databricks: ['dapi'],
  docker: ['dckr_pat_'],
  figma: ['figd_'],
  cloudflare: ['cfk_', 'cfut_', 'cfat_'],
  tailscale: ['tskey-'],
  // `secretlint-disable…` comments: lets a reviewed false positive through.
  'filter-comments': ['secretlint-'],
};

/** Options per rule; the AWS access key id scan is off in secretlint by default. */
const RULE_OPTIONS: Readonly<Record<string, object>> = { aws: { enableIDScanRule: true } };
/** Messages dropped: an AWS account id is an identifier, not a credential. */
const DROPPED_MESSAGES = new Set(['AWSAccountID']);

type LintConfig = Parameters<typeof lintSource>[0]['options']['config'];
type Rule = (typeof recommendedRules)[number];

function shortRuleId(rule: Rule): string {
  const id = rule.meta.id;
  return id.startsWith(RULE_PREFIX) ? id.slice(RULE_PREFIX.length) : id;
}

/** Rule ids (short form) of the preset that the prefilter has no keywords for. */
export function unkeyedSecretRules(): string[] {
  return recommendedRules.map(shortRuleId).filter((id) => RULE_KEYWORDS[id] === undefined);
}

interface Automaton {
  /**
   * The DFA, indexed by `state * 256 + byte` (ASCII letters folded). Holds the
   * next state times 256, negated when that state ends a keyword: the scan loop
   * then needs no multiply and one sign test per byte.
   */
  delta: Int32Array;
  /** Per state: indices into `recommendedRules` that a match ending there enables. */
  enables: number[][];
  /** Per state: the last scan that recorded it (dedupes hits without allocating). */
  seen: Uint32Array;
  /** Rules that run on every scanned file (not in the keyword table). */
  always: number[];
}

let automaton: Automaton | null = null;
let scanGeneration = 0;

function fold(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

/** Aho–Corasick over the keyword table, as a full DFA on bytes. */
function buildAutomaton(): Automaton {
  const goto: Map<number, number>[] = [new Map()];
  const outputs: Set<number>[] = [new Set()];
  const always: number[] = [];
  recommendedRules.forEach((rule, ruleIndex) => {
    const keywords = RULE_KEYWORDS[shortRuleId(rule)];
    if (!keywords) {
      always.push(ruleIndex);
      return;
    }
    for (const keyword of keywords) {
      let s = 0;
      for (const byte of Buffer.from(keyword.toLowerCase(), 'latin1')) {
        let next = goto[s]!.get(byte);
        if (next === undefined) {
          next = goto.length;
          goto.push(new Map());
          outputs.push(new Set());
          goto[s]!.set(byte, next);
        }
        s = next;
      }
      outputs[s]!.add(ruleIndex);
    }
  });
  const n = goto.length;
  const delta = new Uint32Array(n * 256);
  const failure = new Array<number>(n).fill(0);
  const queue: number[] = [];
  for (let c = 0; c < 256; c++) {
    const next = goto[0]!.get(fold(c));
    delta[c] = next ?? 0;
    if (next !== undefined && c === fold(c)) queue.push(next);
  }
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head]!;
    for (const r of outputs[failure[s]!]!) outputs[s]!.add(r);
    for (let c = 0; c < 256; c++) {
      const next = goto[s]!.get(fold(c));
      if (next === undefined) {
        delta[s * 256 + c] = delta[failure[s]! * 256 + c]!;
      } else {
        delta[s * 256 + c] = next;
        if (c === fold(c)) {
          failure[next] = delta[failure[s]! * 256 + c]!;
          queue.push(next);
        }
      }
    }
  }
  const encoded = new Int32Array(n * 256);
  for (let i = 0; i < delta.length; i++) {
    const next = delta[i]!;
    encoded[i] = outputs[next]!.size > 0 ? -(next * 256) : next * 256;
  }
  return { delta: encoded, enables: outputs.map((o) => [...o]), seen: new Uint32Array(n), always };
}

/** Indices of the rules that can match these bytes, sorted. */
function candidateRules(bytes: Uint8Array): number[] {
  automaton ??= buildAutomaton();
  const { delta, enables, seen } = automaton;
  scanGeneration = (scanGeneration + 1) >>> 0;
  if (scanGeneration === 0) {
    seen.fill(0);
    scanGeneration = 1;
  }
  const generation = scanGeneration;
  const hits: number[] = [];
  let s = 0;
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    s = delta[s | bytes[i]!]!;
    if (s < 0) {
      s = -s;
      const state = s >> 8;
      if (seen[state] !== generation) {
        seen[state] = generation;
        hits.push(state);
      }
    }
  }
  if (hits.length === 0 && automaton.always.length === 0) return [];
  const selected = new Set(automaton.always);
  for (const state of hits) for (const r of enables[state]!) selected.add(r);
  return [...selected].sort((a, b) => a - b);
}

/**
 * Second look for rules whose keywords the case-folding prefilter over-selects:
 * AWS key ids are upper case (`AKIA…`), so `canvas` or `planValue` must not
 * run the AWS rules; the secret-key pattern needs "secret" and "access".
 */
const CONFIRM: Readonly<Record<string, (text: string) => boolean>> = {
  aws: (text) =>
    /(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}/.test(text) ||
    /secret_?access/i.test(text),
};

function confirmRules(rules: number[], text: string): number[] {
  return rules.filter((r) => {
    const check = CONFIRM[shortRuleId(recommendedRules[r] as Rule)];
    return check === undefined || check(text);
  });
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

function extensionOf(relPath: string): string {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : '';
}

async function lintContent(relPath: string, text: string, ruleIndices: number[]): Promise<SecretFinding[]> {
  const config: LintConfig = {
    rules: ruleIndices.map((i) => {
      const rule = recommendedRules[i]!;
      const options = RULE_OPTIONS[shortRuleId(rule)];
      return options ? { id: rule.meta.id, rule, options } : { id: rule.meta.id, rule };
    }),
  };
  // The file path is only a name to the rules (`.npmrc`, `package.json`, `.json`); `.p12` files, the
  // one case where a rule would read the path from disk, are credential paths and never get here.
  let result: Awaited<ReturnType<typeof lintSource>>;
  try {
    result = await lintSource({
      source: { filePath: relPath, ext: extensionOf(relPath), content: text, contentType: 'text' },
      options: { config, maskSecrets: true, noPhysicFilePath: true },
    });
  } catch (error) {
    // Fail closed; the cause stays out of the error's JSON, so no content can leak through it.
    throw new CairnError(
      'INTERNAL',
      `secret scan of ${relPath} failed; the file was not admitted`,
      { path: relPath },
      {
        cause: error,
      },
    );
  }
  const findings: SecretFinding[] = [];
  for (const message of result.messages) {
    if (DROPPED_MESSAGES.has(message.messageId)) continue;
    const id = message.ruleId.startsWith(RULE_PREFIX)
      ? message.ruleId.slice(RULE_PREFIX.length)
      : message.ruleId;
    findings.push({ rule: `secretlint:${id}`, path: relPath, line: message.loc.start.line });
  }
  return findings;
}

/**
 * Scans one file's bytes, path rules included; returns its findings, empty
 * when it may be kept. A credential path is reported (line 0) without reading
 * the content. Files over `maxScanBytes` or that look binary are not
 * content-scanned. Findings are sorted by line and hold no secret value.
 */
export async function scanFile(
  relPath: string,
  bytes: Uint8Array,
  options: ScanOptions = {},
): Promise<SecretFinding[]> {
  const pathRule = credentialPathRule(relPath);
  if (pathRule !== null) return [{ rule: pathRule, path: relPath, line: 0 }];
  const maxScanBytes = options.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES;
  if (bytes.length > maxScanBytes || looksBinary(bytes)) return [];
  const findings: SecretFinding[] = [];
  const kind = contentPathKind(relPath);
  let text: string | null = null;
  if (kind !== null) {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    findings.push(...contentPathFindings(relPath, kind, text));
  }
  let rules = candidateRules(bytes);
  if (rules.length > 0) {
    text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    rules = confirmRules(rules, text);
  }
  if (rules.length > 0 && text !== null) {
    findings.push(...(await lintContent(relPath, text, rules)));
  }
  return dedupe(findings);
}

function dedupe(findings: SecretFinding[]): SecretFinding[] {
  const seen = new Set<string>();
  const out: SecretFinding[] = [];
  for (const f of findings.sort(
    (a, b) => a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  )) {
    const key = `${f.rule}\n${f.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

// ---- policy -----------------------------------------------------------------

const MESSAGE_FINDINGS = 5;

/**
 * The error for the `'fail'` policy: FORBIDDEN, with `data.findings` holding
 * rule, path and line of each finding (copied field by field: nothing else
 * from the caller's objects is carried along).
 */
export function guardFailure(findings: readonly SecretFinding[]): CairnError {
  const clean = findings.map((f) => ({ rule: String(f.rule), path: String(f.path), line: Number(f.line) }));
  const shown = clean
    .slice(0, MESSAGE_FINDINGS)
    .map((f) => `${f.path}${f.line > 0 ? `:${f.line}` : ''} (${f.rule})`)
    .join(', ');
  const more = clean.length > MESSAGE_FINDINGS ? ` and ${clean.length - MESSAGE_FINDINGS} more` : '';
  return new CairnError(
    'FORBIDDEN',
    `checkpoint refused: ${clean.length} secret finding(s) in the workspace: ${shown}${more}; ` +
      'remove the secret, or add the path to .cairnignore to leave it out of snapshots',
    { findings: clean },
  );
}
