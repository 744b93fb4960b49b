import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWithMounts, tempDir } from './support/stores.js';

// End-to-end: the README's shell examples, run as a newcomer would type them, against the built CLI
// (run `npx tsc -p tsconfig.json` first). A block runs when the README marks it `<!-- readme-test: runs -->`.
const root = fileURLToPath(new URL('..', import.meta.url));
const MARK = '<!-- readme-test: runs -->';

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

  it('docs/cli.md’s store config example is a config the store takes', async () => {
    const { StoreConfig } = await import('../src/cli/store-config.js');
    const text = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    const example = /```json\n(\{\n {2}"secrets"[\s\S]*?)\n```/.exec(text);
    expect(example).not.toBeNull();
    expect(StoreConfig.safeParse(JSON.parse(example?.[1] as string)).success).toBe(true);
  });
});
