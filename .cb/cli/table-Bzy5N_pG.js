import { t as AUDIT_CONTRACT } from "./contract-G_wE-vUo.js";
import { t as DESK_CONTRACT } from "./contract-D0rzaa3-.js";
import { t as IDENTITY_CONTRACT } from "./contract-Tc_KeSFm.js";
import { t as KEYS_CONTRACT } from "./contract-CPAwoohA.js";
import { t as LOG_CONTRACT } from "./contract-DAP9xz3h.js";
import { t as MEMORY_CONTRACT } from "./contract-BYiYS3r2.js";
import { t as STEP_CONTRACT } from "./contract-C3VBVK57.js";
import { t as UNIT_CONTRACT } from "./contract-Dlok8_sM.js";
import { t as opTitle } from "./spec-2aais7-z.js";
import { F as unavailable } from "./front-BpLyP2oj.js";
import { t as parseInput } from "./validate-Dzwxqk5b.js";
import { d as featureOperations, h as withHandlers, m as runOp, u as AT_CALLER } from "./store-folder-D53airw-.js";
// dist/contract/index.js
/**
* Cairn's contract: every operation of every feature, as data (contract/spec.ts).
* One line per feature; a feature's handlers are registered against its part
* on the server side (ops/registry.ts).
*/
/** Each feature's part of the contract, by the feature's name. */
const CONTRACT_PARTS = {
	identity: IDENTITY_CONTRACT,
	log: LOG_CONTRACT,
	audit: AUDIT_CONTRACT,
	keys: KEYS_CONTRACT,
	desk: DESK_CONTRACT,
	steps: STEP_CONTRACT,
	memory: MEMORY_CONTRACT,
	unit: UNIT_CONTRACT
};
Object.assign({}, ...Object.values(CONTRACT_PARTS));
const declared = Object.values(CONTRACT_PARTS).flatMap((part) => Object.keys(part));
if (new Set(declared).size !== declared.length) throw new Error("two features declare an operation of one name");
// dist/ops/table.js
/**
* The contract with every feature's handlers registered: what the server side
* runs. A feature's code loads on the first call of one of its operations
* (ops/registry.ts).
*/
const OPERATIONS = Object.assign({}, ...Object.entries(CONTRACT_PARTS).map(([feature, part]) => withHandlers(part, async () => {
	const table = await featureOperations(feature);
	return Object.fromEntries(Object.entries(table).map(([name, op]) => [name, op.run]));
}, AT_CALLER[feature])));
/**
* A fabric that is not embedded (a server's), with the operations that run
* at the caller (the unit's) running here, over the caller's side, and those
* with a step the caller's side settles first (a workspace named by its
* directory) settled here, then sent: what `cairn mcp --url` serves.
*/
function withCallerOps(fabric, caller) {
	const elsewhere = () => {
		throw unavailable("the store is a server's: reach it through the fabric", {});
	};
	const ctx = {
		get who() {
			return elsewhere();
		},
		get engine() {
			return elsewhere();
		},
		caller,
		read: elsewhere,
		write: elsewhere,
		once: elsewhere
	};
	const operations = Object.values(OPERATIONS);
	const there = fabric;
	const here = Object.fromEntries([...operations.filter((o) => o.runs === "caller").map((o) => [o.name, (input) => runOp(o, ctx, input)]), ...operations.filter((o) => o.runs === "anywhere" && o.atCaller).map((o) => [o.name, async (input) => {
		const valid = parseInput(o.input, input ?? {}, opTitle(o.name));
		return there[o.name](await o.atCaller(caller, valid));
	}])]);
	return {
		...fabric,
		...here,
		close: () => fabric.close()
	};
}
/** Operations served over HTTP: those that run anywhere (each has its route). */
function servedOps() {
	return Object.values(OPERATIONS).filter((o) => o.runs === "anywhere" && o.http !== void 0);
}
export { servedOps as n, withCallerOps as r, OPERATIONS as t };
