import { F as unavailable } from "./front-BpLyP2oj.js";
// dist/ops/frames.js
/**
* Byte strings in one body (the desk's object reads over HTTP): each a u32
* big-endian length, then its bytes.
*/
function frameBytes(parts) {
	let size = 0;
	for (const part of parts) size += 4 + part.byteLength;
	const out = new Uint8Array(size);
	const view = new DataView(out.buffer);
	let at = 0;
	for (const part of parts) {
		view.setUint32(at, part.byteLength);
		out.set(part, at + 4);
		at += 4 + part.byteLength;
	}
	return out;
}
/**
* The byte strings of a framed body, views into it (of Node's kind when the
* body is); a body cut short is UNAVAILABLE (ask again). Plain Uint8Array
* and DataView: the browser's client reads these too.
*/
function unframeBytes(body) {
	const parts = [];
	const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
	let at = 0;
	while (at < body.length) {
		if (at + 4 > body.length) throw cutShort(body.length);
		const length = view.getUint32(at);
		if (at + 4 + length > body.length) throw cutShort(body.length);
		parts.push(body.subarray(at + 4, at + 4 + length));
		at += 4 + length;
	}
	return parts;
}
function cutShort(size) {
	return unavailable(`the answer was cut short after ${size} bytes: ask again`, { size });
}
export { unframeBytes as n, frameBytes as t };
