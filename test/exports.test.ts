/**
 * The package's entry points, as a user imports them (`import … from
 * 'cairn/desk'`, resolved by Node through package.json "exports" against the
 * built dist/): the root holds the fabric; each feature is on its subpath.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The names an entry point exports, read by a Node process in the package (self-reference by name). */
function exportsOf(specifier: string): string[] {
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).sort()));`,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

describe('entry points', () => {
  it('keeps the root small: the fabric, its errors and the table; features on their subpaths', () => {
    const top = exportsOf('cairn');
    for (const name of ['Store', 'openFabric', 'connect', 'CairnError', 'OPERATIONS'])
      expect(top).toContain(name);
    for (const name of ['Desk', 'Keys', 'startProxy', 'Journal', 'Units', 'createMcpServer'])
      expect(top).not.toContain(name);
    expect(exportsOf('cairn/desk')).toEqual(
      expect.arrayContaining(['Desk', 'remoteDesk', 'RemoteDeskStore', 'LocalDeskStore']),
    );
    expect(exportsOf('cairn/s3')).toEqual(['S3BlobStore']);
    expect(exportsOf('cairn/keys')).toEqual(
      expect.arrayContaining(['Keys', 'MasterKey', 'decide', 'grantState']),
    );
    expect(exportsOf('cairn/proxy')).toEqual(
      expect.arrayContaining(['startProxy', 'HANDLE_HEADER', 'ERROR_HEADER']),
    );
    expect(exportsOf('cairn/steps')).toEqual(
      expect.arrayContaining(['Journal', 'Units', 'STEP_EVENT', 'execInWorkspace']),
    );
    expect(exportsOf('cairn/mcp')).toEqual(
      expect.arrayContaining(['createMcpServer', 'McpHttp', 'mcpTools']),
    );
    expect(exportsOf('cairn/memory')).toEqual(
      expect.arrayContaining(['MEMORY_CONTRACT', 'DEFAULT_TRUST', 'TRUST_TIERS', 'RECALL_MODES']),
    );
    expect(exportsOf('cairn/testing')).toContain('hashingEmbedding');
    expect(exportsOf('cairn/server')).toContain('startServer');
    // The bundle (dist/browser/cairn.js), which runs in Node too: Node 20 has fetch.
    expect(exportsOf('cairn/browser')).toEqual(
      expect.arrayContaining(['connect', 'RemoteFabric', 'CONTRACT', 'WIRE', 'CairnError', 'isCairnError']),
    );
    expect(exportsOf('cairn/testing').length).toBeGreaterThan(0);
  });
});
