import { A as invalidArgument, L as __exportAll, _ as UsageError, j as isCairnError, x as CairnError } from "./front-BpLyP2oj.js";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
// dist/json.js
/**
* JSON text of a value, refusing what JSON cannot hold instead of quietly
* rewriting it (`JSON.stringify` turns NaN into null and drops functions).
* Properties set to `undefined` are left out, as JSON.stringify does.
*/
function toJsonText(value, what) {
	let text;
	try {
		text = JSON.stringify(value, (key, v) => {
			switch (typeof v) {
				case "number":
					if (!Number.isFinite(v)) throw notJson(what, key, `the number ${v}`);
					return v;
				case "bigint": throw notJson(what, key, "a bigint");
				case "function":
				case "symbol": throw notJson(what, key, `a ${typeof v}`);
				default: return v;
			}
		});
	} catch (error) {
		if (error instanceof CairnError) throw error;
		throw invalidArgument(`${what} cannot be written as JSON (${error.message}): pass plain data`, { field: what });
	}
	return text ?? "null";
}
function notJson(what, key, thing) {
	const where = key === "" ? what : `${what}.${key}`;
	return invalidArgument(`${where} is ${thing}, which JSON cannot hold: pass plain JSON data`, { field: what });
}
const isDigit = (code) => code >= 48 && code <= 57;
/**
* Whether `text` holds `length` digits in a row. Any such run covers one index
* of every `length`-th, so only those are probed, and the run around a digit
* measured: a few percent of the characters read (a regex reads them all:
* 0.5 s on a 16 MiB body of short numbers).
*/
function hasDigitRun(text, length) {
	for (let i = length - 1; i < text.length; i += length) {
		if (!isDigit(text.charCodeAt(i))) continue;
		let start = i;
		while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
		let end = i + 1;
		while (end < text.length && end - start < length && isDigit(text.charCodeAt(end))) end++;
		if (end - start >= length) return true;
	}
	return false;
}
/**
* The first integer literal in JSON text that a JavaScript number cannot
* hold exactly (beyond ±2^53 − 1), or undefined. JSON.parse would round it
* silently (9007199254740993 becomes …992); callers refuse it instead.
* Strings are skipped; literals with a fraction or exponent are not integers.
*/
function unsafeIntegerIn(text) {
	if (!hasDigitRun(text, 16)) return void 0;
	const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
	for (let m = token.exec(text); m !== null; m = token.exec(text)) {
		const literal = m[0];
		if (literal.startsWith("\"") || !/^-?\d+$/.test(literal)) continue;
		if (literal.replace(/^-?0*/, "").length < 16) continue;
		if (BigInt(literal) > BigInt(Number.MAX_SAFE_INTEGER) || BigInt(literal) < -BigInt(Number.MAX_SAFE_INTEGER)) return literal;
	}
}
/** Refuses JSON text holding an integer a number cannot carry exactly; `what` names the input. */
function refuseUnsafeIntegers(text, what) {
	const literal = unsafeIntegerIn(text);
	if (literal === void 0) return;
	throw invalidArgument(`${what} holds the integer ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal}, beyond what JSON numbers carry exactly (±${Number.MAX_SAFE_INTEGER}): send it as a string`, { field: what });
}
// dist/cli/command.js
/** Flags every command takes. */
const GLOBAL_FLAGS = [
	{
		name: "json",
		type: "boolean",
		help: "print exactly one JSON document on stdout"
	},
	{
		name: "store",
		type: "string",
		value: "DIR",
		help: "local store directory (env CAIRN_STORE; default $XDG_DATA_HOME/cairn or ~/.local/share/cairn)"
	},
	{
		name: "url",
		type: "string",
		value: "URL",
		help: "server URL of a `cairn serve` (env CAIRN_URL)"
	},
	{
		name: "token",
		type: "string",
		value: "TOKEN",
		help: "bearer token for --url (env CAIRN_TOKEN)"
	},
	{
		name: "token-file",
		type: "string",
		value: "FILE",
		help: "read the bearer token from FILE, out of `ps` (env CAIRN_TOKEN_FILE)"
	},
	{
		name: "help",
		type: "boolean",
		help: "show help for the command"
	}
];
function commandName(command) {
	return `cairn ${command.names.join(" ")}`;
}
function usageLine(command) {
	const parts = [commandName(command), ...command.args];
	for (const flag of command.flags) {
		const shown = flag.type === "boolean" ? `--${flag.name}` : `--${flag.name} ${flag.value ?? "VALUE"}`;
		parts.push(flag.required ? shown : `[${shown}]`);
	}
	if (command.rest !== void 0) parts.push("--", command.rest);
	return parts.join(" ");
}
// dist/cli/help.js
const COLUMN = 24;
function flagLines(flags) {
	const shown = flags.map((f) => `  --${f.name}${f.type === "string" ? ` ${f.value ?? "VALUE"}` : ""}`);
	const width = Math.max(COLUMN, ...shown.map((s) => s.length + 2));
	return flags.map((f, i) => `${shown[i].padEnd(width)}${f.required ? "(required) " : ""}${f.help}`);
}
function synopsis(command) {
	return [...command.names, ...command.args].join(" ");
}
/** Width of the first column of a command list: the longest synopsis plus two spaces. */
function commandWidth(commands) {
	return Math.max(22, ...commands.map((c) => synopsis(c).length + 2));
}
function commandList(commands) {
	const width = commandWidth(commands);
	return commands.map((c) => `  ${synopsis(c).padEnd(width)}${c.summary}`);
}
/** The feature each command's first word belongs to, in the order the main help lists them. */
const FEATURES = [
	["the unit of work (mind + desk + keys)", [
		"checkpoint",
		"restore",
		"fork",
		"status",
		"exec",
		"step",
		"keep",
		"abandon"
	]],
	["the session log", [
		"session",
		"log",
		"event",
		"branch"
	]],
	["memory", ["memory"]],
	["the desk (workspace files)", [
		"ws",
		"gc",
		"watch"
	]],
	["the keys (credentials, grants, approvals)", [
		"cred",
		"grant",
		"approvals",
		"approve",
		"deny",
		"proxy"
	]],
	["identity and audit", [
		"whoami",
		"token",
		"tenant",
		"audit"
	]],
	["the store and its servers", [
		"init",
		"doctor",
		"serve",
		"mcp",
		"demo"
	]]
];
/** Commands by feature; a command whose word no feature names is listed last, under "other". */
function grouped(commands) {
	const groups = FEATURES.map(([title, words]) => [title, commands.filter((c) => words.includes(c.names[0]))]);
	const known = new Set(FEATURES.flatMap(([, words]) => words));
	const other = commands.filter((c) => !known.has(c.names[0]));
	return [...groups, ...other.length > 0 ? [["other", other]] : []].filter(([, members]) => members.length > 0);
}
function mainHelp(commands) {
	const width = commandWidth(commands);
	return [
		"cairn: a persistence fabric for AI agents",
		"",
		"usage: cairn COMMAND [ARGS] [FLAGS]   (cairn help COMMAND: its flags and an example)",
		"",
		...grouped(commands).flatMap(([title, members]) => [
			`${title}:`,
			...members.map((c) => `  ${synopsis(c).padEnd(width)}${c.summary}`),
			""
		]),
		`  ${"help [COMMAND]".padEnd(width)}show this help, or a command’s flags`,
		"",
		"flags every command takes:",
		...flagLines(GLOBAL_FLAGS),
		"",
		"The store is --store, else $CAIRN_STORE, else $XDG_DATA_HOME/cairn, else",
		"~/.local/share/cairn; --url/--token (or $CAIRN_URL/$CAIRN_TOKEN) talk to a",
		"`cairn serve` instead (--token-file or $CAIRN_TOKEN_FILE keep the token out",
		"of `ps`). CAIRN_DEBUG=1 prints stack traces. `cairn --version` prints the",
		"version.",
		"",
		"exit codes: 0 ok, 1 check failed, 2 usage error, 3 not found, 4 conflict,",
		"5 bad input, 6 not authenticated or forbidden, 7 unavailable, 8 corrupt store,",
		"70 internal error. See docs/cli.md.",
		""
	].join("\n");
}
function commandHelp(command) {
	const lines = [
		`usage: ${usageLine(command)}`,
		"",
		`${command.summary}.`,
		""
	];
	if (command.example) lines.push("example:", `  ${command.example}`, "");
	if (command.flags.length > 0) lines.push("flags:", ...flagLines(command.flags), "");
	lines.push("flags every command takes:", ...flagLines(GLOBAL_FLAGS), "");
	if (command.target === "store") lines.push(`${commandName(command)} works on a local store only (--store).`, "");
	return lines.join("\n");
}
function groupHelp(group, commands) {
	const members = commands.filter((c) => c.names[0] === group);
	return [
		`usage: cairn ${group} SUBCOMMAND ...`,
		"",
		"subcommands:",
		...commandList(members),
		""
	].join("\n");
}
/** The candidates closest to `word` (at most two edits, or a prefix of it), nearest first: for "did you mean". */
function closest(word, candidates) {
	const scored = candidates.map((c) => ({
		c,
		d: c.startsWith(word) && word.length >= 2 ? 1 : editDistance(word, c)
	})).filter(({ d }) => d <= Math.min(2, Math.max(1, Math.floor(word.length / 3)))).sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
	return [...new Set(scored.map(({ c }) => c))].slice(0, 3);
}
/** " (did you mean X or Y?)", or nothing when no candidate is near. */
function didYouMean(word, candidates, show = (c) => c) {
	const near = closest(word, candidates);
	return near.length === 0 ? "" : ` (did you mean ${near.map(show).join(" or ")}?)`;
}
function editDistance(a, b) {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		previous = current;
	}
	return previous[b.length];
}
// dist/cli/args.js
var args_exports = /* @__PURE__ */ __exportAll({
	checkArity: () => checkArity,
	defined: () => defined,
	findCommand: () => findCommand,
	jsonFlag: () => jsonFlag,
	listFlag: () => listFlag,
	parseCommandLine: () => parseCommandLine,
	parseJsonText: () => parseJsonText,
	readAllBytes: () => readAllBytes,
	readPayload: () => readPayload,
	stringFlag: () => stringFlag,
	wantsJson: () => wantsJson,
	wholeNumberFlag: () => wholeNumberFlag
});
const GLOBAL_OPTIONS = {
	json: { type: "boolean" },
	store: { type: "string" },
	url: { type: "string" },
	token: { type: "string" },
	"token-file": { type: "string" },
	help: {
		type: "boolean",
		short: "h"
	}
};
/** `--json` decides the error format too, so it is looked for before anything can fail. */
function wantsJson(argv) {
	const end = argv.indexOf("--");
	return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}
