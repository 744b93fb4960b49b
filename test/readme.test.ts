import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWithMounts, tempDir } from './support/stores.js';

// End-to-end: the README's shell examples, run as a newcomer would type them, against the built CLI
// (run `npx tsc -p tsconfig.json` first). A block runs when the README marks it `<!-- readme-test: runs -->`.
const root = fileURLToPath(new URL('..', import.meta.url));
const MARK = '<!-- readme-test: runs -->';
/** Marks a block as what a command prints: `<!-- readme-test: output of cairn … -->`. */
const OUTPUT_MARK = /<!-- readme-test: output of (.+?) -->\s*```[a-z]*\n([\s\S]*?)\n```/g;

/** The lines of every marked ```sh block, in README order, comments and blank lines kept out. */
function markedLines(readme: string): string[] {
  const lines: string[] = [];
  const blocks = readme.split(MARK).slice(1);
  for (const block of blocks) {
    const body = /^\s*```sh\n([\s\S]*?)\n```/.exec(block);
    if (!body) throw new Error(`a ${MARK} mark must stand right before a sh block`);
    for (const line of (body[1] as string).split('\n')) if (line.trim() !== '') lines.push(line);
  }
  return lines;
}

/** Where a line says `ss_…`, the README means the id of that kind the nearest line before it printed. */
function fillPlaceholders(line: string, printed: string[]): string {
  // A trailing shell comment is left as it is (it may name an id the line itself prints).
  const comment = /\s#\s/.exec(line);
  const code = comment ? line.slice(0, comment.index) : line;
  const rest = comment ? line.slice(comment.index) : '';
  return `${fill(code, line, printed)}${rest}`;
}

function fill(code: string, line: string, printed: string[]): string {
  return code.replace(/\b([a-z]{2})_…/g, (whole, prefix: string) => {
    for (let i = printed.length - 1; i >= 0; i--) {
      const id = new RegExp(`\\b${prefix}_[0-9a-z]{26}\\b`).exec(printed[i] as string);
      if (id) return id[0];
    }
    throw new Error(`no earlier line printed an id for ${whole} in: ${line}`);
  });
}

/** The output samples of a document: each command and the lines the block after it shows. */
function outputSamples(text: string): { command: string; lines: string[] }[] {
  return [...text.matchAll(OUTPUT_MARK)].map((m) => ({
    command: m[1] as string,
    lines: (m[2] as string).split('\n'),
  }));
}

/** A sample line as a pattern: `…` stands for any text, everything else is literal. */
function samplePattern(line: string): RegExp {
  return new RegExp(
    `^${line
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/**
 * The first `count` lines `command` prints on stdout; a command that keeps
 * running (a server) is stopped with SIGTERM once it printed them.
 */
function firstLines(
  command: string,
  count: number,
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  return new Promise((done, fail) => {
    const child = spawn('sh', ['-c', `exec ${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.split('\n').length > count) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', fail);
    child.on('close', () => {
      const lines = out.split('\n').slice(0, count);
      if (lines.length < count || out === '')
        fail(new Error(`${command} printed ${JSON.stringify(out)}; stderr ${err}`));
      else done(lines);
    });
  });
}

/**
 * The commands of a shell block as words: continued lines joined, comments,
 * redirections and `export`/`curl` lines left out, `;` and `&&` splitting a line.
 */
