import { t as MEMORY_CONTRACT } from "./contract-BYiYS3r2.js";
import { t as operationCommand } from "./derived-0u4ipQJF.js";
import { b as table, y as isoTime } from "./front-BpLyP2oj.js";
// dist/cli/memory-commands.js
/**
* `cairn memory …`: the table's memory operations from the command line, on
* a local store or a server (`--url`). The commands are made from the
* operations' CLI bindings (derived.ts); what is written here is how each
* answer is printed.
*/
function recordLines(r) {
	return [`${r.id} v${r.version} ${r.kind} [${r.provenance.trust}, from ${r.provenance.source}] ${isoTime(r.recordedAt)}`, `  ${r.text}`];
}
const records = (answer) => answer.items.flatMap(recordLines);
const MEMORY_COMMANDS = [
	operationCommand(MEMORY_CONTRACT.remember, recordLines),
	operationCommand(MEMORY_CONTRACT.recall, (answer) => {
		const lines = answer.items.flatMap((r) => {
			const [head = "", ...rest] = recordLines(r);
			return [`${r.score.toFixed(3)}  ${head}`, ...rest];
		});
		return lines.length > 0 ? lines : ["nothing recalled"];
	}),
	operationCommand(MEMORY_CONTRACT.listMemory, (answer) => {
		const lines = table(answer.items.map((r) => [
			r.id,
			`v${r.version}`,
			r.kind,
			r.provenance.trust,
			r.text.slice(0, 60)
		]));
		return lines.length > 0 ? lines : ["no records"];
	}),
	operationCommand(MEMORY_CONTRACT.getMemory, recordLines),
	operationCommand(MEMORY_CONTRACT.memoryHistory, records),
	operationCommand(MEMORY_CONTRACT.quarantineMemory, recordLines),
	operationCommand(MEMORY_CONTRACT.promoteMemory, recordLines),
	operationCommand(MEMORY_CONTRACT.reindexMemory, (a) => `indexed ${a.indexed} record(s) in ${a.model}; ${a.remaining} still without a vector`),
	operationCommand(MEMORY_CONTRACT.forgetMemory, (answer) => [`${answer.preview ? "would forget" : "forgot"} ${answer.records.length} record(s), ${answer.versions} version(s), ${answer.indexEntries} index entr${answer.indexEntries === 1 ? "y" : "ies"}:`, ...answer.records.map((r) => `  ${r}`)])
];
export { MEMORY_COMMANDS };
