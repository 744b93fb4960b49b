import { closeSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
// dist/desk/chunker.js
/**
* Content-defined chunking (FastCDC with normalised chunking, gear hash):
* a cut point depends only on the bytes just before it, so an edit inside a
* large file moves the cuts near the edit and no others, and the unchanged
* chunks deduplicate. No maintained JavaScript FastCDC exists on npm (the one
* WebAssembly port is a 0.1 release), so the ~40 lines live here; the gear
* table and the sizes below are part of the store format (docs/design/desk.md).
*/
const SMALL_FILE = 524288;
const MIN = 262144;
const AVG = 1048576;
const MAX = 4194304;
const MASK_HARD = 4294966272;
const MASK_EASY = 4294950912;
const GEAR = (() => {
	const table = /* @__PURE__ */ new Uint32Array(256);
	for (let i = 0; i < 256; i++) table[i] = createHash("sha256").update(`cairn-gear-${i}`).digest().readUInt32BE(0);
	return table;
})();
/** Length of the first chunk of `data` (all of it when it is no longer than MIN). */
function cutPoint(data, start, end) {
	const length = end - start;
	if (length <= MIN) return length;
	const normal = Math.min(length, AVG);
	const limit = Math.min(length, MAX);
	let hash = 0;
	let i = MIN;
	for (; i < normal; i++) {
		hash = (hash << 1) + GEAR[data[start + i]] >>> 0;
		if ((hash & MASK_HARD) === 0) return i + 1;
	}
	for (; i < limit; i++) {
		hash = (hash << 1) + GEAR[data[start + i]] >>> 0;
		if ((hash & MASK_EASY) === 0) return i + 1;
	}
	return limit;
}
/** Bytes past a chunk's end that its `window` also shows (the guard's scan overlap). */
const LOOKAHEAD = 65536;
function digestOf(bytes) {
	return createHash("sha256").update(bytes).digest("hex");
}
/**
* Reads a file and yields its chunks in order, holding at most two maximum
* chunk sizes in memory whatever the file size. Small files (by the size the
* scan saw) are one chunk.
*/
function* chunkFile(path, size) {
	const fd = openSync(path, "r");
	try {
		if (size <= 524288) {
			const bytes = Buffer.allocUnsafe(size);
			let got = 0;
			while (got < size) {
				const n = readSync(fd, bytes, got, size - got, got);
				if (n === 0) break;
				got += n;
			}
			const whole = got === size ? bytes : bytes.subarray(0, got);
			if (whole.length > 0) yield {
				digest: digestOf(whole),
				bytes: whole,
				owned: true
			};
			return;
		}
		yield* chunkFrom(fd, 0);
	} finally {
		closeSync(fd);
	}
}
/**
* Read windows of 2 × MAX, reused across files: allocating a fresh 8 MiB
* window per large file left each for the garbage collector and pushed peak
* memory up. Each running chunker takes its own window, so concurrent
* checkpoints never share one.
*/
const windows = [];
/**
* Copies of one chunk and its look-ahead (a scan's window), each in a
* buffer of its own so it can move to the scan worker and back, reused once
* the chunk is stored: a fresh one per chunk left ~1 MiB for the garbage
* collector per chunk, paid by whatever ran next.
*/
const copies = [];
const COPY_BYTES = 4259840;
const COPIES_KEPT = 8;
/** A copy of `window` (at most a chunk and its look-ahead) in a buffer of its own; give it back with {@link returnCopy}. */
function copyWindow(window) {
	const copy = (copies.pop() ?? Buffer.allocUnsafeSlow(COPY_BYTES)).subarray(0, window.length);
	copy.set(window);
	return copy;
}
/** Returns a copy from {@link copyWindow} once nothing refers to its bytes any more. */
function returnCopy(copy) {
	if (copy.buffer.byteLength === COPY_BYTES && copies.length < COPIES_KEPT) copies.push(Buffer.from(copy.buffer, 0, COPY_BYTES));
}
function* chunkFrom(fd, offset) {
	const buffer = windows.pop() ?? Buffer.allocUnsafe(2 * MAX);
	try {
		yield* cutWindow(fd, offset, buffer);
	} finally {
		if (windows.length < 2) windows.push(buffer);
	}
}
function* cutWindow(fd, offset, buffer) {
	let start = 0;
	let end = 0;
	let position = offset;
	let eof = false;
	for (;;) {
		if (!eof && end - start < 4259840) {
			if (start > 0) {
				buffer.copy(buffer, 0, start, end);
				end -= start;
				start = 0;
			}
			while (end < buffer.length) {
				const n = readSync(fd, buffer, end, buffer.length - end, position);
				if (n === 0) {
					eof = true;
					break;
				}
				end += n;
				position += n;
			}
		}
		if (start === end) return;
		const length = cutPoint(buffer, start, end);
		const bytes = buffer.subarray(start, start + length);
		const window = buffer.subarray(start, Math.min(end, start + length + LOOKAHEAD));
		start += length;
		yield {
			digest: digestOf(bytes),
			bytes,
			owned: false,
			window
		};
	}
}
export { returnCopy as a, digestOf as i, chunkFile as n, copyWindow as r, SMALL_FILE as t };
