import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildAutomaton } from '../src/desk/guard/automaton.js';
import { KEYWORD_DFA_WASM } from '../src/desk/guard/keyword-dfa-wasm.js';

/** Every end offset of every keyword in bytes (case-insensitive), the plain way. */
function naive(bytes: Buffer, keywords: string[][]): { rules: number[]; positions: number[] } {
  const text = bytes.toString('latin1').toLowerCase();
  const rules = new Set<number>();
  const positions = new Set<number>();
  keywords.forEach((words, rule) => {
    for (const word of words) {
      for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
        rules.add(rule);
        positions.add(at + word.length);
      }
    }
  });
  return { rules: [...rules].sort((a, b) => a - b), positions: [...positions].sort((a, b) => a - b) };
}

describe('the keyword prefilter', () => {
  const keywords = [['ghp_', 'github_pat_'], ['-----begin '], ['akia', 'asia'], ['://'], ['sk_live_']];
  const automaton = buildAutomaton(keywords);

  it('finds every keyword, in any case, in small windows (JavaScript) and large ones (WebAssembly, two halves)', () => {
    for (const size of [100, 4095, 4096, 65_536, 1_000_001, 4 * 1024 * 1024 + 3]) {
      const bytes = randomBytes(size);
      // Plant keywords at the start, the end, across the middle (where the two runs meet) and at random.
      const plant = (word: string, at: number) =>
        bytes.write(word, Math.max(0, Math.min(size - word.length, at)), 'latin1');
      const mid = size >> 1;
      plant('GHP_', 0);
      for (let k = 1; k < 12; k++) plant('github_pat_', mid - k);
      plant('-----BEGIN ', mid - 5);
      plant('AkIa', size - 4);
      for (let i = 0; i < 30; i++)
        plant(['sk_live_', '://', 'asia'][i % 3] as string, Math.floor(Math.random() * size));
      const want = naive(bytes, keywords);
      const got = automaton.scan(bytes);
      expect(got.rules, `size ${size}`).toEqual(want.rules);
      if (want.positions.length <= 256) {
        expect(got.overflow).toBe(false);
        expect(got.positions, `size ${size}`).toEqual(want.positions);
      } else expect(got.overflow).toBe(true);
    }
  });

  it('runs the WebAssembly module compiled from its source, keyword-dfa.wat', async () => {
    const require = createRequire(import.meta.url);
    const wabt = await (
      require('wabt') as () => Promise<{
        parseWat(name: string, text: string): { toBinary(o: object): { buffer: Uint8Array } };
      }>
    )();
    const source = readFileSync(new URL('../src/desk/guard/keyword-dfa.wat', import.meta.url), 'utf8');
    const built = Buffer.from(wabt.parseWat('keyword-dfa.wat', source).toBinary({}).buffer);
    expect(built.equals(KEYWORD_DFA_WASM)).toBe(true);
  });
});
