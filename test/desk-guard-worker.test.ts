import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Guard } from '../src/desk/guard.js';
import { rand, secretsAcrossEdges } from './support/guard-corpus.js';
import { filesContaining } from './support/scan.js';
import { tempDir } from './support/stores.js';

// The built library (`npx tsc -p tsconfig.json` first): only there does the scan worker module exist,
// so only there are files of 4 MiB and more scanned on the worker thread.
const dist = '../dist/index.js';
const guardDist = '../dist/desk/guard.js';

describe('the secret guard on its worker thread (built library)', () => {
  let temp: { dir: string; remove(): void };
  beforeEach(() => {
    temp = tempDir('cairn-guard-worker-');
  });
  afterEach(() => temp.remove());

  it('scans large files on the worker, one chunk ahead, and still stores no byte of a secret', async () => {
    const { Store } = (await import(dist)) as typeof import('../src/index.js');
    const { withChecksum } = (await import(guardDist)) as typeof import('../src/desk/guard.js');
    const work = join(temp.dir, 'work');
    const store = await Store.openDir(join(temp.dir, 'store'));
    const desk = store.desk(await store.localIdentity(), { stateDir: join(temp.dir, 'state') });
    try {
      // Text with a secret every 300 KiB through 6 MiB (some straddle the chunker's cuts); a binary
      // with one near its end; a clean binary that must be stored whole.
      const { secrets: edges, text } = secretsAcrossEdges();
      // As a binary's string table holds it: NUL after it; before it a byte of 0xe9, which latin1
      // would read as the letter é (and a rule's "no letter before" would then miss it).
      const late = withChecksum('ghp', rand(30));
      const binary = randomBytes(8 * 1024 * 1024);
      binary.write(`\xe9${late}\x00`, 7 * 1024 * 1024, 'latin1');
      const clean = randomBytes(6 * 1024 * 1024);
      mkdirSync(work, { recursive: true });
      writeFileSync(join(work, 'edges.txt'), text);
      writeFileSync(join(work, 'late.bin'), binary);
      writeFileSync(join(work, 'clean.bin'), clean);

      const { workspace, checkpoint } = await desk.attach({ dir: work });
      const withheld = new Set(checkpoint.findings.filter((f) => f.action === 'withheld').map((f) => f.path));
      expect([...withheld].sort()).toEqual(['edges.txt', 'late.bin']);
      expect(checkpoint.snapshot.files).toBe(1);
      expect(checkpoint.snapshot.bytes).toBe(clean.length);
      const guard = (desk as unknown as { guard: Guard }).guard;
      expect(guard.workerWindows).toBeGreaterThan(10);
      for (const secret of [...edges, late]) {
        expect(filesContaining(join(temp.dir, 'store'), secret.slice(8, 30)), secret).toEqual([]);
      }
      // The clean file comes back byte for byte.
      rmSync(join(work, 'clean.bin'));
      await desk.restore(workspace.id, checkpoint.snapshot.id);
      expect(readFileSync(join(work, 'clean.bin')).equals(clean)).toBe(true);
    } finally {
      await desk.close();
      await store.close();
    }
  });
});
