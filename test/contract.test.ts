import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONTRACT } from '../src/contract/index.js';
import { WIRE } from '../src/contract/wire.js';
import { wireOf } from '../src/contract/wire-of.js';
import type { Op } from '../src/ops/op.js';
import { OPERATIONS } from '../src/ops/table.js';
import { tempDir } from './support/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The modules a source file loads when it runs (static imports, `import type` left out), transitively. */
function importGraph(entry: string): string[] {
  const seen = new Set<string>();
  const stack = [resolve(ROOT, entry)];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      if (!spec.startsWith('.')) stack.push(spec);
      else {
        const path = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        stack.push(existsSync(path) ? path : path.replace(/\.ts$/, '/index.ts'));
      }
    }
  }
  return [...seen].map((f) => (f.startsWith('/') ? relative(ROOT, f) : f));
}

describe('the contract stands apart from its handlers', () => {
  it('loads neither node:* nor a handler, an engine, a driver or a scanner: only zod and schema modules', () => {
    const graph = importGraph('src/contract/index.ts');
    expect(graph.filter((m) => !m.startsWith('src/'))).toEqual(['zod']);
    expect(graph.filter((m) => /handlers\.ts$|^src\/(storage|server|mcp|cli)\/|guard/.test(m))).toEqual([]);
  });

  it('the remote client loads the wire manifest, not the contract: no schema library, no driver, only node:http', () => {
    const graph = importGraph('src/entry/client.ts');
    expect(graph.filter((m) => !m.startsWith('src/'))).toEqual(['node:http']);
    expect(graph).not.toContain('src/contract/index.ts');
  });

  it('the built client, imported in a process of its own, loads at most a quarter of the modules the embedded fabric does', () => {
    const temp = tempDir();
    try {
      const hooks = join(temp.dir, 'hooks.mjs');
      writeFileSync(
        hooks,
        // A loader hook that prints each module the process loads (its text, not a template of this test).
        [
          'export async function load(url, context, next) {',
          "  process.stdout.write('LOAD ' + url + '\\n');",
          '  return next(url, context);',
          '}',
          '',
        ].join('\n'),
      );
      const register = join(temp.dir, 'register.mjs');
      writeFileSync(
        register,
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
      );
      const loaded = (module: string) => {
        const run = spawnSync(
          process.execPath,
          ['--import', pathToFileURL(register).href, '-e', `await import(${JSON.stringify(module)})`],
          { encoding: 'utf8', cwd: ROOT, input: '' },
        );
        expect(run.status, run.stderr).toBe(0);
        return run.stdout.split('\n').filter((line) => line.startsWith('LOAD '));
      };
      const client = loaded(pathToFileURL(join(ROOT, 'dist/entry/client.js')).href);
      const embedded = loaded(pathToFileURL(join(ROOT, 'dist/index.js')).href);
      expect(client.filter((line) => /node_modules|sqlite|postgres|guard|server/.test(line))).toEqual([]);
      expect(client.length).toBeLessThanOrEqual(embedded.length / 4);
    } finally {
      temp.remove();
    }
  });

  it('every operation’s answer is described: its output schema has a JSON Schema type, never an empty one', () => {
    const vague: string[] = [];
    for (const [name, operation] of Object.entries(CONTRACT)) {
      const json = z.toJSONSchema(operation.output, { io: 'output', unrepresentable: 'any' }) as Record<
        string,
        unknown
      >;
      if (json.type === undefined && json.anyOf === undefined && json.oneOf === undefined) vague.push(name);
    }
    expect(vague).toEqual([]);
  });

  it('the wire manifest is the contract’s (regenerate it with `npm run wire`)', () => {
    expect(WIRE).toEqual(wireOf(CONTRACT));
  });

  it('every operation of the contract has its handler on the server side, and nothing else does', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(Object.keys(CONTRACT).sort());
    for (const [name, operation] of Object.entries(OPERATIONS) as [string, Op][]) {
      expect({ name, run: typeof operation.run }).toEqual({ name, run: 'function' });
      const { run: _, atCaller, ...declared } = operation;
      expect(declared).toEqual(CONTRACT[name as keyof typeof CONTRACT]);
      // A step the caller's side settles first is for an operation that runs anywhere (one that runs
      // at the caller settles everything there).
      if (atCaller !== undefined) expect({ name, runs: operation.runs }).toEqual({ name, runs: 'anywhere' });
    }
    expect(
      (Object.values(OPERATIONS) as Op[]).filter((o) => o.atCaller !== undefined).map((o) => o.name),
    ).toEqual(['listCheckpoints']);
  });
});
