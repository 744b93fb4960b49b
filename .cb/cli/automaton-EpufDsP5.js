// dist/desk/guard/keyword-dfa-wasm.js
/**
* The keyword DFA's inner loop as WebAssembly: two runs over the two halves
* of a window, interleaved, so the processor overlaps their table loads
* (about 2.5x the JavaScript loop here). Compiled from keyword-dfa.wat
* (wabt 1.0.39 `wat2wasm`); a test compiles the source again and compares.
*/
const KEYWORD_DFA_WASM = Buffer.from("AGFzbQEAAAABFwJgBn9/f39/fwF/YAh/f39/f39/fwF/AwMCAAEFAwEAAQcSAgZtZW1vcnkCAAVzY2FuMgABCsoBAikAIAIgAEEIdmpBAToAACAFIARJBEAgAyAFQQJ0aiABNgIACyAFQQFqC50BAQN/AkADQCABIAJPIAMgBE9xDQEgASACSQRAIAggAS0AAHJBAnQoAgAhCCABQQFqIQEgCEEASARAQQAgCGshCCAIIAEgAGsgBSAGIAcgChAAIQoLCyADIARJBEAgCSADLQAAckECdCgCACEJIANBAWohAyAJQQBIBEBBACAJayEJIAkgAyAAayAFIAYgByAKEAAhCgsLDAALCyAKCw==", "base64");
// dist/desk/guard/automaton.js
/**
* The keyword prefilter: one pass of an Aho–Corasick automaton (a full DFA on
* bytes, ASCII letters folded) over a file's bytes says which rules can match
* at all, and where their keywords occur. A rule none of whose keywords occur
* cannot match and is not run; that keeps most files away from the regular
* expressions entirely.
*/
/** Hit positions kept per scan; past this a caller scans the whole window. */
const MAX_POSITIONS = 256;
/** Below this many bytes the JavaScript loop wins: no copy into WebAssembly memory. */
const WASM_MIN_BYTES = 1024;
/**
* The same DFA run by the WebAssembly loop (keyword-dfa.wat): the window is
* copied into the module's memory and scanned as two interleaved halves, the
* first run carried past the middle by the longest keyword so nothing that
* straddles it is missed; hits both runs see are reported once.
*/
function wasmScanner(encoded, states, longest) {
	const instance = new WebAssembly.Instance(new WebAssembly.Module(KEYWORD_DFA_WASM));
	const memory = instance.exports.memory;
	const scan2 = instance.exports.scan2;
	const seenAt = encoded.byteLength;
	const outAt = Math.ceil((seenAt + states) / 8) * 8;
	const inAt = outAt + 1024;
	const reserve = (bytes) => {
		const short = inAt + bytes - memory.buffer.byteLength;
		if (short > 0) memory.grow(Math.ceil(short / 65536));
	};
	reserve(0);
	new Int32Array(memory.buffer, 0, encoded.length).set(encoded);
	return (bytes) => {
		reserve(bytes.length);
		const heap = new Uint8Array(memory.buffer);
		heap.fill(0, seenAt, seenAt + states);
		heap.set(bytes, inAt);
		const end = inAt + bytes.length;
		const mid = inAt + (bytes.length >> 1);
		const n = scan2(inAt, inAt, Math.min(end, mid + longest - 1), mid, end, seenAt, outAt, 256);
		const found = [];
		for (let s = 0; s < states; s++) if (heap[seenAt + s] !== 0) found.push(s);
		const recorded = new Int32Array(memory.buffer, outAt, Math.min(n, 256));
		return {
			states: found,
			positions: [...new Set(recorded)].sort((a, b) => a - b),
			overflow: n > 256
		};
	};
}
function fold(byte) {
	return byte >= 65 && byte <= 90 ? byte + 32 : byte;
}
/** Builds the DFA for `keywords[rule]` (ASCII, matched case-insensitively). */
function buildAutomaton(keywords) {
	const goto = [/* @__PURE__ */ new Map()];
	const outputs = [/* @__PURE__ */ new Set()];
	keywords.forEach((words, ruleIndex) => {
		for (const keyword of words) {
			let s = 0;
			for (const byte of Buffer.from(keyword.toLowerCase(), "latin1")) {
				let next = goto[s].get(byte);
				if (next === void 0) {
					next = goto.length;
					goto.push(/* @__PURE__ */ new Map());
					outputs.push(/* @__PURE__ */ new Set());
					goto[s].set(byte, next);
				}
				s = next;
			}
			outputs[s].add(ruleIndex);
		}
	});
	const n = goto.length;
	const delta = new Uint32Array(n * 256);
	const failure = new Array(n).fill(0);
	const queue = [];
	for (let c = 0; c < 256; c++) {
		const next = goto[0].get(fold(c));
		delta[c] = next ?? 0;
		if (next !== void 0 && c === fold(c)) queue.push(next);
	}
	for (let head = 0; head < queue.length; head++) {
		const s = queue[head];
		for (const r of outputs[failure[s]]) outputs[s].add(r);
		for (let c = 0; c < 256; c++) {
			const next = goto[s].get(fold(c));
			if (next === void 0) delta[s * 256 + c] = delta[failure[s] * 256 + c];
			else {
				delta[s * 256 + c] = next;
				if (c === fold(c)) {
					failure[next] = delta[failure[s] * 256 + c];
					queue.push(next);
				}
			}
		}
	}
	const encoded = new Int32Array(n * 256);
	for (let i = 0; i < delta.length; i++) {
		const next = delta[i];
		encoded[i] = outputs[next].size > 0 ? -(next * 256) : next * 256;
	}
	const enables = outputs.map((o) => [...o]);
	const seen = new Uint32Array(n);
	let generation = 0;
	const longest = Math.max(1, ...keywords.flat().map((k) => Buffer.byteLength(k, "latin1")));
	const wasm = typeof WebAssembly === "object" ? wasmScanner(encoded, n, longest) : null;
	const rulesOf = ({ states, positions, overflow }) => {
		if (states.length === 0) return {
			rules: [],
			positions,
			overflow
		};
		const selected = /* @__PURE__ */ new Set();
		for (const state of states) for (const r of enables[state]) selected.add(r);
		return {
			rules: [...selected].sort((a, b) => a - b),
			positions,
			overflow
		};
	};
	return { scan(bytes) {
		if (wasm && bytes.length >= WASM_MIN_BYTES) return rulesOf(wasm(bytes));
		generation = generation + 1 >>> 0;
		if (generation === 0) {
			seen.fill(0);
			generation = 1;
		}
		const states = [];
		const positions = [];
		let overflow = false;
		let s = 0;
		const length = bytes.length;
		for (let i = 0; i < length; i++) {
			s = encoded[s | bytes[i]];
			if (s < 0) {
				s = -s;
				const state = s >> 8;
				if (seen[state] !== generation) {
					seen[state] = generation;
					states.push(state);
				}
				if (positions.length < 256) positions.push(i + 1);
				else overflow = true;
			}
		}
		return rulesOf({
			states,
			positions,
			overflow
		});
	} };
}
export { MAX_POSITIONS, buildAutomaton };
