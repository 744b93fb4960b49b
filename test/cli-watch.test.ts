import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliIn, collect, connectionQueued, type Doc, doc, firstDocument } from './support/cli.js';

// `cairn watch`: a long-lived process that runs the CLI's workspace commands over its own watching desk.
const work = mkdtempSync(join(tmpdir(), 'cairn-watch-'));
const { start, cairn, ok, fails } = cliIn(work, join(work, 'unused'));
const running: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of running.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Watching {
  child: ChildProcessWithoutNullStreams;
  socket: string;
  exited: Promise<number | null>;
}

async function watchStore(store: string): Promise<Watching> {
  const child = start(['watch', '--json', '--store', store]);
  running.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const { socket } = await firstDocument<{ socket: string }>(child, 'cairn watch');
  return { child, socket, exited };
}

/** A store with one attached workspace of a few files. */
async function attachedProject(name: string): Promise<{ store: string; dir: string; first: string }> {
  const store = join(work, `${name}-store`);
  const dir = join(work, name);
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'src', `f${i}.txt`), `file ${i}\n`);
  writeFileSync(join(dir, 'src', 'lib', 'util.txt'), 'util\n');
  await ok(['init'], { store });
  const attached = await ok(['ws', 'attach', '.'], { store, cwd: dir });
  return { store, dir, first: attached.checkpoint.snapshot.id };
}

const changes = (diff: Doc) => diff.items.map((i: Doc) => `${i.change} ${i.path}`).sort();

describe('cairn watch', () => {
  it('runs the checkpoint: the watcher sees shell edits, new and removed files and moved directories', async () => {
    const { store, dir, first } = await attachedProject('edits');
    const watching = await watchStore(store);
    writeFileSync(join(dir, 'src', 'f1.txt'), 'changed\n');
    unlinkSync(join(dir, 'src', 'f2.txt'));
    mkdirSync(join(dir, 'docs', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'deep', 'new.md'), 'new\n');
    renameSync(join(dir, 'src', 'lib'), join(dir, 'src', 'moved'));
    const cp = await ok(['checkpoint', '--label', 'one'], { store, cwd: dir });
    const diff = await ok(['ws', 'diff', first, '--to', cp.snapshot], { store, cwd: dir });
    expect(changes(diff)).toEqual([
      'added docs',
      'added docs/deep',
      'added docs/deep/new.md',
      'added src/moved',
      'added src/moved/util.txt',
      'modified src/f1.txt',
      'removed src/f2.txt',
      'removed src/lib',
      'removed src/lib/util.txt',
    ]);
    // Nothing changed since: the live directory matches the snapshot, and a second checkpoint records none.
    expect((await ok(['ws', 'diff', cp.snapshot], { store, cwd: dir })).items).toEqual([]);
    const again = await ok(['checkpoint', '--label', 'two'], { store, cwd: dir });
    expect(again.snapshot).toBe(cp.snapshot);
    watching.child.kill('SIGTERM');
    expect(await watching.exited).toBe(0);
    expect(existsSync(watching.socket)).toBe(false);
  });

  it('is the one running it: a stopped watcher holds the command until it goes on', async () => {
    const { store, dir } = await attachedProject('held');
    const watching = await watchStore(store);
    watching.child.kill('SIGSTOP');
    writeFileSync(join(dir, 'src', 'f3.txt'), 'held\n');
    const child = start(['checkpoint', '--json', '--store', store], {}, dir);
    const answer = collect(child);
    // The command reached the stopped watcher, and waits on it.
    await connectionQueued(watching.socket);
    expect(child.exitCode).toBeNull();
    watching.child.kill('SIGCONT');
    const run = await answer;
    expect(run.code, run.stderr).toBe(0);
    expect(doc(run).snapshot).toMatch(/^sn_/);
  });

  it('a watcher killed while it holds a command: IN_DOUBT; its socket left behind is passed over, and replaced', async () => {
    const { store, dir, first } = await attachedProject('killed');
    const watching = await watchStore(store);
    watching.child.kill('SIGSTOP');
    const child = start(['checkpoint', '--json', '--store', store], {}, dir);
    const answer = collect(child);
    await connectionQueued(watching.socket);
    watching.child.kill('SIGKILL');
    const lost = await answer;
    expect(lost.code).toBe(4);
    expect(doc(lost).error.code).toBe('IN_DOUBT');
    expect(existsSync(watching.socket)).toBe(true);
    // Nobody listens on the socket now: the CLI runs the command itself.
    writeFileSync(join(dir, 'src', 'f4.txt'), 'after the watcher\n');
    const local = await ok(['checkpoint'], { store, cwd: dir });
    expect(changes(await ok(['ws', 'diff', first, '--to', local.snapshot], { store, cwd: dir }))).toEqual([
      'modified src/f4.txt',
    ]);
    const next = await watchStore(store);
    expect(next.socket).toBe(watching.socket);
    writeFileSync(join(dir, 'src', 'f5.txt'), 'the new watcher\n');
    const cp = await ok(['checkpoint'], { store, cwd: dir });
    expect(
      changes(await ok(['ws', 'diff', local.snapshot, '--to', cp.snapshot], { store, cwd: dir })),
    ).toEqual(['modified src/f5.txt']);
  });

  it('one watcher per store: a second is refused while the first answers', async () => {
    const { store } = await attachedProject('twice');
    await watchStore(store);
    const error = await fails(['watch', '--store', store], 4);
    expect(error.code).toBe('CONFLICT');
  });

  it('a head moved by another process (exec runs in its own): the next checkpoint starts from the store', async () => {
    const { store, dir, first } = await attachedProject('moved');
    await watchStore(store);
    const ran = await cairn(
      ['exec', '--json', '--store', store, '--', 'sh', '-c', 'echo by-exec > src/f6.txt'],
      {
        cwd: dir,
      },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const exec = doc(ran);
    expect(exec.checkpoint.created).toBe(true);
    writeFileSync(join(dir, 'src', 'f7.txt'), 'by the shell\n');
    const cp = await ok(['checkpoint'], { store, cwd: dir });
    const since = await ok(['ws', 'diff', exec.checkpoint.snapshot.id, '--to', cp.snapshot], {
      store,
      cwd: dir,
    });
    expect(changes(since)).toEqual(['modified src/f7.txt']);
    expect(changes(await ok(['ws', 'diff', first, '--to', cp.snapshot], { store, cwd: dir }))).toEqual([
      'modified src/f6.txt',
      'modified src/f7.txt',
    ]);
  });
});
