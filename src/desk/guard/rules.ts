/**
 * Cairn's own content rules, beside secretlint's preset: formats the preset
 * does not know (Cairn's tokens, branch handles and master keys, kubeconfig,
 * docker `auths`, cloud credential files, `.netrc` lines, PuTTY keys, private
 * key blocks the preset misses, Stripe and Tailscale keys), and the
 * confidence of a finding.
 *
 * A rule is a few literal keywords (for the prefilter, see automaton.ts) and
 * a finder that returns the spans of the secret values in a text of one byte
 * per character (latin1).
 */
import { createPrivateKey } from 'node:crypto';
import { crc32 } from 'node:zlib';

export type Confidence = 'high' | 'low';

/** A secret value found: offsets into the scanned text, end exclusive. */
export interface Span {
  rule: string;
  start: number;
  end: number;
  /** Set when the rule knows (a key that parses, a valid checksum); otherwise judged by {@link confidenceOf}. */
  confidence?: Confidence;
}

export interface OwnRule {
  id: string;
  keywords: readonly string[];
  find(text: string): Span[];
}

/** Spans of `group` (or the whole match) of every match of a global pattern. */
function regexRule(
  id: string,
  keywords: string[],
  pattern: RegExp,
  when?: (text: string) => boolean,
): OwnRule {
  return {
    id,
    keywords,
    find(text) {
      if (when && !when(text)) return [];
      const spans: Span[] = [];
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        const value = m[1] ?? m[0];
        const start = m.index + m[0].lastIndexOf(value);
        spans.push({ rule: id, start, end: start + value.length });
        if (m[0].length === 0) pattern.lastIndex++;
      }
      return spans;
    },
  };
}

const ID = '[a-z]{2}_[0-9a-z]{26}';
const SECRET52 = '[0-9a-z]{52}';
const B64 = '[A-Za-z0-9+/]';

const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;

/** Private key blocks, also without their END line; high when the key parses or is encrypted. */
const privateKeyBlock: OwnRule = {
  id: 'cairn:private-key',
  keywords: ['-----begin '],
  find(text) {
    const spans: Span[] = [];
    PEM_BEGIN.lastIndex = 0;
    for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
      const bodyStart = m.index + m[0].length;
      const endMarker = text.indexOf('-----END ', bodyStart);
      let end: number;
      if (endMarker !== -1 && endMarker - bodyStart < 65536) {
        const close = text.indexOf('-----', endMarker + 9);
        end = close === -1 ? endMarker : close + 5;
      } else {
        // No END line: the body runs while lines look like base64 or PEM headers.
        const body = /^(?:[\r\n]+(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [^\r\n]*))*/.exec(
          text.slice(bodyStart, bodyStart + 65536),
        );
        end = bodyStart + (body?.[0].length ?? 0);
      }
      const block = text.slice(m.index, end);
      const base64 = block
        .slice(m[0].length)
        .replace(/-----END[\s\S]*$/, '')
        .replace(/[^A-Za-z0-9+/=]/g, '');
      // A marker without key material (documentation naming the format) is no finding.
      if (base64.length < 64) {
        PEM_BEGIN.lastIndex = bodyStart;
        continue;
      }
      let confidence: Confidence = 'low';
      if (/ENCRYPTED/.test(block) && base64.length >= 200) confidence = 'high';
      else {
        try {
          createPrivateKey(block);
          confidence = 'high';
        } catch {
          // Node cannot parse OpenSSH or PGP blocks: a full-length one is taken as real; anything else
          // that does not parse (a truncated example) is low.
          confidence = base64.length >= 300 && /OPENSSH|PGP/.test(m[1] ?? '') ? 'high' : 'low';
        }
      }
      spans.push({ rule: 'cairn:private-key', start: m.index, end, confidence });
      PEM_BEGIN.lastIndex = Math.max(end, bodyStart);
    }
    return spans;
  },
};

