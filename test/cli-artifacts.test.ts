import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/digest.js';
import { cliIn, firstDocument } from './support/cli.js';

// `cairn artifact …`: publish a file with its lineage, list, show, get (a range), lineage, rm, quota; and gc.
const work = mkdtempSync(join(tmpdir(), 'cairn-artifact-cli-'));
const store = join(work, 'store');
const { start, cairn, ok, fails } = cliIn(work, store);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cairn artifact', () => {
  it('publish FILE from a checkpoint, get --out (whole and a range), ls, show, lineage, rm; a mismatch and a bad flag are refused', async () => {
    await ok(['init']);
    const dir = join(work, 'project');
    const report = randomBytes(700_000);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'out', 'report.pdf'), report);
    const attached = await ok(['ws', 'attach', dir]);
    const session = attached.workspace.session as string;
    const checkpoint = await ok(['checkpoint', '--label', 'report', '--ws', dir]);
    const published = await ok([
      'artifact',
      'publish',
      join(dir, 'out', 'report.pdf'),
      '--session',
      session,
      '--type',
      'application/pdf',
      '--checkpoint',
      checkpoint.id,
      '--path',
      'out/report.pdf',
    ]);
    expect(published).toMatchObject({
      name: 'report.pdf',
      mediaType: 'application/pdf',
      size: report.length,
      digest: sha256Hex(report),
      lineage: { checkpoint: checkpoint.id, path: 'out/report.pdf' },
    });
    const copy = join(work, 'copy.pdf');
    await ok(['artifact', 'get', published.id, '--out', copy]);
    expect(readFileSync(copy).equals(report)).toBe(true);
    await ok(['artifact', 'get', published.id, '--out', copy, '--offset', '1000', '--length', '24']);
    expect(readFileSync(copy).equals(report.subarray(1000, 1024))).toBe(true);
    const summary = join(work, 'summary.md');
    writeFileSync(summary, '# summary\n');
    const derived = await ok(['artifact', 'publish', summary, '--session', session, '--input', published.id]);
    expect(
      (await ok(['artifact', 'lineage', published.id])).descendants.map((a: { id: string }) => a.id),
    ).toEqual([derived.id]);
    expect((await ok(['artifact', 'ls', '--session', session])).artifacts).toHaveLength(2);
    expect((await ok(['artifact', 'show', derived.id])).lineage.inputs).toEqual([published.id]);
    // Human output names what was published; bytes to stdout without --out.
    const shown = await cairn(['artifact', 'get', derived.id, '--store', store]);
    expect(shown.stdout).toBe('# summary\n');

    // Bytes that are not the checkpoint's file: refused, nothing stored.
    writeFileSync(join(work, 'other.pdf'), randomBytes(100));
    const refused = await fails(
      [
        'artifact',
        'publish',
        join(work, 'other.pdf'),
        '--session',
        session,
        '--checkpoint',
        checkpoint.id,
        '--path',
        'out/report.pdf',
        '--store',
        store,
      ],
      5,
    );
    expect(refused.code).toBe('INVALID_ARGUMENT');
    expect(
      (
        await fails(
          ['artifact', 'publish', summary, '--session', session, '--ttl-ms', '5', '--store', store],
          2,
        )
      ).code,
    ).toBe('INVALID_ARGUMENT');
    expect((await ok(['artifact', 'ls'])).artifacts).toHaveLength(2);
    await ok(['artifact', 'rm', derived.id]);
    expect((await fails(['artifact', 'show', derived.id, '--store', store], 3)).code).toBe('NOT_FOUND');
    // `exec --publish`: the command's output, published with the step that made it and the snapshot after it.
    // (The store's flags before `--`: what follows it is the command.)
    const exec = await cairn([
      'exec',
      '--ws',
      dir,
      '--publish',
      'out/made.txt',
      '--json',
      '--store',
      store,
      '--',
      'sh',
      '-c',
      'echo made > out/made.txt',
    ]);
    expect(exec.code, exec.stderr).toBe(0);
    const ran = JSON.parse(exec.stdout);
    expect(ran.artifacts).toHaveLength(1);
    expect(ran.artifacts[0]).toMatchObject({
      name: 'made.txt',
      size: 5,
      lineage: { step: ran.position, path: 'out/made.txt', snapshot: ran.checkpoint.snapshot.id },
    });
    const gc = await ok(['gc']);
    expect(gc.artifacts).toEqual({ expired: 0, abandoned: 0, freedBytes: 0 });
    expect((await ok(['artifact', 'quota'])).used).toBe(report.length + 5);
  });

  it('publish FILE inside an attached workspace, without --session: the workspace gives the session, and a checkpoint of it the lineage', async () => {
    const here = join(work, 'inside-store');
    await ok(['init'], { store: here });
    const dir = join(work, 'inside');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'out', 'table.csv'), 'a,b\n1,2\n');
    const attached = await ok(['ws', 'attach', dir], { store: here });
    const published = await ok(['artifact', 'publish', 'out/table.csv', '--type', 'text/csv'], {
      store: here,
      cwd: dir,
    });
    expect(published).toMatchObject({
      name: 'table.csv',
      mediaType: 'text/csv',
      size: 8,
      lineage: { session: attached.workspace.session, branch: 'main', path: 'out/table.csv' },
    });
    // The lineage is a checkpoint taken for it (the store checked these bytes are its snapshot's file).
    expect(published.lineage.checkpoint).toMatch(/^ev_/);
    expect(published.lineage.snapshot).toMatch(/^sn_/);
    // A file outside the workspace: its session, no lineage to check.
    const outside = join(work, 'notes-outside.txt');
    writeFileSync(outside, 'notes\n');
    const loose = await ok(['artifact', 'publish', outside], { store: here, cwd: dir });
    expect(loose.lineage).toMatchObject({ session: attached.workspace.session, checkpoint: '', path: '' });
    // From elsewhere: the workspace FILE is in; another branch than the workspace's is refused (exit 2).
    const fromOutside = await ok(['artifact', 'publish', join(dir, 'out', 'table.csv')], {
      store: here,
      cwd: work,
    });
    expect(fromOutside.lineage).toMatchObject({ session: attached.workspace.session, path: 'out/table.csv' });
    await fails(['artifact', 'publish', 'out/table.csv', '--branch', 'other', '--store', here], 2, {
      cwd: dir,
    });
    // Neither --session nor a workspace: refused, saying what to pass.
    const none = await fails(['artifact', 'publish', outside, '--store', here], 3, { cwd: work });
    expect(none.message).toMatch(/--session|attach/);
  });

  it('over a server: publish and get through --url, the fields in the cairn-input header (a non-ASCII name included)', async () => {
    const served = join(work, 'served');
    await ok(['init'], { store: served });
    const token = (
      await ok(['token', 'create', '--kind', 'user', '--name', 'ana', '--role', 'admin'], { store: served })
    ).token;
    const server = start(['serve', '--store', served, '--port', '0', '--json']);
    try {
      const { url } = await firstDocument<{ url: string }>(server, 'cairn serve');
      const remote = ['--url', url, '--token', token, '--json'];
      const session = JSON.parse((await cairn(['session', 'new', ...remote])).stdout).id as string;
      const file = join(work, 'Résumé — final.txt');
      writeFileSync(file, 'ünïcode bytes\n');
      const run = await cairn([
        'artifact',
        'publish',
        file,
        '--session',
        session,
        '--type',
        'text/plain; charset=utf-8',
        ...remote,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const artifact = JSON.parse(run.stdout);
      expect(artifact).toMatchObject({ name: 'Résumé — final.txt', mediaType: 'text/plain; charset=utf-8' });
      const got = await cairn(['artifact', 'get', artifact.id, '--url', url, '--token', token]);
      expect(got.stdout).toBe('ünïcode bytes\n');
      // A plain GET: the bytes with their type and digest; a Range gets 206 and Content-Range.
      const auth = { authorization: `Bearer ${token}` };
      const whole = await fetch(`${url}/v1/artifacts/${artifact.id}/content`, { headers: auth });
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(whole.headers.get('etag')).toBe(`"${artifact.digest}"`);
      expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
      expect(whole.headers.get('content-security-policy')).toBe('sandbox');
      expect(whole.headers.get('content-disposition')).toBe('attachment');
      expect(await whole.text()).toBe('ünïcode bytes\n');
      const part = await fetch(`${url}/v1/artifacts/${artifact.id}/content`, {
        headers: { ...auth, range: 'bytes=2-5' },
      });
      expect(part.status).toBe(206);
      const size = Buffer.byteLength('ünïcode bytes\n');
      expect(part.headers.get('content-range')).toBe(`bytes 2-5/${size}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from('ünïcode bytes\n').subarray(2, 6));
      // A last byte past the end is clamped (RFC 9110), not refused.
      const clamped = await fetch(`${url}/v1/artifacts/${artifact.id}/content`, {
        headers: { ...auth, range: 'bytes=2-999999999' },
      });
      expect(clamped.status).toBe(206);
      expect(clamped.headers.get('content-range')).toBe(`bytes 2-${size - 1}/${size}`);
      for (const range of ['bytes=5-2', 'bytes=-3', 'bytes=0-1,4-5', 'lines=1-2', `bytes=${size + 1}-`]) {
        const refused = await fetch(`${url}/v1/artifacts/${artifact.id}/content`, {
          headers: { ...auth, range },
        });
        expect(refused.status, range).toBe(400);
        expect((await refused.json()).code).toBe('INVALID_ARGUMENT');
      }
      // A header that is not a JSON object is INVALID_ARGUMENT, and nothing is stored.
      const bad = await fetch(`${url}/v1/artifacts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'cairn-input': '[1]',
          'content-type': 'application/octet-stream',
        },
        body: 'x',
      });
      expect(bad.status).toBe(400);
      expect((await bad.json()).code).toBe('INVALID_ARGUMENT');
      expect(JSON.parse((await cairn(['artifact', 'ls', ...remote])).stdout).artifacts).toHaveLength(1);
    } finally {
      server.kill();
    }
  });
});
