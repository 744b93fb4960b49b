import { k as internal } from "./front-BpLyP2oj.js";
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules } from "@secretlint/secretlint-rule-preset-recommend";
// dist/desk/guard/secretlint.js
/**
* secretlint's recommended preset as a source of spans. Its
* `filter-comments` rule is left out: `secretlint-disable` comments are the
* agent's to write, and the guard is not the agent's to waive (an allow-list
* is the store admin's, see guard.ts).
*/
secretLintProfiler.mark = () => {};
const RULE_PREFIX = "@secretlint/secretlint-rule-";
const LEFT_OUT = /* @__PURE__ */ new Set(["filter-comments"]);
/**
* For each rule of the preset, literal strings (ASCII, matched
* case-insensitively) of which every match of the rule contains at least
* one, read off the rules' own patterns. The tests fail when the preset gains
* a rule that is not listed here.
*/
const RULE_KEYWORDS = {
	aws: [
		"secret_access",
		"secretaccess",
		"a3t",
		"akia",
		"agpa",
		"aida",
		"aroa",
		"aipa",
		"anpa",
		"anva",
		"asia"
	],
	gcp: ["private_key"],
	npm: [
		"x-oauth-basic",
		"_authtoken=",
		"npm_"
	],
	slack: [
		"xoxb-",
		"xoxp-",
		"xapp-",
		"xoxa-",
		"xoxo-",
		"xoxr-",
		"hooks.slack.com"
	],
	basicauth: ["://"],
	openai: ["t3blbkfj"],
	anthropic: ["sk-ant-api0"],
	groq: ["gsk_"],
	huggingface: ["hf_"],
	linear: ["lin_api_"],
	notion: ["ntn_"],
	privatekey: ["-----begin"],
	sendgrid: ["sg."],
	shopify: [
		"shppa_",
		"shpca_",
		"shpat_",
		"shpss_"
	],
	github: [
		"ghp_",
		"gho_",
		"ghu_",
		"ghs_",
		"ghr_",
		"github_pat_"
	],
	gitlab: ["glpat-"],
	grafana: ["glc_", "glsa_"],
	"1password": ["ops_ey"],
	"database-connection-string": [
		"mongodb",
		"mysql",
		"postgres"
	],
	"hashicorp-vault": [
		"hvs.",
		"hvb.",
		"hvr."
	],
	vercel: [
		"vcp_",
		"vci_",
		"vca_",
		"vcr_",
		"vck_"
	],
	databricks: ["dapi"],
	docker: ["dckr_pat_"],
	figma: ["figd_"]
};
/** Options per rule; the AWS access key id scan is off in secretlint by default. */
const RULE_OPTIONS = { aws: { enableIDScanRule: true } };
/** Messages dropped: an AWS account id is an identifier, not a credential. */
const DROPPED_MESSAGES = /* @__PURE__ */ new Set(["AWSAccountID"]);
function shortId(rule) {
	const id = rule.meta.id;
	return id.startsWith(RULE_PREFIX) ? id.slice(28) : id;
}
/** The preset's rules the guard runs. */
const SECRETLINT_RULES = rules.filter((r) => !LEFT_OUT.has(shortId(r)));
/** Keywords per rule of {@link SECRETLINT_RULES}; a rule without any would run on every file. */
const SECRETLINT_KEYWORDS = SECRETLINT_RULES.map((r) => RULE_KEYWORDS[shortId(r)] ?? [""]);
/** Rule ids (short form) of the preset that the prefilter has no keywords for. */
function unkeyedSecretRules() {
	return SECRETLINT_RULES.map(shortId).filter((id) => RULE_KEYWORDS[id] === void 0);
}
/**
* Second look for rules whose keywords the case-folding prefilter over-selects:
* AWS key ids are upper case (`AKIA…`), so `canvas` must not run the AWS rules.
*/
const CONFIRM = { aws: (text) => /(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}/.test(text) || /secret_?access/i.test(text) };
function extensionOf(path) {
	const name = path.slice(path.lastIndexOf("/") + 1);
	const dot = name.lastIndexOf(".");
	return dot > 0 ? name.slice(dot) : "";
}
/** Spans the given rules (indices into {@link SECRETLINT_RULES}) report in `text`. */
async function secretlintSpans(path, text, ruleIndices) {
	const rules = ruleIndices.map((i) => SECRETLINT_RULES[i]).filter((rule) => CONFIRM[shortId(rule)]?.(text) ?? true);
	if (rules.length === 0) return [];
	const config = { rules: rules.map((rule) => {
		const options = RULE_OPTIONS[shortId(rule)];
		return options ? {
			id: rule.meta.id,
			rule,
			options
		} : {
			id: rule.meta.id,
			rule
		};
	}) };
	let result;
	try {
		result = await lintSource({
			source: {
				filePath: path,
				ext: extensionOf(path),
				content: text,
				contentType: "text"
			},
			options: {
				config,
				maskSecrets: true,
				noPhysicFilePath: true
			}
		});
	} catch (error) {
		throw internal(`secret scan of ${path} failed; the file was not admitted`, { path }, { cause: error });
	}
	const spans = [];
	for (const message of result.messages) {
		if (DROPPED_MESSAGES.has(message.messageId)) continue;
		const id = message.ruleId.startsWith(RULE_PREFIX) ? message.ruleId.slice(28) : message.ruleId;
		spans.push({
			rule: `secretlint:${id}`,
			start: message.range[0],
			end: message.range[1]
		});
	}
	return spans;
}
export { SECRETLINT_KEYWORDS, SECRETLINT_RULES, secretlintSpans, unkeyedSecretRules };
