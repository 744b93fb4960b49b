import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACCESS_ACTIONS } from '../src/contract/access.js';
import { CONTRACT, CONTRACT_PARTS, type Feature } from '../src/contract/index.js';
import { WIRE } from '../src/contract/wire.js';
import { wireOf } from '../src/contract/wire-of.js';
import { type Op, type OpContext, runOp } from '../src/ops/op.js';
import { featureOperations } from '../src/ops/registry.js';
import { OPERATIONS } from '../src/ops/table.js';
import type { Identity } from '../src/types.js';
import { importGraph } from './support/import-graph.js';
import { tempDir } from './support/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

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

  it('the browser entry loads no Node builtin and names no Node global: the contract, zod, the client over fetch', () => {
    const graph = importGraph('src/entry/browser.ts');
    expect(graph.filter((m) => !m.startsWith('src/'))).toEqual(['zod']);
    expect(graph).toContain('src/client/fetch-transport.ts');
    expect(
      graph.filter((m) => /node-transport|handlers\.ts$|^src\/(storage|server|mcp|cli)\/|guard/.test(m)),
    ).toEqual([]);
    // A global that only Node has throws when a page loads (or calls) the module: none in the code, comments aside.
    const nodeGlobals =
      /\b(Buffer|process|require|module|__dirname|__filename|setImmediate|global)\b(?!\s*:)/;
    const naming = graph
      .filter((m) => m.startsWith('src/'))
      .flatMap((m) => {
        const code = readFileSync(join(ROOT, m), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, '');
        const found = nodeGlobals.exec(code);
        return found ? [`${m}: ${found[1]}`] : [];
      });
    expect(naming).toEqual([]);
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
    expect(WIRE).toEqual(wireOf(CONTRACT_PARTS));
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

  it('each feature, loaded on its own, registers a handler for exactly its part of the contract', async () => {
    for (const [feature, part] of Object.entries(CONTRACT_PARTS)) {
      const table = await featureOperations(feature as Feature);
      expect(Object.keys(table).sort(), feature).toEqual(Object.keys(part).sort());
      for (const [name, operation] of Object.entries(table)) {
        const { run, atCaller, ...declared } = operation;
        expect(declared, name).toEqual(part[name as keyof typeof part]);
        expect(typeof run, name).toBe('function');
        // The step the caller's side settles first is the same whether the feature is loaded or not.
        expect(atCaller, name).toBe((OPERATIONS as Record<string, Op>)[name]?.atCaller);
      }
    }
    // The wire manifest names each operation's feature: the embedded fabric loads it from there.
    for (const [name, wire] of Object.entries(WIRE))
      expect(CONTRACT_PARTS[wire.feature as Feature], name).toHaveProperty(name);
  });

  it('a command line that runs one operation loads one feature: the embedded fabric loads none up front', () => {
    const graph = importGraph('src/embedded-fabric.ts');
    expect(graph).not.toContain('src/contract/index.ts');
    expect(graph.filter((m) => /handlers\.ts$|contract\.ts$|guard|secretlint/.test(m))).toEqual([]);
  });

  it('every operation declares its access action, and the gate checks it before the handler runs', async () => {
    for (const operation of Object.values(CONTRACT)) expect(ACCESS_ACTIONS).toContain(operation.access);
    // An operation any principal may call, declaring an admin's action (a desk GC): a member is
    // refused by the gate and the handler is never called; an admin gets through.
    let ran = 0;
    const sweep = { ...OPERATIONS.whoami, access: 'desk.gc', run: async () => ran++ } as unknown as Op;
    const member = { tenant: 'tn_x', principal: 'pr_x', kind: 'user', role: 'member' } as Identity;
    await expect(runOp(sweep, { who: member } as OpContext, {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(ran).toBe(0);
    await runOp(sweep, { who: { ...member, role: 'admin' } } as OpContext, {});
    expect(ran).toBe(1);
  });
});
