/** A pack is closed once its objects reach this many bytes (a larger object gets a pack of its own). */
const PACK_BYTES = 8388608;
/** Bytes of a pack's index of `count` objects. */
function packIndexBytes(count) {
	return count * 41 + 8;
}
/** The largest pack the store takes: a full pack, one more object of up to 4 MiB, an index of 65,536 entries. */
const MAX_PACK_BYTES = 12582912 + packIndexBytes(65536);
export { PACK_BYTES as n, packIndexBytes as r, MAX_PACK_BYTES as t };
