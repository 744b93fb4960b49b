import "./store-CEqVpbTF.js";
import { i as restrictStorePaths, t as exposedStorePaths } from "./store-folder-D53airw-.js";
import { m as EXIT } from "./front-BpLyP2oj.js";
const DOCTOR_COMMANDS = [{
	target: "store",
	createsStore: false,
	reportsPermissions: true,
	names: ["doctor"],
	example: "cairn doctor --fix",
	args: [],
	flags: [{
		name: "fix",
		type: "boolean",
		help: "take group's and others' access away (the folder and its folders 0700, its files 0600)"
	}],
	summary: "check that only its owner may read the store (exit 1 when others may); --fix closes it",
	async run(dir, { values, out }) {
		const fixed = values.fix === true ? restrictStorePaths(dir) : [];
		const exposed = exposedStorePaths(dir);
		const lines = [
			...fixed.map((p) => `fixed: ${p.path} (was ${p.mode})`),
			...exposed.map((p) => `open to other users: ${p.path} (mode ${p.mode})`),
			exposed.length === 0 ? `store ${dir}: only its owner may read it` : `store ${dir}: run \`cairn doctor --fix --store ${dir}\` to close it`
		];
		out.result({
			store: dir,
			exposed,
			fixed
		}, lines);
		return exposed.length === 0 ? EXIT.ok : EXIT.checkFailed;
	}
}];
export { DOCTOR_COMMANDS };
