/**
 * A file of a workspace, read where the workspace is, for a publication
 * (the MCP tool `artifact_publish`, `cairn exec --publish`): only a regular
 * file inside the workspace — a path through a link out of it, a FIFO or a
 * device is refused before anything is read, and so is a file larger than
 * one publication takes.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { invalidArgument, payloadTooLarge } from '../errors.js';
import { MAX_PUBLISH_BYTES } from './contract.js';

export async function readWorkspaceFile(dir: string, path: string, workspace: string): Promise<Buffer> {
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
    if (stat.size > MAX_PUBLISH_BYTES)
      throw payloadTooLarge(
        `${path} is ${stat.size} bytes, more than one publication takes (${MAX_PUBLISH_BYTES}): publish a smaller file`,
        { limit: MAX_PUBLISH_BYTES },
      );
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
