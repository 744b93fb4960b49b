import { F as unavailable } from "./front-BpLyP2oj.js";
// dist/contract/spec.js
/**
* The contract: each operation of Cairn as data — its name, summary, input
* and output schemas, effect, where it runs, who may call it, its HTTP
* binding and MCP name — apart from the code that runs it. A feature's
* contract (`src/<feature>/contract.ts`) imports neither \`node:*\` nor a
* handler, an engine or a driver; its handlers (`src/<feature>/handlers.ts`)
* register against it on the server side (ops/table.ts), so a client, a
* browser page or an adapter can take the contract alone.
*/
/** Declares an operation's contract (the identity function, for inference of its input and output types). */
function spec(declared) {
	return declared;
}
/** "createSession" → "create session": how an operation is named in messages. */
function opTitle(name) {
	return name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}
/** The refusal of an operation that runs only where the workspace is, asked somewhere else. */
function runsAtCaller(command) {
	return unavailable(`${command} runs where the workspace is: use \`cairn ${command}\` or \`cairn mcp\` on the host that holds the directory (with --url when the store is a server's)`, { runs: "caller" });
}
export { runsAtCaller as n, spec as r, opTitle as t };