/**
* Finds the command named by the leading words of argv. Global flags may come
* before the words (`cairn --json session ls`); the words are removed from argv
* and the rest is left for the command's own strict parse.
*/
function findCommand(argv, commands) {
	const { tokens } = parseArgs({
		args: argv,
		options: GLOBAL_OPTIONS,
		strict: false,
		allowPositionals: true,
		tokens: true
	});
	const words = [];
	for (const token of tokens) {
		if (token.kind === "option-terminator") break;
		if (token.kind === "positional") words.push({
			word: token.value,
			index: token.index
		});
	}
	const first = words[0];
	if (!first) return {
		kind: "none",
		rest: argv
	};
	const matches = commands.filter((c) => c.names[0] === first.word);
	if (matches.length === 0) {
		const words = [...new Set(commands.map((c) => c.names[0])), "help"];
		throw new UsageError(`unknown command "${first.word}"${didYouMean(first.word, words)}: run \`cairn help\` to list the commands`);
	}
	const second = words[1];
	const command = matches.find((c) => c.names.length === 1 || c.names[1] === second?.word);
	if (!command) {
		if (second && !second.word.startsWith("-")) {
			const subcommands = matches.map((c) => c.names[1]);
			throw new UsageError(`unknown command "cairn ${first.word} ${second.word}"${didYouMean(second.word, subcommands, (w) => `cairn ${first.word} ${w}`)}: run \`cairn help ${first.word}\` to list them`);
		}
		return {
			kind: "group",
			group: first.word,
			rest: without(argv, [first.index])
		};
	}
	return {
		kind: "command",
		command,
		rest: without(argv, command.names.length === 1 ? [first.index] : [first.index, second.index])
	};
}
function without(argv, indexes) {
	return argv.filter((_, i) => !indexes.includes(i));
}
/** The command's flags and positionals; any unknown flag or wrong argument count is a usage error. */
function parseCommandLine(command, rest) {
	const options = { ...GLOBAL_OPTIONS };
	for (const flag of command.flags) options[flag.name] = {
		type: flag.type,
		...flag.multiple ? { multiple: true } : {}
	};
	let parsed;
	try {
		parsed = parseArgs({
			args: rest,
			options,
			strict: true,
			allowPositionals: true
		});
	} catch (error) {
		throw new UsageError(`${describeParseError(error, Object.keys(options))}: usage: ${usageLine(command)}`);
	}
	return parsed;
}
/** Checks required arguments and flags; skipped when --help was asked for. */
function checkArity(command, values, positionals) {
	const usage = `usage: ${usageLine(command)}`;
	if (positionals.length < command.args.length) throw new UsageError(`${command.names.join(" ")}: missing ${command.args[positionals.length]}: ${usage}`);
	if (positionals.length > command.args.length && command.rest === void 0) throw new UsageError(`${command.names.join(" ")}: unexpected argument "${positionals[command.args.length]}": ${usage}`);
	for (const flag of command.flags) if (flag.required && values[flag.name] === void 0) throw new UsageError(`${command.names.join(" ")}: missing --${flag.name}: ${usage}`);
}
function describeParseError(error, flags) {
	const message = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
	const code = error.code;
	const option = /'(-[^' ]+)/.exec(message)?.[1];
	if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown flag ${option}${didYouMean(option.replace(/^-+/, ""), flags, (f) => `--${f}`)}`;
	if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option) {
		if (message.includes("argument missing")) return `flag ${option} needs a value`;
		if (message.includes("does not take an argument")) return `flag ${option} takes no value`;
		if (message.includes("ambiguous")) return `flag ${option} needs a value (write ${option}=VALUE for one that starts with "-")`;
	}
	return message.replace(/\.$/, "");
}
/** Every value of a flag that may be repeated. */
function listFlag(values, name) {
	const value = values[name];
	if (Array.isArray(value)) return value;
	return typeof value === "string" ? [value] : [];
}
function stringFlag(values, name) {
	const value = values[name];
	return typeof value === "string" ? value : void 0;
}
/** A whole-number flag; a malformed value is bad input (exit 5), like any value the library rejects. */
function wholeNumberFlag(values, name) {
	const value = stringFlag(values, name);
	if (value === void 0) return void 0;
	if (!/^\d+$/.test(value.trim())) throw invalidArgument(`--${name} expects a whole number, got "${value}"`, { field: name });
	return Number(value.trim());
}
/** A flag holding JSON text, e.g. `--meta '{"a":1}'`. */
function jsonFlag(values, name) {
	const value = stringFlag(values, name);
	return value === void 0 ? void 0 : parseJsonText(value, `--${name}`);
}
function parseJsonText(text, source) {
	try {
		const value = JSON.parse(text);
		refuseUnsafeIntegers(text, source);
		return value;
	} catch (error) {
		if (isCairnError(error)) throw error;
		const reason = error instanceof Error ? error.message : String(error);
		throw invalidArgument(`${source} is not valid JSON (${reason}): pass a JSON value, e.g. '{"text":"hi"}'`, { field: source });
	}
}
/** The payload of `log append`: --payload JSON, --payload - (stdin) or --payload-file F. */
async function readPayload(call) {
	const inline = stringFlag(call.values, "payload");
	const file = stringFlag(call.values, "payload-file");
	if (inline !== void 0 && file !== void 0) throw new UsageError("pass either --payload or --payload-file, not both");
	if (file !== void 0) {
		let text;
		try {
			text = await readFile(file, "utf8");
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			throw invalidArgument(`could not read --payload-file ${file} (${reason}): check the path`, { field: "payload-file" });
		}
		return parseJsonText(text, `--payload-file ${file}`);
	}
	if (inline === "-") return parseJsonText(await readAll(call.stdin), "the payload on stdin");
	if (inline !== void 0) return parseJsonText(inline, "--payload");
}
async function readAll(stream) {
	return (await readAllBytes(stream)).toString("utf8");
}
/** Everything on a stream (stdin), as bytes. */
async function readAllBytes(stream) {
	const chunks = [];
	for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
	return Buffer.concat(chunks);
}
/** Drops undefined fields, so strict input schemas and JSON bodies see only what was given. */
function defined(input) {
	return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== void 0));
}
export { commandName as _, jsonFlag as a, unsafeIntegerIn as b, parseJsonText as c, stringFlag as d, wantsJson as f, mainHelp as g, groupHelp as h, findCommand as i, readAllBytes as l, commandHelp as m, checkArity as n, listFlag as o, wholeNumberFlag as p, defined as r, parseCommandLine as s, args_exports as t, readPayload as u, refuseUnsafeIntegers as v, toJsonText as y };
