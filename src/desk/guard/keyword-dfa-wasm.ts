/**
 * The keyword DFA's inner loop as WebAssembly: two runs over the two halves
 * of a window, interleaved, so the processor overlaps their table loads
 * (about 2.5x the JavaScript loop here). Compiled from keyword-dfa.wat
 * (wabt 1.0.39 `wat2wasm`); a test compiles the source again and compares.
 */
export const KEYWORD_DFA_WASM = Buffer.from(
  'AGFzbQEAAAABFwJgBn9/f39/fwF/YAh/f39/f39/fwF/AwMCAAEFAwEAAQcSAgZtZW1vcnkCAAVzY2FuMgABCsoBAikAIAIgAEEIdmpBAToAACAFIARJBEAgAyAFQQJ0aiABNgIACyAFQQFqC50BAQN/AkADQCABIAJPIAMgBE9xDQEgASACSQRAIAggAS0AAHJBAnQoAgAhCCABQQFqIQEgCEEASARAQQAgCGshCCAIIAEgAGsgBSAGIAcgChAAIQoLCyADIARJBEAgCSADLQAAckECdCgCACEJIANBAWohAyAJQQBIBEBBACAJayEJIAkgAyAAayAFIAYgByAKEAAhCgsLDAALCyAKCw==',
  'base64',
);
