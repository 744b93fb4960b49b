import { A as invalidArgument, T as corrupt } from "./front-BpLyP2oj.js";
import { i as digestOf } from "./chunker-BmGAprKG.js";
import "./pack-limits-oElBX9PA.js";
// dist/desk/tree.js
const DIGEST = /^[0-9a-f]{64}$/;
function byName(a, b) {
	return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
function encodeTree(items) {
	const e = [...items].sort(byName).map((item) => {
		if (item.kind === "file") {
			const entry = [
				item.name,
				"f",
				item.size,
				item.exec ? 1 : 0,
				item.chunks
			];
			return item.redacted ? [...entry, 1] : entry;
		}
		if (item.kind === "dir") {
			const entry = [
				item.name,
				"d",
				item.tree,
				item.files,
				item.bytes
			];
			return item.redacted ? [...entry, item.redacted] : entry;
		}
		return [
			item.name,
			"l",
			item.target
		];
	});
	const bytes = Buffer.from(JSON.stringify({
		v: 1,
		e
	}));
	return {
		digest: digestOf(bytes),
		bytes
	};
}
const EMPTY_TREE = encodeTree([]);
const MAX_PATH_BYTES = 4096;
/**
* A name one directory entry may have: no separators, not `.`/`..`, no NUL,
* at most 255 bytes. Every tree is decoded through it, and a pack from
* outside the store is refused when one of its trees is not (verifyPack).
*/
function validName(name) {
	return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0") && Buffer.byteLength(name, "utf8") <= 255;
}
function malformedTree(digest, why) {
	return corrupt(`desk tree ${digest} is malformed (${why}): restore the store from a backup`, { digest });
}
function decodeTree(digest, bytes) {
	let doc;
	try {
		doc = JSON.parse(bytes.toString("utf8"));
	} catch {
		throw malformedTree(digest, "not JSON");
	}
	if (doc.v !== 1 || !Array.isArray(doc.e)) throw malformedTree(digest, "not a v1 tree");
	const items = [];
	let previous = null;
	for (const raw of doc.e) {
		if (!Array.isArray(raw) || typeof raw[0] !== "string" || !validName(raw[0])) throw malformedTree(digest, "bad entry name");
		const name = raw[0];
		if (previous !== null && !(previous < name)) throw malformedTree(digest, "entries out of order");
		previous = name;
		if (raw[1] === "f" && Number.isSafeInteger(raw[2]) && (raw[3] === 0 || raw[3] === 1) && Array.isArray(raw[4]) && (raw.length === 5 || raw.length === 6 && raw[5] === 1)) {
			const chunks = raw[4];
			if (!chunks.every((c) => typeof c === "string" && DIGEST.test(c))) throw malformedTree(digest, `bad chunk list for ${name}`);
			items.push({
				name,
				kind: "file",
				size: raw[2],
				exec: raw[3] === 1,
				chunks,
				...raw[5] === 1 ? { redacted: true } : {}
			});
		} else if (raw[1] === "d" && typeof raw[2] === "string" && DIGEST.test(raw[2]) && Number.isSafeInteger(raw[3]) && Number.isSafeInteger(raw[4]) && (raw.length === 5 || raw.length === 6 && Number.isSafeInteger(raw[5]) && raw[5] > 0)) {
			const redacted = raw.length === 6 ? { redacted: raw[5] } : {};
			items.push({
				name,
				kind: "dir",
				tree: raw[2],
				files: raw[3],
				bytes: raw[4],
				...redacted
			});
		} else if (raw[1] === "l" && typeof raw[2] === "string") items.push({
			name,
			kind: "symlink",
			target: raw[2]
		});
		else throw malformedTree(digest, `bad entry ${name}`);
	}
	return items;
}
// dist/desk/pack-format.js
/**
* A desk pack is self-describing: after its objects comes an index of them,
* so whoever receives a pack (the store, from a client over the network) can
* check every object against its digest before any of them is indexed, and a
* store's object index could be rebuilt from its packs alone.
*
*   salt (16 random bytes) | object bytes … | entries | count (u32 BE) | "CPK1"
*
* Each entry is 41 bytes: the object's sha256 (32), its kind (1: 0 chunk,
* 1 tree), its offset and length in the pack (u32 BE each). Objects lie
* between the salt and the entries and do not overlap. The pack's name is
* the sha256 of all of it. See docs/design/desk.md.
*/
const MAGIC = Buffer.from("CPK1", "latin1");
/** The bytes of the index that ends a pack holding `entries`. */
function packIndex(entries) {
	const out = Buffer.allocUnsafe(entries.length * 41 + 8);
	let at = 0;
	for (const e of entries) {
		out.write(e.digest, at, 32, "hex");
		out[at + 32] = e.kind === "tree" ? 1 : 0;
		out.writeUInt32BE(e.off, at + 33);
		out.writeUInt32BE(e.len, at + 37);
		at += 41;
	}
	out.writeUInt32BE(entries.length, at);
	MAGIC.copy(out, at + 4);
	return out;
}
/** Bytes the index of `count` objects adds to a pack. */
function malformed(why, data = {}) {
	return invalidArgument(`the pack is malformed (${why}): send the pack as the desk wrote it`, data);
}
/** The index that ends a pack (its entries, count and magic), as stored while the pack is staged. */
function packIndexOf(pack) {
	if (pack.length < 24 || !pack.subarray(pack.length - 4).equals(MAGIC)) throw malformed("no pack index at its end");
	const count = pack.readUInt32BE(pack.length - 8);
	return pack.subarray(Math.max(0, pack.length - 8 - count * 41));
}
/** The entries of an index `packIndexOf` returned (trusted: it was checked when the pack came in). */
function indexEntries(index) {
	const entries = [];
	for (let at = 0; at + 41 <= index.length - 8; at += 41) entries.push({
		digest: index.toString("hex", at, at + 32),
		kind: index[at + 32] === 1 ? "tree" : "chunk",
		off: index.readUInt32BE(at + 33),
		len: index.readUInt32BE(at + 37)
	});
	return entries;
}
/** Reads a pack's index, checking its shape (bounds, order, kinds); not the digests (see `verifyPack`). */
function readPackIndex(pack) {
	if (pack.length < 24 || !pack.subarray(pack.length - 4).equals(MAGIC)) throw malformed("no pack index at its end");
	const count = pack.readUInt32BE(pack.length - 8);
	const start = pack.length - 8 - count * 41;
	if (count === 0 || start < 16) throw malformed(`its index claims ${count} objects`);
	const entries = [];
	let end = 16;
	for (let at = start; at < pack.length - 8; at += 41) {
		const kind = pack[at + 32];
		const off = pack.readUInt32BE(at + 33);
		const len = pack.readUInt32BE(at + 37);
		if (kind !== 0 && kind !== 1) throw malformed(`object kind ${kind}`);
		if (off < end || off + len > start) throw malformed(`object at ${off} (${len} bytes) overlaps another or the index`);
		end = off + len;
		entries.push({
			digest: pack.toString("hex", at, at + 32),
			kind: kind === 1 ? "tree" : "chunk",
			off,
			len
		});
	}
	return entries;
}
/**
* Checks a pack received from outside the store: it hashes to its name and
* each object to its digest. Throws INVALID_ARGUMENT (nothing is stored) on
* any mismatch; returns the index.
*/
function verifyPack(name, pack) {
	const actual = digestOf(pack);
	if (actual !== name) throw invalidArgument(`pack ${name} hashes to ${actual}: send the pack's bytes unchanged`, {
		pack: name,
		actual
	});
	const entries = readPackIndex(pack);
	for (const e of entries) {
		const bytes = pack.subarray(e.off, e.off + e.len);
		const got = digestOf(bytes);
		if (got !== e.digest) throw invalidArgument(`pack ${name} says the object at ${e.off} is ${e.digest} but its bytes hash to ${got}: nothing was stored`, {
			pack: name,
			digest: e.digest,
			actual: got
		});
		if (e.kind === "tree") try {
			decodeTree(e.digest, Buffer.from(bytes));
		} catch (error) {
			throw invalidArgument(`pack ${name} holds tree ${e.digest} that is not a valid tree (${error.message}): nothing was stored`, {
				pack: name,
				digest: e.digest
			});
		}
	}
	return entries;
}
export { verifyPack as a, decodeTree as c, readPackIndex as i, encodeTree as l, packIndex as n, EMPTY_TREE as o, packIndexOf as r, MAX_PATH_BYTES as s, indexEntries as t, validName as u };
