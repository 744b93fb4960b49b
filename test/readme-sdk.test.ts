/**
 * The README's TypeScript examples, run: each ```ts block is compiled as it
 * stands (TypeScript's own transpiler), its `cairn` imports pointed at the
 * built package, and run in a process of its own in an empty folder. What a
 * block takes from the text around it (a fabric, a session, a directory to
 * attach) is given by a prelude here, named by the block's first import; the
 * payment API of the steps example is a small local server of the test's,
 * as it stands for something outside Cairn.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWithMounts, tempDir } from './support/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const EXPORTS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports as Record<
  string,
  string
>;

const blocks = [...README.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => m[1] as string);

/** `from 'cairn'`, `from 'cairn/steps'`: the built modules the package exports under those names. */
function pointAtBuild(code: string): string {
  return code.replace(/from '(cairn(?:\/[a-z]+)?)'/g, (whole, name: string) => {
    const target = EXPORTS[name === 'cairn' ? '.' : `./${name.slice('cairn/'.length)}`];
    if (!target) throw new Error(`the README imports ${name}, which the package does not export`);
    return `from '${pathToFileURL(join(ROOT, target)).href}'`;
  });
}

/** What each block takes from the README's text around it, by the import it starts with. */
const PRELUDES: Array<{
  when: RegExp;
  prelude: (dir: string) => string;
  replace?: (code: string, dir: string) => string;
}> = [
  {
    // The desk example attaches /work/repo and forks to /work/repo-try-2.
    when: /import \{ Store \} from 'cairn'/,
    prelude: (dir) => {
      mkdirSync(join(dir, 'repo'), { recursive: true });
      writeFileSync(join(dir, 'repo', 'notes.md'), 'first\n');
      return '';
    },
    replace: (code, dir) => code.replaceAll('/work/repo', join(dir, 'repo')),
  },
  {
    // The steps example follows the embedded one: a fabric and a session; its payment API is ours.
    when: /import \{ Journal \} from 'cairn\/steps'/,
    prelude: () => `import { openFabric } from 'cairn';
import { createServer } from 'node:http';
const fabric = await openFabric({ dir: './.cairn' });
const session = await fabric.createSession({ title: 'steps' });
const pay = createServer((req, res) => res.end(JSON.stringify({ charged: 5, key: req.headers['idempotency-key'] })));
await new Promise((ok) => pay.listen(0, '127.0.0.1', ok));
const realFetch = globalThis.fetch;
globalThis.fetch = (url, init) => realFetch(String(url).replace('https://pay.example', 'http://127.0.0.1:' + pay.address().port), init);
`,
    epilogue: 'pay.close();\nawait fabric.close();',
  },
];

describe('the README’s TypeScript examples', () => {
  const temp = tempDir('cairn-readme-sdk-');
  // The desk example's fork is an overlay mount where the kernel allows one: it outlives its process.
  afterAll(() => removeWithMounts(temp));

  it('has the examples this test knows', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it.each(blocks.map((code, i) => [i + 1, code.split('\n')[0], code] as const))(
    'block %i (%s) compiles and runs',
    (i, _first, code) => {
      const dir = join(temp.dir, `block-${i}`);
      mkdirSync(dir, { recursive: true });
      const extra = PRELUDES.find((p) => p.when.test(code));
      const prelude = extra?.prelude(dir) ?? '';
      const body = extra?.replace ? extra.replace(code, dir) : code;
      const source = `${prelude}\n${body}\n${extra?.epilogue ?? ''}\nexport {};\n`;
      const compiled = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        reportDiagnostics: true,
      });
      expect(compiled.diagnostics ?? []).toEqual([]);
      const file = join(dir, 'example.mjs');
      writeFileSync(file, pointAtBuild(compiled.outputText));
      const run = spawnSync(process.execPath, [file], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, CAIRN_TOKEN: 'cairn.example-only' },
        // Only against a hang (an example that never lets go of its process), not a budget.
        timeout: 300_000,
      });
      expect(run.status, `${run.stderr}\n${run.stdout}`).toBe(0);
    },
  );
});

describe('the README’s JSON examples', () => {
  it('parse, and the MCP configuration starts a command cairn has', async () => {
    const docs = [...README.matchAll(/^( *)```json\n([\s\S]*?)\n\1```/gm)].map((m) =>
      JSON.parse(m[2] as string),
    );
    expect(docs.length).toBeGreaterThan(0);
    const { MANIFEST } = await import('../src/cli/manifest.js');
    const servers = docs.flatMap((d) =>
      Object.values((d.mcpServers ?? {}) as Record<string, { command: string; args: string[] }>),
    );
    expect(servers.length).toBeGreaterThan(0);
    for (const server of servers) {
      expect(server.command).toBe('cairn');
      expect(MANIFEST.some((c) => c.names.join(' ') === server.args[0])).toBe(true);
    }
  });
});
