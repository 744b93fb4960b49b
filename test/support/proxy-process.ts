import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The built CLI (`npx tsc -p tsconfig.json` first).
const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

/** `cairn proxy` as a child process on a free port, once it printed its URL. */
export function startProxyProcess(
  store: string,
  keyFile: string,
  extra: string[] = [],
): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(process.execPath, [bin, 'proxy', '--port', '0', '--json', '--store', store, ...extra], {
    env: { PATH: process.env.PATH, CAIRN_MASTER_KEY_FILE: keyFile },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.includes('\n')) resolve({ child, url: JSON.parse(buffered.split('\n')[0]!).url });
    });
    child.stderr.resume();
    child.on('exit', (code) => reject(new Error(`cairn proxy exited with ${code} before listening`)));
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}
