import { randomBytes } from 'node:crypto';
import { closeSync, constants, promises as fs, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../../digest.js';
import { notFound, unavailable } from '../../errors.js';
import {
  type BlobStore,
  checkDigest,
  checkTenant,
  DIGEST,
  rangeNotFound,
  verifiedBlob,
} from '../blob-store.js';

/** A put writes `<shard>/.tmp-<random>` first, then renames it to its digest. */
const TEMP_PREFIX = '.tmp-';

async function fsyncPath(path: string, flags: number): Promise<void> {
  const handle = await fs.open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** ENOSPC and EDQUOT as a typed error saying what to do; anything else as it is. */
function diskFull(error: unknown, root: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return error;
  return unavailable(`no space left for blobs under ${root} (${code}): free space and retry`, {
    errno: code,
  });
}

/**
 * Blobs as files: `<root>/<tenant>/<2 hex>/<digest>`. A put writes a temporary
 * file, fsyncs it, renames it into place and fsyncs the directory, so after a
 * crash a blob is either whole under its name or absent. Folders are made
 * 0700 and files 0600 (the umask can only take bits away): the owner's alone.
 */
export class FsBlobStore implements BlobStore {
  /** Open descriptors for range reads (desk packs are read a few objects at a time), oldest first. */
  private readonly readers = new Map<string, number>();

  constructor(private readonly root: string) {}

  private reader(file: string, digest: string): number {
    let fd = this.readers.get(file);
    if (fd !== undefined) return fd;
    try {
      fd = openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('blob', digest);
      throw error;
    }
    if (this.readers.size >= 32) this.forget(this.readers.keys().next().value as string);
    this.readers.set(file, fd);
    return fd;
  }

  private forget(file: string): void {
    const fd = this.readers.get(file);
    if (fd === undefined) return;
    this.readers.delete(file);
    closeSync(fd);
  }

  private path(tenant: string, digest: string): { dir: string; file: string } {
    checkTenant(tenant);
    checkDigest(digest);
    const dir = join(this.root, tenant, digest.slice(0, 2));
    return { dir, file: join(dir, digest) };
  }

  async put(tenant: string, bytes: Uint8Array, known?: string): Promise<string> {
    const digest = known ?? sha256Hex(bytes);
    const { dir, file } = this.path(tenant, digest);
    if (await this.has(tenant, digest)) return digest;
    await this.makeDurableDir(dir);
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await fs.rm(temp, { force: true });
      throw diskFull(error, this.root);
    }
    await handle.close();
    await fs.rename(temp, file);
    await fsyncPath(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    return digest;
  }

  /** Creates `dir` and any missing parents, fsyncing each new entry's parent so it survives power loss. */
  private async makeDurableDir(dir: string): Promise<void> {
    const first = await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    if (first === undefined) return;
    for (let created = dir; ; created = dirname(created)) {
      await fsyncPath(dirname(created), constants.O_RDONLY | constants.O_DIRECTORY);
      if (created === first) break;
    }
  }

  async get(tenant: string, digest: string): Promise<Buffer> {
    const { file } = this.path(tenant, digest);
    try {
      return verifiedBlob(tenant, digest, await fs.readFile(file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('blob', digest);
      throw error;
    }
  }

  async getRange(tenant: string, digest: string, offset: number, length: number): Promise<Buffer> {
    const { file } = this.path(tenant, digest);
    const fd = this.reader(file, digest);
    const bytes = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, bytes, got, length - got, offset + got);
      if (n === 0) throw rangeNotFound(digest, offset, length);
      got += n;
    }
    return bytes;
  }

  async has(tenant: string, digest: string): Promise<boolean> {
    const { file } = this.path(tenant, digest);
    try {
      await fs.access(file);
      return true;
    } catch {
      return false;
    }
  }

  /** The tenant's shard folders and the names in each, sorted. */
  private async *shards(tenant: string): AsyncGenerator<{ dir: string; shard: string; names: string[] }> {
    checkTenant(tenant);
    const root = join(this.root, tenant);
    const names = (dir: string) =>
      fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw error;
      });
    for (const shard of (await names(root)).sort()) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      const dir = join(root, shard);
      yield { dir, shard, names: (await names(dir)).sort() };
    }
  }

  async *list(tenant: string): AsyncGenerator<string> {
    // A killed put's `.tmp-…` file is not a blob: it is never listed.
    for await (const { shard, names } of this.shards(tenant))
      for (const name of names) if (DIGEST.test(name) && name.startsWith(shard)) yield name;
  }

  async sweepTemporary(tenant: string, before: number): Promise<number> {
    let swept = 0;
    for await (const { dir, names } of this.shards(tenant)) {
      for (const name of names.filter((n) => n.startsWith(TEMP_PREFIX))) {
        const file = join(dir, name);
        const stat = await fs.stat(file).catch(() => undefined);
        if (!stat || stat.mtimeMs >= before) continue;
        await fs.rm(file, { force: true });
        swept++;
      }
    }
    return swept;
  }

  async delete(tenant: string, digest: string): Promise<void> {
    const { dir, file } = this.path(tenant, digest);
    this.forget(file);
    try {
      await fs.unlink(file);
      await fsyncPath(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  async close(): Promise<void> {
    for (const file of [...this.readers.keys()]) this.forget(file);
  }
}
