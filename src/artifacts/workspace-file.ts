/**
 * A file of a workspace, read where the workspace is, for a publication
 * (the MCP tool `artifact_publish`, `cairn exec --publish`): only a regular
 * file inside the workspace — a path through a link out of it, a FIFO or a
 * device is refused before anything is read. The file is opened once, and
 * its bytes stream from that open file: a link swapped in afterwards is not
 * followed.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import type { Workspace } from '../desk/rows.js';
import { invalidArgument } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { Units } from '../unit/unit.js';

/** A workspace file, opened: its bytes as a stream (which closes the file when it ends or is left) and its size. */
export interface OpenedFile {
  bytes: AsyncIterable<Uint8Array>;
  size: number;
  /** Lets go of the file, read or not (a publication refused before it read a byte). */
  close(): void;
}

export async function openWorkspaceFile(dir: string, path: string, workspace: string): Promise<OpenedFile> {
  const root = await realpath(dir);
  const file = await realpath(join(dir, path)).catch(() => {
    throw invalidArgument(`${path} is not a file of workspace ${workspace}: pass a path relative to ${dir}`, {
      field: 'path',
    });
  });
  if (!file.startsWith(root + sep))
    throw invalidArgument(`${path} leads out of workspace ${workspace}: publish a file inside it`, {
      field: 'path',
    });
  // No following a link swapped in since, and no waiting on a FIFO's writer.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw invalidArgument(`${path} in workspace ${workspace} is not a regular file: publish a file`, {
        field: 'path',
      });
    const bytes = handle.createReadStream({ highWaterMark: 1024 * 1024 });
    return { bytes, size: stat.size, close: () => bytes.destroy() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What a publication of a workspace file takes besides the file: its name (default: the file's), type, lineage beyond the checkpoint. */
export type WorkspaceFilePublication = Omit<
  Parameters<Fabric['publishArtifact']>[0],
  'session' | 'branch' | 'bytes' | 'size' | 'checkpoint' | 'snapshot' | 'path' | 'name'
> & { name?: string };

/**
 * Publishes a file of a workspace (MCP `artifact_publish`, `cairn artifact
 * publish` inside one): a unit checkpoint of the workspace first — the
 * lineage it names — then the file streamed from where the workspace is,
 * through `fabric` as the caller, so the store checks the bytes are the
 * checkpoint's.
 */
export async function publishFromWorkspace(
  side: { units: Units; fabric: Fabric },
  ws: Workspace,
  path: string,
  fields: WorkspaceFilePublication,
  label = `publish ${path}`,
) {
  // The file first: a path that is not a regular file of the workspace is refused before a checkpoint.
  const file = await openWorkspaceFile(ws.dir, path, ws.id);
  try {
    const checkpoint = await side.units.checkpoint({ workspace: ws.id, label });
    return await side.fabric.publishArtifact({
      ...fields,
      session: ws.session,
      branch: ws.branch,
      name: fields.name ?? basename(path),
      bytes: file.bytes,
      size: file.size,
      checkpoint: checkpoint.id,
      path,
    });
  } finally {
    file.close();
  }
}