function shellCommands(block: string): string[][] {
  const commands: string[][] = [];
  for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
    let words: string[] = [];
    const tokens = line.match(/'[^']*'|"[^"]*"|&&|;|#.*|\S+/g) ?? [];
    for (const token of tokens) {
      if (token.startsWith('#')) break;
      if (token === '&&' || token === ';') {
        if (words.length > 0) commands.push(words);
        words = [];
      } else words.push(token.replace(/^(['"])(.*)\1$/, '$2'));
    }
    if (words.length > 0) commands.push(words);
  }
  // A redirection takes the word after it; `export` sets the shell's environment.
  return commands
    .filter((words) => words[0] !== 'export')
    .map((words) =>
      words.filter((w, i) => !['<', '>'].includes(w) && !['<', '>'].includes(words[i - 1] ?? '')),
    );
}

describe('the README, line by line', () => {
  const temp = tempDir('cairn-readme-');
  // `cairn fork` mounts overlay forks where it may; they outlive the CLI process.
  afterAll(() => removeWithMounts(temp));

  /** A newcomer's machine under `base`: `cairn` on the PATH, a home, a project folder with two files. */
  function machine(base: string) {
    const home = join(base, 'home');
    const bin = join(base, 'bin');
    const project = join(base, 'project');
    mkdirSync(bin, { recursive: true });
    mkdirSync(project, { recursive: true });
    mkdirSync(home, { recursive: true });
    // What `npm link` gives a user: `cairn` on the PATH, running the built package.
    writeFileSync(
      join(bin, 'cairn'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'cairn.js')}" "$@"\n`,
    );
    chmodSync(join(bin, 'cairn'), 0o755);
    writeFileSync(join(project, 'notes.md'), '# a project\n');
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'readme-project', private: true, scripts: { test: 'node -e 0' } })}\n`,
    );
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: home,
      ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
    };
    return { home, project, env };
  }

  /** Runs each line in the project, an id placeholder filled from what earlier lines printed; what each printed. */
  function runLines(lines: string[], project: string, env: Record<string, string>): string[] {
    const printed: string[] = [];
    for (const line of lines) {
      const command = fillPlaceholders(line, printed);
      const run = spawnSync('sh', ['-c', command], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, `${line}\n${run.stdout}\n${run.stderr}`).toBe(0);
      printed.push(run.stdout);
    }
    return printed;
  }

  it('runs every marked CLI and desk line verbatim, and leaves nothing in the project but its own files', () => {
    const { home, project, env } = machine(temp.dir);
    const lines = markedLines(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(lines.length).toBeGreaterThanOrEqual(10);
    const printed = runLines(lines, project, env);
    // The store went to the user's data folder; the project holds only its own files, and the forks
    // went beside it.
    expect(existsSync(join(home, '.local', 'share', 'cairn'))).toBe(true);
    expect(readdirSync(project).sort()).toEqual(['notes.md', 'package.json']);
    expect(readdirSync(join(temp.dir, 'project.forks'))).toHaveLength(3);
    // The restore line printed the command that undoes it, and that command works too.
    const undo = /undo: (cairn restore ev_[0-9a-z]{26})/.exec(printed.join('\n'));
    expect(undo).not.toBeNull();
    const undone = spawnSync('sh', ['-c', undo?.[1] as string], { cwd: project, env, encoding: 'utf8' });
    expect(undone.status, undone.stderr).toBe(0);
  }, 120_000);

  it('runs the marked lines of docs/cli.md too (the desk and memory walk-throughs)', () => {
    const { project, env } = machine(join(temp.dir, 'cli-md'));
    const lines = markedLines(readFileSync(join(root, 'docs', 'cli.md'), 'utf8'));
    expect(lines.length).toBeGreaterThanOrEqual(10);
    runLines(lines, project, env);
  }, 120_000);

  it('docs/cli.md’s output samples are what the commands print (a port of 7070 is a free one here)', async () => {
    const { project, env } = machine(join(temp.dir, 'cli-md-output'));
    const samples = outputSamples(readFileSync(join(root, 'docs', 'cli.md'), 'utf8'));
    expect(samples.map((s) => s.command.split(' ').slice(0, 2).join(' '))).toEqual([
      'cairn serve',
      'cairn session',
    ]);
    for (const sample of samples) {
      const port = String(await freePort());
      const swap = (text: string) => text.replaceAll('7070', port);
      const printed = await firstLines(swap(sample.command), sample.lines.length, project, env);
      for (const [i, line] of sample.lines.entries())
        expect(printed[i], `${sample.command}: line ${i + 1}`).toMatch(samplePattern(swap(line)));
    }
  }, 120_000);

  it('the Quickstart is two commands, and what `npm start` serves answers its curl line', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickstart = /## Quickstart[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
    expect(quickstart.split('\n').map((line) => line.split('#')[0]?.trim())).toEqual([
      'npm start',
      'npm test',
    ]);
    // `npm start` prepares (installs, builds: what CI's clean clone does before `npm test`), then serves.
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toBe('node scripts/prepare.mjs && node bin/cairn.js serve');
    expect(scripts.test).toBe('node scripts/prepare.mjs && vitest run');
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
    // What it serves, on a free port for 7070, then the README's curl line with the token it printed.
    const { home, project, env } = machine(join(temp.dir, 'quickstart'));
    const port = String(await freePort());
    const serve = spawn(process.execPath, [join(root, 'bin', 'cairn.js'), 'serve', '--port', port], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const printed = await new Promise<string>((done, fail) => {
        let out = '';
        serve.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('token: ')) done(out);
        });
        serve.on('exit', (code) => fail(new Error(`cairn serve exited ${code}: ${out}`)));
      });
      expect(printed).toContain(`http://127.0.0.1:${port}`);
      expect(existsSync(join(home, '.local', 'share', 'cairn', 'cairn.db'))).toBe(true);
      const token = /token: (\S+)/.exec(printed)?.[1] as string;
      const curl = /```sh\n(curl [^\n]*)\n```/.exec(readme)?.[1] as string;
      const run = spawnSync('sh', ['-c', curl.replaceAll('7070', port)], {
        env: { ...env, TOKEN: token },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ id: expect.stringMatching(/^ss_/), title: 'first' });
    } finally {
      // Stopped before the test ends, so nothing of it writes into the store while the folder is removed.
      const exited = new Promise((done) => serve.once('close', done));
      serve.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('every command line of the README’s shell blocks that do not run is one the CLI takes', async () => {
    // The keys walk-through needs a live upstream, a person to approve and an agent program: its
    // lines are checked against the CLI's commands, flags and arguments (test/cli.test.ts runs the
    // same story end to end), as are the Development block's npm scripts.
    const { MANIFEST } = await import('../src/cli/manifest.js');
    const { checkArity, findCommand, parseCommandLine } = await import('../src/cli/args.js');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const unmarked = [...readme.matchAll(/(<!-- readme-test: runs -->\s*)?```sh\n([\s\S]*?)\n```/g)]
      .filter((m) => m[1] === undefined)
      .map((m) => m[2] as string);
    const lines = unmarked.flatMap((block) => shellCommands(block));
    const cairn = lines.filter((words) => words[0] === 'cairn');
    expect(cairn.length).toBeGreaterThanOrEqual(8);
    for (const words of cairn) {
      const lookup = findCommand(words.slice(1), MANIFEST);
      expect(lookup.kind, words.join(' ')).toBe('command');
      if (lookup.kind !== 'command') continue;
      const { values, positionals } = parseCommandLine(lookup.command, lookup.rest);
      checkArity(lookup.command, values, positionals);
    }
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    for (const words of lines.filter((w) => w[0] === 'npm' && w[1] === 'run'))
      expect(scripts, words.join(' ')).toHaveProperty(words[2] as string);
  });

  it('docs/cli.md’s store config example is a config the store takes', async () => {
    const { StoreConfig } = await import('../src/cli/store-config.js');
    const text = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    const example = /```json\n(\{\n {2}"secrets"[\s\S]*?)\n```/.exec(text);
    expect(example).not.toBeNull();
    expect(StoreConfig.safeParse(JSON.parse(example?.[1] as string)).success).toBe(true);
  });
});
