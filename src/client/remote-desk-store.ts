import { Desk, type DeskOptions } from '../desk/desk.js';
import type { CommitAnswer, CommitInput, DeskStore, ForkInput, RefusedInput } from '../desk/desk-store.js';
import type { Snapshot, Workspace } from '../desk/rows.js';
import { type CairnError, invalidArgument, unavailable } from '../errors.js';
import type { CairnEvent, EventPage } from '../types.js';
import type { RemoteFabric } from './remote-fabric.js';

/** Digests per request: the table's limits (missing: 1000, read: 256). */
const MISSING_BATCH = 1000;
const READ_BATCH = 256;
/** How often a cut pack upload is sent again before the checkpoint gives up. */
const PUT_TRIES = 5;

/**
 * The store side of the desk on a Cairn server: each method one call of the
 * table's desk operations through the remote fabric. The desk on this host
 * keeps the directory, its scans, its stat cache and its forks; this holds no
 * state of its own beyond the tenant's id.
 */
export class RemoteDeskStore implements DeskStore {
  private constructor(
    private readonly fabric: RemoteFabric,
    readonly tenant: string,
  ) {}

  /** Opens the desk store of the server the fabric talks to, as the fabric's token. */
  static async open(fabric: RemoteFabric): Promise<RemoteDeskStore> {
    return new RemoteDeskStore(fabric, (await fabric.whoami()).tenant);
  }

  async missing(digests: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < digests.length; i += MISSING_BATCH) {
      const slice = digests.slice(i, i + MISSING_BATCH);
      out.push(...(await this.fabric.deskMissing({ digests: slice })).missing);
    }
    return out;
  }

  async getObjects(digests: readonly string[]): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (let i = 0; i < digests.length; i += READ_BATCH) {
      const slice = digests.slice(i, i + READ_BATCH);
      const parts = await this.fabric.deskReadObjects({ digests: slice });
      if (parts.length !== slice.length)
        throw unavailable(`asked for ${slice.length} objects, the server sent ${parts.length}: ask again`);
      // Views into the answer's body: Buffers over the same memory, no copy.
      for (const part of parts) out.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    }
    return out;
  }

  /**
   * Sends a pack, again after a cut connection or a server that went away
   * (the store keeps a pack it already has once: no duplicate). A refusal
   * (a bad pack, no permission) is not retried.
   */
  async putPack(digest: string, bytes: Buffer): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.fabric.deskPutPack({ digest, bytes });
        return;
      } catch (error) {
        const code = (error as CairnError).code;
        if ((code !== 'IN_DOUBT' && code !== 'UNAVAILABLE') || attempt >= PUT_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  async discardPacks(digests: readonly string[]): Promise<void> {
    if (digests.length > 0) await this.fabric.deskDiscardPacks({ packs: [...digests] });
  }

  commit(input: CommitInput): Promise<CommitAnswer> {
    const { inline, ...rest } = input;
    return this.fabric.deskCommit({ ...rest, ...(inline ? { inline: inline.toString('base64') } : {}) });
  }

  workspace(id: string): Promise<Workspace> {
    return this.fabric.getWorkspace({ workspace: id });
  }

  head(id: string): Promise<{ workspace: Workspace; head: Snapshot }> {
    return this.fabric.workspaceHead({ workspace: id });
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (await this.fabric.listWorkspaces()).items;
  }

  async attachedAt(host: string, paths: readonly string[]): Promise<Workspace[]> {
    return (await this.fabric.attachedAt({ host, paths: [...paths] })).items;
  }

  async listSnapshots(workspace: string): Promise<Snapshot[]> {
    return (await this.fabric.listSnapshots({ workspace })).items;
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.fabric.getSnapshot({ snapshot: id });
  }

  fork(input: ForkInput): Promise<Workspace> {
    if (input.driver === 'plain') throw invalidArgument('a fork is a copy or an overlay');
    return this.fabric.deskFork({ ...input, driver: input.driver });
  }

  detach(id: string): Promise<Workspace> {
    return this.fabric.detachWorkspace({ workspace: id });
  }

  async refused(input: RefusedInput): Promise<void> {
    await this.fabric.deskRefused(input);
  }

  async checkSession(id: string): Promise<void> {
    await this.fabric.getSession({ session: id });
  }

  getEvent(id: string): Promise<CairnEvent> {
    return this.fabric.getEvent({ event: id });
  }

  readBranch(input: { session: string; branch: string; from: number; limit: number }): Promise<EventPage> {
    return this.fabric.readBranch(input);
  }
}

/** A desk on this host whose store is a Cairn server: the directory stays here, the snapshots go there. */
export async function remoteDesk(fabric: RemoteFabric, options: Omit<DeskOptions, 'store'>): Promise<Desk> {
  return new Desk({ ...options, store: await RemoteDeskStore.open(fabric) });
}