/** PuTTY `.ppk` keys: the whole key file, from its header to the MAC line. */
const puttyKey: OwnRule = {
  id: 'cairn:putty-key',
  keywords: ['putty-user-key-file-'],
  find(text) {
    const spans: Span[] = [];
    // The private part: `Private-Lines: n` and its base64 lines, up to the MAC.
    const re =
      /PuTTY-User-Key-File-\d+: [^\r\n]*[\s\S]{0,65536}?Private-Lines: \d+\r?\n[A-Za-z0-9+/=\r\n]{40,}(?:Private-(?:MAC|Hash): [0-9a-fA-F]+)?/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      spans.push({ rule: 'cairn:putty-key', start: m.index, end: m.index + m[0].length, confidence: 'high' });
    }
    return spans;
  },
};

const isKubeconfig = (text: string) => /^kind:\s*["']?Config\b/m.test(text) && /^users:/m.test(text);
const hasMsalCache = (text: string) =>
  /"credential_type"\s*:\s*"(?:RefreshToken|AccessToken|IdToken)"/.test(text);

export const OWN_RULES: readonly OwnRule[] = [
  regexRule(
    'cairn:token',
    ['cairn.'],
    new RegExp(`\\bcairn\\.[A-Za-z0-9_-]{1,64}\\.${ID}\\.(${SECRET52})\\b`, 'g'),
  ),
  regexRule(
    'cairn:branch-handle',
    ['cbh.'],
    new RegExp(`\\bcbh\\.[A-Za-z0-9_-]{1,64}\\.${ID}\\.(${SECRET52})\\b`, 'g'),
  ),
  // A master key (64 hex digits or base64 of 32 bytes) named as one: `CAIRN_MASTER_KEY=…`, the
  // `{"masterKey": …}` that `cairn cred keygen --json` prints, `master key: …` in notes.
  regexRule(
    'cairn:master-key',
    ['master_key', 'master-key', 'masterkey', 'master key'],
    /master[ _-]?key[^\n]{0,48}?(?<![0-9A-Za-z+/_-])([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)(?![0-9A-Za-z+/=_-])/gi,
  ),
  // What `cairn cred keygen` prints, kept in a transcript: the command, then the key a few lines on.
  regexRule(
    'cairn:master-key',
    ['cred keygen'],
    /cred keygen[^\n]*\r?\n(?:[^\n]*\r?\n){0,3}?[^\n]*?(?<![0-9A-Za-z])([0-9a-f]{64})(?![0-9A-Za-z])/g,
  ),
  // JSON Web Tokens (a kubeconfig's or service account's bearer token, an OAuth id token): header and
  // payload are base64url JSON (`eyJ`), then a signature.
  regexRule(
    'cairn:jwt',
    ['eyj'],
    /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
  ),
  privateKeyBlock,
  puttyKey,
  regexRule(
    'cairn:stripe',
    ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'],
    /\b[rs]k_(?:live|test)_[0-9a-zA-Z]{20,247}\b/g,
  ),
  regexRule('cairn:tailscale', ['tskey-'], /\btskey-(?:[a-z]+-)?[0-9A-Za-z]{6,}-[0-9A-Za-z]{16,}\b/g),
  regexRule(
    'cairn:kubeconfig',
    ['client-key-data'],
    new RegExp(`client-key-data:\\s*["']?(${B64}{16,}={0,2})`, 'g'),
  ),
  // A kubeconfig's user entry (`users: - name: … user: token: …`), with or without `kind: Config`.
  regexRule(
    'cairn:kubeconfig',
    ['user:'],
    /^[ \t-]*user:[ \t]*\r?\n(?:[ \t]+[\w-]+:[^\n]*\r?\n){0,12}?[ \t]+(?:token|id-token|refresh-token|client-secret|password):[ \t]*["']?(?![{$])([^\s"'#]{8,})/gm,
  ),
  regexRule(
    'cairn:kubeconfig',
    ['kind: config', 'kind: "config"'],
    /^\s*(?:token|id-token|refresh-token|client-secret|password):\s*["']?([^\s"'#]{8,})/gm,
    isKubeconfig,
  ),
  regexRule('cairn:docker-auth', ['"auth"'], new RegExp(`"auth"\\s*:\\s*"(${B64}{8,}={0,2})"`, 'g')),
  regexRule('cairn:docker-auth', ['"identitytoken"'], /"identitytoken"\s*:\s*"([^"\s]{8,})"/g),
  regexRule(
    'cairn:aws-credentials',
    ['aws_secret_access_key'],
    new RegExp(`aws_secret_access_key\\s*[=:]\\s*["']?(${B64}{30,})`, 'gi'),
  ),
  regexRule(
    'cairn:aws-credentials',
    ['aws_session_token'],
    /aws_session_token\s*[=:]\s*["']?([A-Za-z0-9/+=]{20,})/gi,
  ),
  regexRule('cairn:gcloud', ['"private_key"'], /"private_key"\s*:\s*"(-----BEGIN[^"]{32,})"/g),
  regexRule('cairn:gcloud', ['"refresh_token"'], /"refresh_token"\s*:\s*"([^"\s]{10,})"/g),
  regexRule(
    'cairn:oauth-client-secret',
    ['"client_secret"', '"clientsecret"'],
    /"client_?[sS]ecret"\s*:\s*"([^"\s]{8,})"/g,
  ),
  regexRule(
    'cairn:azure',
    ['accountkey=', 'sharedaccesskey='],
    new RegExp(`(?:AccountKey|SharedAccessKey)=(${B64}{20,}={0,2})`, 'g'),
  ),
  regexRule('cairn:azure', ['"secret"'], /"secret"\s*:\s*"([^"\s]{16,})"/g, hasMsalCache),
  regexRule(
    'cairn:netrc',
    ['machine', 'default'],
    /\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(\S+)/g,
  ),
];

