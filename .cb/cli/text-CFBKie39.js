import "./chunker-BmGAprKG.js";
import { closeSync, openSync, readSync } from "node:fs";
import { createPrivateKey } from "node:crypto";
import { crc32 } from "node:zlib";
// dist/desk/guard/decode.js
/**
* Text that is not UTF-8: UTF-16 and UTF-32, little or big endian, told by a
* byte-order mark or by a regular pattern of NUL bytes (ASCII text in UTF-16
* has a NUL in every other byte). Such text is decoded before it is scanned,
* so a credential cannot hide behind an encoding. What a scanner sees is one
* byte per character (characters past U+00FF become a space): the rules look
* for ASCII shapes, and positions stay simple.
*/
const SAMPLE = 4096;
/** The encoding a byte-order mark at the start of `bytes` names, with the mark's length. */
function bomEncoding(bytes) {
	const [a, b, c, d] = [
		bytes[0],
		bytes[1],
		bytes[2],
		bytes[3]
	];
	if (a === 255 && b === 254 && c === 0 && d === 0) return {
		encoding: "utf32le",
		bom: 4
	};
	if (a === 0 && b === 0 && c === 254 && d === 255) return {
		encoding: "utf32be",
		bom: 4
	};
	if (a === 255 && b === 254) return {
		encoding: "utf16le",
		bom: 2
	};
	if (a === 254 && b === 255) return {
		encoding: "utf16be",
		bom: 2
	};
	return null;
}
/**
* The encoding a regular NUL pattern in the first bytes suggests, or null:
* at least 90% of the bytes at the positions that are zero for ASCII text in
* that encoding are NUL, and under 10% elsewhere.
*/
function nulPatternEncoding(bytes) {
	const n = Math.min(bytes.length, SAMPLE) & -4;
	if (n < 16) return null;
	const zeros = [
		0,
		0,
		0,
		0
	];
	for (let i = 0; i < n; i++) if (bytes[i] === 0) zeros[i & 3]++;
	const q = n / 4;
	const hi = (k) => zeros[k] >= .9 * q;
	const lo = (k) => zeros[k] < .1 * q;
	if (lo(0) && hi(1) && hi(2) && hi(3)) return "utf32le";
	if (hi(0) && hi(1) && hi(2) && lo(3)) return "utf32be";
	if (lo(0) && hi(1) && lo(2) && hi(3)) return "utf16le";
	if (hi(0) && lo(1) && hi(2) && lo(3)) return "utf16be";
	return null;
}
function unitSize(encoding) {
	return encoding.startsWith("utf32") ? 4 : 2;
}
/**
* Decodes whole code units of `bytes` (trailing partial units are dropped)
* into one byte per character. `bytes` must start on a code-unit boundary.
*/
function decodeUnits(bytes, encoding) {
	const unit = unitSize(encoding);
	const count = Math.floor(bytes.length / unit);
	const out = Buffer.allocUnsafe(count);
	const little = encoding.endsWith("le");
	for (let i = 0, o = 0; o < count; i += unit, o++) {
		let code;
		if (unit === 2) code = little ? bytes[i] | bytes[i + 1] << 8 : bytes[i] << 8 | bytes[i + 1];
		else code = little ? (bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | bytes[i + 3] << 24) >>> 0 : (bytes[i] << 24 | bytes[i + 1] << 16 | bytes[i + 2] << 8 | bytes[i + 3]) >>> 0;
		out[o] = code <= 255 ? code : 32;
	}
	return out;
}
// dist/desk/guard/rules.js
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
/** Spans of `group` (or the whole match) of every match of a global pattern. */
function regexRule(id, keywords, pattern, when) {
	return {
		id,
		keywords,
		find(text) {
			if (when && !when(text)) return [];
			const spans = [];
			pattern.lastIndex = 0;
			for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
				const value = m[1] ?? m[0];
				const start = m.index + m[0].lastIndexOf(value);
				spans.push({
					rule: id,
					start,
					end: start + value.length
				});
				if (m[0].length === 0) pattern.lastIndex++;
			}
			return spans;
		}
	};
}
const ID = "[a-z]{2}_[0-9a-z]{26}";
const SECRET52 = "[0-9a-z]{52}";
const B64$1 = "[A-Za-z0-9+/]";
const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;
/** Private key blocks, also without their END line; high when the key parses or is encrypted. */
const privateKeyBlock = {
	id: "cairn:private-key",
	keywords: ["-----begin "],
	find(text) {
		const spans = [];
		PEM_BEGIN.lastIndex = 0;
		for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
			const bodyStart = m.index + m[0].length;
			const endMarker = text.indexOf("-----END ", bodyStart);
			let end;
			if (endMarker !== -1 && endMarker - bodyStart < 65536) {
				const close = text.indexOf("-----", endMarker + 9);
				end = close === -1 ? endMarker : close + 5;
			} else end = bodyStart + (/^(?:[\r\n]+(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [^\r\n]*))*/.exec(text.slice(bodyStart, bodyStart + 65536))?.[0].length ?? 0);
			const block = text.slice(m.index, end);
			const base64 = block.slice(m[0].length).replace(/-----END[\s\S]*$/, "").replace(/[^A-Za-z0-9+/=]/g, "");
			if (base64.length < 64) {
				PEM_BEGIN.lastIndex = bodyStart;
				continue;
			}
			let confidence = "low";
			if (/ENCRYPTED/.test(block) && base64.length >= 200) confidence = "high";
			else try {
				createPrivateKey(block);
				confidence = "high";
			} catch {
				confidence = base64.length >= 300 && /OPENSSH|PGP/.test(m[1] ?? "") ? "high" : "low";
			}
			spans.push({
				rule: "cairn:private-key",
				start: m.index,
				end,
				confidence
			});
			PEM_BEGIN.lastIndex = Math.max(end, bodyStart);
		}
		return spans;
	}
};
/** PuTTY `.ppk` keys: the whole key file, from its header to the MAC line. */
const puttyKey = {
	id: "cairn:putty-key",
	keywords: ["putty-user-key-file-"],
	find(text) {
		const spans = [];
		const re = /PuTTY-User-Key-File-\d+: [^\r\n]*[\s\S]{0,65536}?Private-Lines: \d+\r?\n[A-Za-z0-9+/=\r\n]{40,}(?:Private-(?:MAC|Hash): [0-9a-fA-F]+)?/g;
		for (let m = re.exec(text); m !== null; m = re.exec(text)) spans.push({
			rule: "cairn:putty-key",
			start: m.index,
			end: m.index + m[0].length,
			confidence: "high"
		});
		return spans;
	}
};
const isKubeconfig = (text) => /^kind:\s*["']?Config\b/m.test(text) && /^users:/m.test(text);
const hasMsalCache = (text) => /"credential_type"\s*:\s*"(?:RefreshToken|AccessToken|IdToken)"/.test(text);
const OWN_RULES = [
	regexRule("cairn:token", ["cairn."], new RegExp(`\\bcairn\\.[A-Za-z0-9_-]{1,64}\\.${ID}\\.(${SECRET52})\\b`, "g")),
	regexRule("cairn:branch-handle", ["cbh."], new RegExp(`\\bcbh\\.[A-Za-z0-9_-]{1,64}\\.${ID}\\.(${SECRET52})\\b`, "g")),
	regexRule("cairn:master-key", [
		"master_key",
		"master-key",
		"masterkey",
		"master key"
	], /master[ _-]?key[^\n]{0,48}?(?<![0-9A-Za-z+/_-])([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)(?![0-9A-Za-z+/=_-])/gi),
	regexRule("cairn:master-key", ["cred keygen"], /cred keygen[^\n]*\r?\n(?:[^\n]*\r?\n){0,3}?[^\n]*?(?<![0-9A-Za-z])([0-9a-f]{64})(?![0-9A-Za-z])/g),
	regexRule("cairn:jwt", ["eyj"], /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g),
	privateKeyBlock,
	puttyKey,
	regexRule("cairn:stripe", [
		"sk_live_",
		"sk_test_",
		"rk_live_",
		"rk_test_"
	], /\b[rs]k_(?:live|test)_[0-9a-zA-Z]{20,247}\b/g),
	regexRule("cairn:tailscale", ["tskey-"], /\btskey-(?:[a-z]+-)?[0-9A-Za-z]{6,}-[0-9A-Za-z]{16,}\b/g),
	regexRule("cairn:kubeconfig", ["client-key-data"], new RegExp(`client-key-data:\\s*["']?(${B64$1}{16,}={0,2})`, "g")),
	regexRule("cairn:kubeconfig", ["user:"], /^[ \t-]*user:[ \t]*\r?\n(?:[ \t]+[\w-]+:[^\n]*\r?\n){0,12}?[ \t]+(?:token|id-token|refresh-token|client-secret|password):[ \t]*["']?(?![{$])([^\s"'#]{8,})/gm),
	regexRule("cairn:kubeconfig", ["kind: config", "kind: \"config\""], /^\s*(?:token|id-token|refresh-token|client-secret|password):\s*["']?([^\s"'#]{8,})/gm, isKubeconfig),
	regexRule("cairn:docker-auth", ["\"auth\""], new RegExp(`"auth"\\s*:\\s*"(${B64$1}{8,}={0,2})"`, "g")),
	regexRule("cairn:docker-auth", ["\"identitytoken\""], /"identitytoken"\s*:\s*"([^"\s]{8,})"/g),
	regexRule("cairn:aws-credentials", ["aws_secret_access_key"], new RegExp(`aws_secret_access_key\\s*[=:]\\s*["']?(${B64$1}{30,})`, "gi")),
	regexRule("cairn:aws-credentials", ["aws_session_token"], /aws_session_token\s*[=:]\s*["']?([A-Za-z0-9/+=]{20,})/gi),
	regexRule("cairn:gcloud", ["\"private_key\""], /"private_key"\s*:\s*"(-----BEGIN[^"]{32,})"/g),
	regexRule("cairn:gcloud", ["\"refresh_token\""], /"refresh_token"\s*:\s*"([^"\s]{10,})"/g),
	regexRule("cairn:oauth-client-secret", ["\"client_secret\"", "\"clientsecret\""], /"client_?[sS]ecret"\s*:\s*"([^"\s]{8,})"/g),
	regexRule("cairn:azure", ["accountkey=", "sharedaccesskey="], new RegExp(`(?:AccountKey|SharedAccessKey)=(${B64$1}{20,}={0,2})`, "g")),
	regexRule("cairn:azure", ["\"secret\""], /"secret"\s*:\s*"([^"\s]{16,})"/g, hasMsalCache),
	regexRule("cairn:netrc", ["machine", "default"], /\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(\S+)/g)
];
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function base62(n, width) {
	let out = "";
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
function checksumValid(token) {
	const m = /^(?:gh[pousr]|npm)_([A-Za-z0-9]{30})([A-Za-z0-9]{6})$/.exec(token);
	if (!m) return false;
	return base62(crc32(m[1]), 6) === m[2];
}
/** Words and marks that make a value a placeholder: a finding in such a value is low confidence. */
const EXAMPLE_VALUE = /example|sample|dummy|fake|placeholder|changeme|redacted|your[_-]|x{6}|\*{4}|\.\.\.|<[a-z_ -]+>|\$\{/i;
const KNOWN_EXAMPLES = /* @__PURE__ */ new Set(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]);
const EXAMPLE_DIRS = /* @__PURE__ */ new Set([
	"test",
	"tests",
	"__tests__",
	"spec",
	"specs",
	"fixtures",
	"__fixtures__",
	"testdata",
	"test-data",
	"examples",
	"example",
	"docs",
	"doc",
	"node_modules",
	"vendor"
]);
const EXAMPLE_FILE = /\.(?:md|markdown|rst|adoc)$|^readme|^changelog|^history|\.(?:test|spec)\.[a-z]+$/i;
/** True when the path is documentation, a test, or a dependency: where example credentials live. */
function examplePath(path) {
	const parts = path.split("/");
	const name = parts[parts.length - 1] ?? "";
	return EXAMPLE_FILE.test(name) || parts.slice(0, -1).some((d) => EXAMPLE_DIRS.has(d.toLowerCase()));
}
function lowEntropy(value) {
	if (/(.)\1{7}/.test(value)) return true;
	return value.length >= 12 && new Set(value).size < 6;
}
/**
* How sure a finding is. High: the rule knows (a private key that parses, a
* token whose checksum holds), or nothing suggests an example. Low: an
* example-looking value, a token with a failing checksum, or a path of
* documentation, tests or dependencies.
*/
function confidenceOf(span, value, path) {
	if (span.confidence) return span.confidence;
	const token = /(?:gh[pousr]|npm)_[A-Za-z0-9]{36}/.exec(value)?.[0];
	if (token) return checksumValid(token) ? "high" : "low";
	if (KNOWN_EXAMPLES.has(value) || EXAMPLE_VALUE.test(value) || lowEntropy(value)) return "low";
	return examplePath(path) ? "low" : "high";
}
// dist/desk/guard/views.js
/** Characters a token, key or base64/hex value is made of. */
const RUN = /* @__PURE__ */ new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.") RUN[c.charCodeAt(0)] = 1;
/** How far a join looks back or ahead for the piece of a credential on each line. */
const JOIN_REACH = 1024;
const JOIN_MIN_SIDE = 4;
const JOIN_MIN_TOTAL = 16;
/** Runs shorter than this decode to fewer than 15 bytes: no credential the rules report. */
const BASE64_MIN = 20;
const HEX_MIN = 32;
/** A decoded value is text when at least this share of its bytes are printable ASCII or line breaks. */
const PRINTABLE_SHARE = .9;
const EMPTY_CHARS = /* @__PURE__ */ new Uint8Array(0);
const EMPTY_OFFSETS = /* @__PURE__ */ new Int32Array(0);
/**
* Builds a view in typed arrays (a view of a large window can be megabytes
* long). They are made at the first character: most texts (an event's
* payload strings) have no view at all, and allocating for each was most of
* the cost of guarding a short string.
*/
var ViewBuilder = class {
	chars = EMPTY_CHARS;
	starts = EMPTY_OFFSETS;
	ends = EMPTY_OFFSETS;
	n = 0;
	/** Characters copied from the window at `offset`. */
	push(text, offset) {
		for (let i = 0; i < text.length; i++) this.add(text.charCodeAt(i), offset + i, offset + i + 1);
	}
	/** Characters that all stand for the stretch [start, end) (a decoded value's run, a full-width character). */
	pushAt(text, start, end) {
		for (let i = 0; i < text.length; i++) this.add(text.charCodeAt(i), start, end);
	}
	add(char, start, end) {
		if (this.n === this.chars.length) {
			const grow = (a, make) => {
				const b = make(Math.max(256, a.length * 2));
				b.set(a);
				return b;
			};
			this.chars = grow(this.chars, (n) => new Uint8Array(n));
			this.starts = grow(this.starts, (n) => new Int32Array(n));
			this.ends = grow(this.ends, (n) => new Int32Array(n));
		}
		this.chars[this.n] = char;
		this.starts[this.n] = start;
		this.ends[this.n] = end;
		this.n++;
	}
	separate() {
		if (this.n > 0) this.add(10, -1, -1);
	}
	build() {
		if (this.n === 0) return null;
		return {
			text: Buffer.from(this.chars.buffer, 0, this.n).toString("latin1"),
			at: this.starts.subarray(0, this.n),
			to: this.ends.subarray(0, this.n)
		};
	}
};
/** Whitespace, quotes, concatenation operators and continuations that glue the pieces of a split value. */
const isBlank = (c) => c === 32 || c === 9;
const isQuote = (c) => c === 34 || c === 39 || c === 96;
function hasDigit(text, from, to) {
	for (let i = from; i < to; i++) {
		const c = text.charCodeAt(i);
		if (c >= 48 && c <= 57) return true;
	}
	return false;
}
/**
* The stretches where a line break (with the quotes, `+`/`.`, `\` and
* indentation around it) cuts a run of token characters, joined: `'ghp_ab' +
* \n 'cd…'`, a YAML folded value, base64 wrapped at 76 columns.
*/
function joinedView(text) {
	const out = new ViewBuilder();
	let chainEnd = -1;
	for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) {
		let a = nl;
		if (a > 0 && text.charCodeAt(a - 1) === 13) a--;
		while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
		if (a > 0 && text.charCodeAt(a - 1) === 92) a--;
		while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
		if (a > 0 && (text.charCodeAt(a - 1) === 43 || text.charCodeAt(a - 1) === 46)) {
			a--;
			while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
		}
		if (a > 0 && isQuote(text.charCodeAt(a - 1))) a--;
		let s = a;
		const floor = Math.max(0, a - JOIN_REACH);
		while (s > floor && RUN[text.charCodeAt(s - 1)] === 1) s--;
		if (a - s < JOIN_MIN_SIDE) continue;
		let b = nl + 1;
		while (b < text.length && isBlank(text.charCodeAt(b))) b++;
		if (b < text.length && (text.charCodeAt(b) === 43 || text.charCodeAt(b) === 46)) {
			b++;
			while (b < text.length && isBlank(text.charCodeAt(b))) b++;
		}
		if (b < text.length && isQuote(text.charCodeAt(b))) b++;
		let e = b;
		const ceiling = Math.min(text.length, b + JOIN_REACH);
		while (e < ceiling && RUN[text.charCodeAt(e)] === 1) e++;
		if (e - b < JOIN_MIN_SIDE || a - s + (e - b) < JOIN_MIN_TOTAL) continue;
		if (!hasDigit(text, s, a) && !hasDigit(text, b, e)) continue;
		if (s < chainEnd) {
			if (a > chainEnd) out.push(text.slice(chainEnd, a), chainEnd);
		} else {
			out.separate();
			out.push(text.slice(s, a), s);
		}
		out.push(text.slice(b, e), b);
		chainEnd = e;
	}
	return out.build();
}
function printable(bytes) {
	if (bytes.length === 0) return false;
	let ok = 0;
	for (const b of bytes) if (b >= 32 && b <= 126 || b === 9 || b === 10 || b === 13) ok++;
	return ok >= PRINTABLE_SHARE * bytes.length;
}
/** Base64 characters (standard and URL-safe); hex digits are a subset. */
const B64 = /* @__PURE__ */ new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") B64[c.charCodeAt(0)] = 1;
const HEX = /* @__PURE__ */ new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;
/** The decoded bytes of a base64 or hex run when they are text, else null. */
function decodeRun(run, hex) {
	if (hex && run.length >= HEX_MIN && run.length % 2 === 0) {
		if (printable(Buffer.from(run.slice(0, 64), "hex"))) {
			const decoded = Buffer.from(run, "hex");
			if (printable(decoded)) return decoded;
		}
	}
	const body = run.replace(/=+$/, "");
	if (!printable(Buffer.from(body.slice(0, 64 - Math.min(64, body.length) % 4), "base64"))) return null;
	const decoded = Buffer.from(body, "base64");
	return printable(decoded) ? decoded : null;
}
/**
* Base64 (standard or URL-safe) and hex values that decode to text, each
* decoded in place of its run; every decoded character stands for the whole run.
*/
function decodedView(text) {
	const out = new ViewBuilder();
	const n = text.length;
	for (let i = 0; i < n;) {
		if (B64[text.charCodeAt(i)] !== 1) {
			i++;
			continue;
		}
		const start = i;
		let hex = true;
		while (i < n && B64[text.charCodeAt(i)] === 1) {
			if (HEX[text.charCodeAt(i)] !== 1) hex = false;
			i++;
		}
		let end = i;
		while (end < n && end - i < 2 && text.charCodeAt(end) === 61) end++;
		if (end - start < BASE64_MIN) continue;
		const decoded = decodeRun(text.slice(start, end), hex);
		if (decoded === null) continue;
		out.separate();
		out.pushAt(decoded.toString("latin1"), start, end);
	}
	return out.build();
}
/** UTF-8 zero-width characters (U+200B–U+200D, U+2060, U+FEFF) and full-width forms (U+FF01–U+FF5E). */
const HIDDEN = /\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e]/;
/** Stretches of token characters and hidden ones (UTF-8 read as latin1). */
const HIDDEN_STRETCH = /(?:[A-Za-z0-9_+/=.-]|\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e])+/g;
/**
* The stretches of the window (UTF-8 read as latin1) where zero-width
* characters sit among token characters or full-width ones spell one: the
* zero-width dropped, the full-width made ASCII. Text without any costs one
* search.
*/
function normalizedView(text) {
	if (!HIDDEN.test(text)) return null;
	const out = new ViewBuilder();
	HIDDEN_STRETCH.lastIndex = 0;
	for (let m = HIDDEN_STRETCH.exec(text); m !== null; m = HIDDEN_STRETCH.exec(text)) {
		const stretch = m[0];
		if (stretch.length < JOIN_MIN_TOTAL || !HIDDEN.test(stretch)) continue;
		out.separate();
		for (let k = 0; k < stretch.length;) {
			const i = m.index + k;
			const b0 = stretch.charCodeAt(k);
			if (b0 === 226 || b0 === 239) {
				const cp = (b0 & 15) << 12 | (stretch.charCodeAt(k + 1) & 63) << 6 | stretch.charCodeAt(k + 2) & 63;
				if (cp >= 65281 && cp <= 65374) out.pushAt(String.fromCharCode(cp - 65248), i, i + 3);
				k += 3;
				continue;
			}
			out.push(stretch[k], i);
			k++;
		}
	}
	return out.build();
}
/** The views of one text window, at most one of each kind. */
function viewsOf(text) {
	const views = [];
	for (const make of [
		joinedView,
		decodedView,
		normalizedView
	]) {
		const view = make(text);
		if (view) views.push(view);
	}
	return views;
}
/** A span found in `view`, in window offsets: every stretch its characters stand for. */
function mapSpan(view, span) {
	let start = Number.MAX_SAFE_INTEGER;
	let end = -1;
	for (let i = span.start; i < span.end && i < view.text.length; i++) {
		const at = view.at[i];
		if (at < 0) continue;
		start = Math.min(start, at);
		end = Math.max(end, view.to[i]);
	}
	return end < 0 ? null : {
		...span,
		start,
		end
	};
}
// dist/desk/guard/scan.js
/**
* The content scanner: every byte of every file, in windows.
*
* A window is a piece of a file plus a look-ahead into the next piece (the
* chunker hands both over without copying); a secret shorter than the
* look-ahead is always wholly inside one window. Each window is decoded when
* it is UTF-16/UTF-32 text (a byte-order mark at the start of the file, or a
* regular NUL pattern), run through the keyword prefilter, and the rules the
* prefilter selected run over the window — over all of it for text, over the
* neighbourhood of each keyword for binary windows (a NUL in the first
* 8 KiB), where one keyword per few megabytes turns up by chance.
*
* Findings name rule, path, line and confidence, never the value.
*/
const BINARY_SNIFF_BYTES = 8192;
const REGION_BEFORE = 4096;
const REGION_AFTER = 16384;
/** Binary windows up to this size are scanned whole when keywords hit. */
const WHOLE_BINARY = 65536;
/** Bytes a credential is made of, in a binary window: printable ASCII, tab and line breaks. */
const TEXT_BYTE = (/* @__PURE__ */ new Uint8Array(256)).map((_, b) => b >= 32 && b <= 126 || b === 9 || b === 10 || b === 13 ? 1 : 0);
/** Runs of text bytes shorter than this hold no credential a rule reports (the shortest are about 10 bytes). */
const MIN_TEXT_RUN = 8;
let scanner = null;
/** Made at the first scan: a process that never scans (a `cairn session ls`) never loads secretlint. */
async function loadScanner() {
	const [{ buildAutomaton }, { SECRETLINT_KEYWORDS, SECRETLINT_RULES, secretlintSpans }] = await Promise.all([import("./automaton-EpufDsP5.js"), import("./secretlint-BhGG2EB3.js")]);
	scanner ??= {
		automaton: buildAutomaton([...SECRETLINT_KEYWORDS, ...OWN_RULES.map((r) => r.keywords)]),
		secretlintCount: SECRETLINT_RULES.length,
		secretlintSpans
	};
	return scanner;
}
/** Spans of secrets in one view (one byte per character), offsets into the view, confidence set. */
async function scanView(view, path, binary) {
	const { automaton, secretlintCount, secretlintSpans } = scanner ?? await loadScanner();
	const hits = automaton.scan(view);
	if (hits.rules.length === 0) return [];
	const regions = [];
	if (!binary || hits.overflow || view.length <= WHOLE_BINARY) regions.push([0, view.length]);
	else for (const p of hits.positions) {
		let start = p - 1;
		const floor = Math.max(0, p - REGION_BEFORE);
		while (start > floor && TEXT_BYTE[view[start - 1]] === 1) start--;
		let end = p;
		const ceiling = Math.min(view.length, p + REGION_AFTER);
		while (end < ceiling && TEXT_BYTE[view[end]] === 1) end++;
		if (end - start < MIN_TEXT_RUN) continue;
		const last = regions[regions.length - 1];
		if (last && start <= last[1]) last[1] = Math.max(last[1], end);
		else regions.push([start, end]);
	}
	if (regions.length === 0) return [];
	const lint = hits.rules.filter((r) => r < secretlintCount);
	const own = hits.rules.filter((r) => r >= secretlintCount).map((r) => OWN_RULES[r - secretlintCount]);
	const spans = [];
	for (const [start, end] of regions) {
		const latin1 = view.toString("latin1", start, end);
		const text = binary ? latin1.replace(/[\x80-\xff]/g, "\0") : latin1;
		const found = [...lint.length > 0 ? await secretlintSpans(path, text, lint) : []];
		for (const rule of own) found.push(...rule.find(text));
		for (const span of found) {
			const value = text.slice(span.start, span.end);
			spans.push({
				rule: span.rule,
				start: span.start + start,
				end: span.end + start,
				confidence: confidenceOf(span, value, path)
			});
		}
	}
	return spans;
}
/**
* {@link scanView}, and for text the same over its derived views (lines
* joined, base64/hex decoded, hidden characters normalised; views.ts), their
* spans mapped back onto the view's bytes.
*/
async function scanText$1(view, path, binary, depth = 0) {
	const spans = await scanView(view, path, binary);
	if (binary || depth >= 2) return spans;
	for (const derived of viewsOf(view.toString("latin1"))) for (const span of await scanText$1(Buffer.from(derived.text, "latin1"), path, false, depth + 1)) {
		const mapped = mapSpan(derived, span);
		if (mapped) spans.push(mapped);
	}
	return spans;
}
function looksBinary(bytes) {
	return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}
const OID_PKCS7_DATA = Buffer.from("06092a864886f70d010701", "hex");
const OID_PBES2 = Buffer.from("06092a864886f70d01050d", "hex");
const OID_PBE_SHA1 = Buffer.from("060a2a864886f70d010c01", "hex");
/** The length of a DER SEQUENCE header at the start, or 0. */
function sequenceHeader(bytes) {
	if (bytes[0] !== 48) return 0;
	const b = bytes[1] ?? 0;
	return b < 128 ? 2 : b === 129 ? 3 : b === 130 ? 4 : b === 131 ? 5 : 0;
}
/**
* DER-encoded private keys recognised by content: PKCS#12 (version 3 and
* PKCS#7 data), encrypted PKCS#8, and PKCS#1 / PKCS#8 / SEC1 keys that parse.
*/
async function binaryKeyRule(bytes) {
	const header = sequenceHeader(bytes);
	if (header === 0 || bytes.length < 64) return null;
	const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64));
	if (head[header] === 2 && head[header + 1] === 1 && head[header + 2] === 3 && head.includes(OID_PKCS7_DATA)) return "cairn:pkcs12";
	if (head.includes(OID_PBES2) || head.includes(OID_PBE_SHA1)) return "cairn:pkcs8-encrypted";
	if (bytes.length > 16384) return null;
	const { createPrivateKey } = await import("node:crypto");
	const der = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	for (const type of [
		"pkcs8",
		"pkcs1",
		"sec1"
	]) try {
		createPrivateKey({
			key: der,
			format: "der",
			type
		});
		return `cairn:der-private-key`;
	} catch {}
	return null;
}
/**
* Scans one file window by window, in order. `feed` returns false as soon as
* anything is found: the caller stops storing the file.
*/
var StreamScan = class {
	path;
	options;
	findings = [];
	/** Spans found, in file offsets (redaction needs them). */
	spans = [];
	encoding = null;
	bom = 0;
	seen = /* @__PURE__ */ new Set();
	/** True when the content is decoded text: spans then do not map to stored bytes one to one. */
	decoded = false;
	constructor(path, options = {}) {
		this.path = path;
		this.options = options;
	}
	/** Scans `window` (this piece of the file, then look-ahead) found at `offset` of the file. */
	async feed(window, offset) {
		if (offset === 0) {
			const rule = await binaryKeyRule(window);
			if (rule) {
				this.add({
					rule,
					start: 0,
					end: window.length,
					confidence: "high"
				}, 0);
				return false;
			}
			const bom = bomEncoding(window);
			this.encoding = bom?.encoding ?? (looksBinary(window) ? nulPatternEncoding(window) : null);
			this.bom = bom?.bom ?? 0;
			this.decoded = this.encoding !== null;
		}
		if (this.encoding !== null) {
			const unit = unitSize(this.encoding);
			const skip = offset === 0 ? this.bom : (unit - (offset - this.bom) % unit) % unit;
			const text = decodeUnits(window.subarray(skip), this.encoding);
			for (const span of await scanText$1(text, this.path, false)) this.add(span, offset + skip + span.start * unit, offset + skip + span.end * unit);
		} else for (const span of await scanText$1(window, this.path, looksBinary(window))) this.add(span, offset + span.start);
		return this.findings.length === 0;
	}
	add(span, start, end = start + (span.end - span.start)) {
		const key = `${span.rule}@${start}`;
		if (this.seen.has(key)) return;
		this.seen.add(key);
		this.spans.push({
			rule: span.rule,
			start,
			end,
			confidence: span.confidence
		});
		this.findings.push({
			rule: span.rule,
			path: this.path,
			line: this.options.lineAt?.(start) ?? 0,
			confidence: span.confidence ?? "high",
			action: "withheld"
		});
	}
};
/** Scans one whole file's bytes (line numbers counted in them): the same scan on either thread. */
async function scanWhole(path, bytes) {
	const scan = new StreamScan(path, { lineAt: (o) => lineIn(bytes, o) });
	await scan.feed(bytes, 0);
	return {
		findings: scan.findings,
		spans: scan.spans,
		decoded: scan.decoded
	};
}
/** Line (1-based) of `offset` in `bytes`. */
function lineIn(bytes, offset) {
	let line = 1;
	for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++;
	return line;
}
const FILL = 120;
/** A copy of `bytes` with every span overwritten (line breaks kept), the same length. */
function redact(bytes, spans) {
	const out = Buffer.from(bytes);
	for (const { start, end } of spans) for (let i = start; i < end && i < out.length; i++) if (out[i] !== 10 && out[i] !== 13) out[i] = FILL;
	return out;
}
/**
* Line numbers (1-based) of byte offsets in a file on disk, for findings in
* large files: read only when there is a finding, and forward from the last
* offset asked (findings come in order), so many findings cost one pass.
*/
function lineCounter(abs) {
	let position = 0;
	let line = 1;
	return (offset) => {
		if (offset < position) {
			position = 0;
			line = 1;
		}
		const buffer = Buffer.allocUnsafe(Math.min(1048576, Math.max(1, offset - position)));
		const fd = openSync(abs, "r");
		try {
			while (position < offset) {
				const n = readSync(fd, buffer, 0, Math.min(buffer.length, offset - position), position);
				if (n === 0) break;
				for (let i = buffer.indexOf(10); i !== -1 && i < n; i = buffer.indexOf(10, i + 1)) line++;
				position += n;
			}
		} finally {
			closeSync(fd);
		}
		return line;
	};
}
// dist/desk/guard/text.js
/** Bytes scanned before the event loop gets a turn. */
const SLICE_BYTES = 262144;
/** Bytes each slice also scans of the next, so a credential across a cut is whole in one slice. */
const SLICE_OVERLAP = 4096;
const yieldTurn = () => new Promise((resolve) => setImmediate(resolve));
/** Bytes scanned since the event loop last had a turn, across calls: many small texts (a batch) yield too. */
let sinceTurn = 0;
/** Scans `bytes` as one file named `label`, slice by slice; the scan's findings and spans. */
async function scanBytes(label, bytes) {
	const scan = new StreamScan(label, { lineAt: (o) => lineIn(bytes, o) });
	if (bytes.length <= SLICE_BYTES) {
		sinceTurn += bytes.length;
		if (sinceTurn >= SLICE_BYTES) {
			sinceTurn = 0;
			await yieldTurn();
		}
		await scan.feed(bytes, 0);
		return scan;
	}
	for (let offset = 0; offset < bytes.length; offset += SLICE_BYTES) {
		await scan.feed(Buffer.from(bytes.subarray(offset, offset + SLICE_BYTES + SLICE_OVERLAP)), offset);
		await yieldTurn();
	}
	return scan;
}
/**
* Findings in a text (memory's text or data): rule, line and confidence,
* never the value. `label` names it in findings (no path rule applies).
*/
async function scanText(text, label = "text") {
	return (await scanBytes(label, Buffer.from(text, "utf8"))).findings;
}
/** What a credential is replaced by: `[redacted:github]`, `[redacted:jwt]`. */
function placeholder(rule) {
	return `[redacted:${rule.replace(/^(?:secretlint|cairn):/, "").replace(/[^A-Za-z0-9._-]+/g, "-")}]`;
}
/** Strings shorter than this hold no credential a rule reports. */
const MIN_SECRET = 8;
/** `text` with every span (UTF-8 byte offsets) replaced by its placeholder; spans merged where they overlap. */
function replaceSpans(bytes, spans) {
	const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
	const parts = [];
	let at = 0;
	for (const span of sorted) {
		if (span.end <= at) continue;
		const start = Math.max(span.start, at);
		parts.push(bytes.toString("utf8", at, start), placeholder(span.rule));
		at = span.end;
	}
	parts.push(bytes.toString("utf8", at));
	return parts.join("");
}
const escapePointer = (key) => key.replace(/~/g, "~0").replace(/\//g, "~1");
/**
* A copy of a JSON value with each credential in its strings (keys
* included) replaced by a typed placeholder, and the list of what was
* replaced (rule and JSON Pointer, never the value). Values without a
* finding are returned as they are.
*/
async function redactJson(value) {
	const redactions = [];
	const redactString = async (text, pointer) => {
		if (text.length < MIN_SECRET) return text;
		const bytes = Buffer.from(text, "utf8");
		const scan = await scanBytes("payload", bytes);
		if (scan.findings.length === 0) return text;
		for (const span of scan.spans) redactions.push({
			rule: span.rule,
			pointer
		});
		return replaceSpans(bytes, scan.spans.length > 0 ? scan.spans : [{
			rule: scan.findings[0].rule,
			start: 0,
			end: bytes.length
		}]);
	};
	const walk = async (v, pointer) => {
		if (typeof v === "string") return redactString(v, pointer);
		if (Array.isArray(v)) {
			const out = [];
			for (let i = 0; i < v.length; i++) out.push(await walk(v[i], `${pointer}/${i}`));
			return out;
		}
		if (v !== null && typeof v === "object") {
			const out = {};
			for (const [key, inner] of Object.entries(v)) {
				const before = redactions.length;
				let name = await redactString(key, "");
				while (name !== key && Object.hasOwn(out, name)) name = `${name}~`;
				const at = `${pointer}/${escapePointer(name)}`;
				for (let i = before; i < redactions.length; i++) redactions[i].pointer = at;
				Object.defineProperty(out, name, {
					value: await walk(inner, at),
					enumerable: true,
					writable: true,
					configurable: true
				});
			}
			return out;
		}
		return v;
	};
	const out = await walk(value, "");
	return {
		value: redactions.length > 0 ? out : value,
		redactions
	};
}
/**
* An event payload as the log stores it: `encode` (which validates: size,
* depth) runs first, then credentials are replaced by placeholders and the
* value encoded again when any was; `redacted` is how many, for the audit entry.
*/
async function redactEncoded(value, encode) {
	const payload = encode(value);
	const { value: clean, redactions } = await redactJson(value);
	return {
		payload: redactions.length > 0 ? encode(clean) : payload,
		redacted: redactions.length
	};
}
export { lineIn as a, scanWhole as c, lineCounter as i, scanText as n, looksBinary as o, StreamScan as r, redact as s, redactEncoded as t };
