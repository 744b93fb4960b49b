import { i as wholeNumberText, t as inputJsonSchema } from "./json-schema-BNEYK87j.js";
import { t as opTitle } from "./spec-2aais7-z.js";
import { h as InputRefused, j as isCairnError, m as EXIT } from "./front-BpLyP2oj.js";
import { n as ID_PREFIXES, t as parseInput } from "./validate-Dzwxqk5b.js";
import { c as parseJsonText, d as stringFlag, o as listFlag } from "./args-Br0IqddQ.js";
// dist/cli/derived.js
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
function kindOf(p) {
	const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
	if (type === "boolean") return "boolean";
	if (type === "integer" || type === "number") return "number";
	if (type === "string") return "string";
	if (type === "array" && p.items?.type === "string") return "list";
	if (type === "object" && p.properties !== void 0 && p.additionalProperties === false && Object.values(p.properties).every((inner) => inner.type === "string")) return "pairs";
	return "json";
}
/** A default worth printing in help (not an empty list, object or string). */
function shownDefault(value) {
	if (value === void 0 || value === null || value === "") return void 0;
	if (Array.isArray(value) && value.length === 0) return void 0;
	if (typeof value === "object" && Object.keys(value).length === 0) return void 0;
	return typeof value === "string" ? value : JSON.stringify(value);
}
function helpOf(p, kind, keys) {
	const parts = [p.description ?? ""];
	const choices = p.enum ?? p.items?.enum;
	if (choices) parts.push(`one of ${choices.join(", ")}`);
	if (kind === "pairs" && keys) parts.push(`KIND one of ${keys.join(", ")}`);
	if (kind === "list" || kind === "pairs") parts.push("repeatable");
	const fallback = shownDefault(p.default);
	if (fallback !== void 0) parts.push(`default ${fallback}`);
	return parts.filter((part) => part !== "").join("; ");
}
/** The kind of id a pattern takes (`^ev_…` → EVENT), by the prefixes of ids.ts. */
const ID_NOUNS = new Map(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind.toUpperCase()]));
function placeholder(kind, flag, p) {
	if (kind === "number") return "N";
	if (kind === "json") return "JSON";
	if (kind === "pairs") return "KIND:VALUE";
	const pattern = p.pattern ?? p.items?.pattern;
	return (pattern === void 0 ? void 0 : ID_NOUNS.get(/^\^([a-z]{2})_/.exec(pattern)?.[1] ?? "")) ?? flag.toUpperCase().replace(/-/g, "_");
}
const derived = /* @__PURE__ */ new WeakMap();
/** The positional arguments and flags of an operation's command, from its binding and input schema. */
function cliFieldsOf(operation) {
	const known = derived.get(operation);
	if (known) return known;
	const binding = operation.cli;
	if (!binding) throw new Error(`${operation.name} has no CLI binding`);
	const schema = inputJsonSchema(operation);
	const properties = schema.properties ?? {};
	const required = new Set(schema.required ?? []);
	const positional = binding.args ?? [];
	for (const field of positional) if (!(field in properties)) throw new Error(`${operation.name}: argument ${field} is not an input field`);
	const fields = {
		args: positional.map((field) => ({
			field,
			kind: kindOf(properties[field]),
			shown: (binding.flags?.[field] ?? field).toUpperCase()
		})),
		flags: []
	};
	for (const [field, p] of Object.entries(properties)) {
		if (positional.includes(field)) continue;
		const kind = kindOf(p);
		const name = binding.flags?.[field] ?? kebab(field);
		const keys = kind === "pairs" ? Object.keys(p.properties ?? {}) : void 0;
		const flag = {
			name,
			type: kind === "boolean" ? "boolean" : "string",
			help: helpOf(p, kind, keys),
			...kind !== "boolean" ? { value: placeholder(kind, name, p) } : {},
			...required.has(field) ? { required: true } : {},
			...kind === "list" || kind === "pairs" ? { multiple: true } : {}
		};
		fields.flags.push({
			field,
			kind,
			flag,
			...keys ? { keys } : {}
		});
	}
	derived.set(operation, fields);
	return fields;
}
/** `--scope user:alice --scope session:ss_…` as `{ user: 'alice', session: 'ss_…' }`. */
function pairsOf(values, f) {
	const given = listFlag(values, f.flag.name);
	if (given.length === 0) return void 0;
	const out = {};
	for (const text of given) {
		const colon = text.indexOf(":");
		const key = colon < 0 ? "" : text.slice(0, colon);
		if (colon < 0 || !f.keys?.includes(key)) throw new InputRefused(`--${f.flag.name} ${text}: write KIND:VALUE with KIND one of ${f.keys?.join(", ")}, e.g. ${f.keys?.[0]}:…`, f.field);
		if (key in out) throw new InputRefused(`--${f.flag.name} names ${key} twice: give one of each`, f.field);
		out[key] = text.slice(colon + 1);
	}
	return out;
}
function fieldValue(kind, text, source, field) {
	if (kind === "number") return wholeNumberText(text, source, field);
	if (kind === "json") return parseJsonText(text, source);
	return text;
}
/** The operation's input as the command line gives it: fields left out stay out (the schema's defaults apply). */
function inputOf(operation, values, positionals) {
	const { args, flags } = cliFieldsOf(operation);
	const input = {};
	args.forEach(({ field, kind }, i) => {
		const text = positionals[i];
		if (text !== void 0) input[field] = fieldValue(kind, text, field.toUpperCase(), field);
	});
	for (const f of flags) {
		const source = `--${f.flag.name}`;
		if (f.kind === "boolean") {
			if (values[f.flag.name] === true) input[f.field] = true;
		} else if (f.kind === "list") {
			const given = listFlag(values, f.flag.name);
			if (given.length > 0) input[f.field] = given;
		} else if (f.kind === "pairs") {
			const pairs = pairsOf(values, f);
			if (pairs) input[f.field] = pairs;
		} else {
			const text = stringFlag(values, f.flag.name);
			if (text !== void 0) input[f.field] = fieldValue(f.kind, text, source, f.field);
		}
	}
	return input;
}
/**
* The command of an operation with a CLI binding: arguments and flags from
* its schema, the input checked before anything is opened, the operation
* run through the fabric, the answer printed by `format` (and with `--json`
* as it came, or as `document` puts it: a list answer named with its input).
*/
function operationCommand(operation, format, document) {
	const binding = operation.cli;
	if (!binding) throw new Error(`${operation.name} has no CLI binding`);
	return {
		target: "fabric",
		names: [...binding.command],
		get args() {
			return cliFieldsOf(operation).args.map((a) => a.shown);
		},
		get flags() {
			return cliFieldsOf(operation).flags.map((f) => f.flag);
		},
		summary: binding.summary ?? operation.summary.charAt(0).toLowerCase() + operation.summary.slice(1),
		...binding.example ? { example: binding.example } : {},
		operation: operation.name,
		check({ values, positionals }) {
			checkedInput(operation, values, positionals);
		},
		async run(fabric, { values, positionals, out }) {
			const input = inputOf(operation, values, positionals);
			const answer = await fabric[operation.name].call(fabric, input);
			out.result(document ? document(answer, input) : answer, format(answer, input));
			return EXIT.ok;
		}
	};
}
/** The command line's input, validated by the operation's own schema; a refusal is a usage error (exit 2). */
function checkedInput(operation, values, positionals) {
	return tableInput(operation, () => inputOf(operation, values, positionals));
}
/**
* The input `make` gives, as the operation's schema takes it; a refusal —
* a malformed number or JSON text, or the schema's (the table's message) —
* is a usage error: exit 2, with the operation's code.
*/
function tableInput(operation, make) {
	try {
		return parseInput(operation.input, make(), opTitle(operation.name));
	} catch (error) {
		if (isCairnError(error) && error.code === "INVALID_ARGUMENT") throw InputRefused.from(error);
		throw error;
	}
}
export { tableInput as n, operationCommand as t };