// ---- confidence ---------------------------------------------------------------

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number, width: number): string {
  let out = '';
  let v = n >>> 0;
  for (let i = 0; i < width; i++) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

/**
 * GitHub (`ghp_` …) and npm (`npm_`) tokens end in a CRC32 of their random
 * part, base62, six characters: true when it checks out.
 */
export function checksumValid(token: string): boolean {
  const m = /^(?:gh[pousr]|npm)_([A-Za-z0-9]{30})([A-Za-z0-9]{6})$/.exec(token);
  if (!m) return false;
  return base62(crc32(m[1] as string), 6) === m[2];
}

/** Makes a checksum-valid token of the given prefix from 30 base62 characters (for tests and corpora). */
export function withChecksum(prefix: string, random30: string): string {
  return `${prefix}_${random30}${base62(crc32(random30), 6)}`;
}

/** Words and marks that make a value a placeholder: a finding in such a value is low confidence. */
export const EXAMPLE_VALUE =
  /example|sample|dummy|fake|placeholder|changeme|redacted|your[_-]|x{6}|\*{4}|\.\.\.|<[a-z_ -]+>|\$\{/i;
const KNOWN_EXAMPLES = new Set(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);
const EXAMPLE_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'fixtures',
  '__fixtures__',
  'testdata',
  'test-data',
  'examples',
  'example',
  'docs',
  'doc',
  'node_modules',
  'vendor',
]);
const EXAMPLE_FILE = /\.(?:md|markdown|rst|adoc)$|^readme|^changelog|^history|\.(?:test|spec)\.[a-z]+$/i;

/** True when the path is documentation, a test, or a dependency: where example credentials live. */
export function examplePath(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1] ?? '';
  return EXAMPLE_FILE.test(name) || parts.slice(0, -1).some((d) => EXAMPLE_DIRS.has(d.toLowerCase()));
}

function lowEntropy(value: string): boolean {
  if (/(.)\1{7}/.test(value)) return true;
  return value.length >= 12 && new Set(value).size < 6;
}

/**
 * How sure a finding is. High: the rule knows (a private key that parses, a
 * token whose checksum holds), or nothing suggests an example. Low: an
 * example-looking value, a token with a failing checksum, or a path of
 * documentation, tests or dependencies.
 */
export function confidenceOf(span: Span, value: string, path: string): Confidence {
  if (span.confidence) return span.confidence;
  const token = /(?:gh[pousr]|npm)_[A-Za-z0-9]{36}/.exec(value)?.[0];
  if (token) return checksumValid(token) ? 'high' : 'low';
  if (KNOWN_EXAMPLES.has(value) || EXAMPLE_VALUE.test(value) || lowEntropy(value)) return 'low';
  return examplePath(path) ? 'low' : 'high';
}
