/**
 * Paths as an upstream might read them. A grant's path prefix is judged on
 * the path the agent sent, but servers percent-decode (sometimes twice),
 * strip NUL and whitespace, treat `\` as `/`, fold full-width and other
 * look-alike dots to `.`, and cut `;params` off a segment. A path that could
 * mean `.`/`..` or a different separator to any of them is refused outright,
 * so the prefix check sees what the upstream will act on.
 */
export type PathVerdict = { ok: true; decoded: string } | { ok: false; reason: string };

/** Characters some server, runtime or filesystem folds to `.`. */
const DOT_LOOKALIKES = new Set([
  '\u2024', // one dot leader
  '\u2025', // two dot leader
  '\u2026', // ellipsis
  '\uFE52', // small full stop
  '\uFF0E', // full-width full stop
  '\u3002', // ideographic full stop
  '\uFF61', // half-width ideographic full stop
  '\u0589', // armenian full stop
  '\u06D4', // arabic full stop
  '\u0701', // syriac supralinear full stop
  '\u0702', // syriac sublinear full stop
  '\uA4F8', // lisu letter tone mya ti
  '\uA60E', // vai full stop
  '\u2E3C', // stenographic full stop
  '\u00B7', // middle dot
  '\u2219', // bullet operator
]);
/** Characters some server folds to `/` or `\`. */
const SEPARATOR_LOOKALIKES = new Set([
  '\uFF0F',
  '\u2215',
  '\u2044',
  '\u29F8',
  '\uFF3C',
  '\u2216',
  '\uFE68',
  '\u29F9',
]);
/** Control, format (zero-width, bidi), separator and whitespace characters, and backslash. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u;
const ESCAPE = /%[0-9a-fA-F]{2}/;
/** `.`, `..`, `...`, each also with `;params` (`..;x` is `..` to Tomcat and Spring). */
const DOT_SEGMENT = /^\.+(;.*)?$/;

function describe(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code === 0 ? 'NUL' : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why a form of the path is ambiguous, or undefined when it is plain. */
function ambiguity(form: string): string | undefined {
  const invisible = INVISIBLE.exec(form);
  if (invisible)
    return invisible[0] === '\\'
      ? 'a backslash'
      : `a control or whitespace character (${describe(invisible[0])})`;
  for (const c of form) {
    if (c.charCodeAt(0) < 0x80) continue;
    if (DOT_LOOKALIKES.has(c) || SEPARATOR_LOOKALIKES.has(c))
      return `a look-alike of . or / (${describe(c)})`;
    // Anything that Unicode compatibility folding turns into a dot, a slash, a backslash or a `%`.
    if (/[./\\%]/.test(c.normalize('NFKC'))) return `a character that folds to . / \\ or % (${describe(c)})`;
  }
  if (form.split('/').some((s) => DOT_SEGMENT.test(s))) return 'a . or .. segment';
  return undefined;
}

/**
 * Judges a request path (without query) before it is matched against a
 * grant: it must start with `/`, be printable ASCII as sent, decode to valid
 * UTF-8 (an overlong form such as `%C0%AE` is not), hold no double encoding,
 * and — as sent and decoded — no dot segment, control character,
 * whitespace, backslash or look-alike of `.` or `/`.
 */
export function judgePath(rawPath: string): PathVerdict {
  const refuse = (why: string): PathVerdict => ({
    ok: false,
    reason: `path ${truncatePath(rawPath)} holds ${why}: give a plain path under the credential's upstream (no . or .. segments, no encoded separators or controls)`,
  });
  if (!rawPath.startsWith('/')) return refuse('no leading /');
  if (!/^[\x21-\x7e]*$/.test(rawPath))
    return refuse('a byte that is not printable ASCII (percent-encode it)');
  const sent = ambiguity(rawPath);
  if (sent) return refuse(sent);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return refuse('percent-encoding that is not valid UTF-8 (an overlong or cut sequence)');
  }
  const once = ambiguity(decoded);
  if (once) return refuse(`${once} once percent-decoded`);
  // A `%` escape left after decoding is double encoding: a server that decodes twice sees another path.
  if (ESCAPE.test(decoded)) return refuse('double percent-encoding');
  const folded = decoded.normalize('NFKC');
  if (folded !== decoded) {
    const again = ambiguity(folded);
    if (again) return refuse(`${again} after Unicode folding`);
  }
  return { ok: true, decoded };
}

/** A path cut for messages and audit entries: a refused path may be as long as a header allows. */
export function truncatePath(path: string, max = 128): string {
  return path.length <= max ? path : `${path.slice(0, max)}…(${path.length} chars)`;
}
