import { S as ERROR_CODES } from "./front-BpLyP2oj.js";
import { $ as object, J as _enum, Q as number, Z as literal, et as record, rt as unknown, tt as string } from "./schema-akKHYQxY.js";
// dist/shapes.js
/**
* The nouns every feature's answers share, as zod schemas: times, typed ids,
* the caller's identity, the one error body, a plain acknowledgement. Each
* feature declares its own answers in its `shapes.ts`; the TypeScript types
* (`types.ts`) are inferred from them, the OpenAPI document's response
* schemas are generated from them, and the tests check live answers
* against them.
*/
const at = number().int().describe("milliseconds since the epoch");
const idOf = () => string();
const Identity = object({
	tenant: string(),
	principal: string(),
	kind: _enum([
		"user",
		"agent",
		"service"
	]),
	role: _enum(["admin", "member"])
});
const ErrorBody = object({
	code: _enum(ERROR_CODES),
	message: string(),
	data: record(string(), unknown())
});
const Done = object({ ok: literal(true) });
export { idOf as a, at as i, ErrorBody as n, Identity as r, Done as t };
