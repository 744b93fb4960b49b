import { A as invalidArgument, L as __exportAll } from "./front-BpLyP2oj.js";
import { t as MasterKey } from "./crypto-EPtFFJHI.js";
import { d as stringFlag } from "./args-Br0IqddQ.js";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
// dist/cli/master-key.js
var master_key_exports = /* @__PURE__ */ __exportAll({
	MASTER_KEY_FLAG: () => MASTER_KEY_FLAG,
	masterKeyOf: () => masterKeyOf
});
/**
* The vault master key, from `--master-key-file`, `$CAIRN_MASTER_KEY_FILE`
* or `$CAIRN_MASTER_KEY`: read by the CLI and passed to the library.
*/
const MASTER_KEY_FLAG = {
	name: "master-key-file",
	type: "string",
	value: "FILE",
	help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
};
/** The operator's master key, from a file or the environment; undefined when none is given. */
function masterKeyOf(call) {
	const file = stringFlag(call.values, "master-key-file") ?? call.env.CAIRN_MASTER_KEY_FILE;
	if (file !== void 0 && file !== "") {
		const path = resolve(call.cwd, file);
		let text;
		try {
			text = readFileSync(path, "utf8");
		} catch (error) {
			throw invalidArgument(`could not read the master key file ${path} (${error.code ?? "error"}): check the path`, { file: path });
		}
		return MasterKey.parse(text, path);
	}
	const inline = call.env.CAIRN_MASTER_KEY;
	return inline ? MasterKey.parse(inline, "CAIRN_MASTER_KEY") : void 0;
}
export { masterKeyOf as n, master_key_exports as r, MASTER_KEY_FLAG as t };
