import { t as Desk } from "./desk-BdPfQa2p.js";
import { A as invalidArgument, F as unavailable } from "./front-BpLyP2oj.js";
// dist/client/remote-desk-store.js
/** Digests per request: the table's limits (missing: 1000, read: 256). */
const MISSING_BATCH = 1e3;
const READ_BATCH = 256;
/** How often a cut pack upload is sent again before the checkpoint gives up. */
const PUT_TRIES = 5;
/**
* The store side of the desk on a Cairn server: each method one call of the
* table's desk operations through the remote fabric. The desk on this host
* keeps the directory, its scans, its stat cache and its forks; this holds no
* state of its own beyond the tenant's id.
*/
var RemoteDeskStore = class RemoteDeskStore {
	fabric;
	tenant;
	constructor(fabric, tenant) {
		this.fabric = fabric;
		this.tenant = tenant;
	}
	/** Opens the desk store of the server the fabric talks to, as the fabric's token. */
	static async open(fabric) {
		return new RemoteDeskStore(fabric, (await fabric.whoami()).tenant);
	}
	async missing(digests) {
		const out = [];
		for (let i = 0; i < digests.length; i += MISSING_BATCH) {
			const slice = digests.slice(i, i + MISSING_BATCH);
			out.push(...(await this.fabric.deskMissing({ digests: slice })).missing);
		}
		return out;
	}
	async getObjects(digests) {
		const out = [];
		for (let i = 0; i < digests.length; i += READ_BATCH) {
			const slice = digests.slice(i, i + READ_BATCH);
			const parts = await this.fabric.deskReadObjects({ digests: slice });
			if (parts.length !== slice.length) throw unavailable(`asked for ${slice.length} objects, the server sent ${parts.length}: ask again`);
			for (const part of parts) out.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
		}
		return out;
	}
	/**
	* Sends a pack, again after a cut connection or a server that went away
	* (the store keeps a pack it already has once: no duplicate). A refusal
	* (a bad pack, no permission) is not retried.
	*/
	async putPack(digest, bytes) {
		for (let attempt = 1;; attempt++) try {
			await this.fabric.deskPutPack({
				digest,
				bytes
			});
			return;
		} catch (error) {
			const code = error.code;
			if (code !== "IN_DOUBT" && code !== "UNAVAILABLE" || attempt >= PUT_TRIES) throw error;
			await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
		}
	}
	async discardPacks(digests) {
		if (digests.length > 0) await this.fabric.deskDiscardPacks({ packs: [...digests] });
	}
	commit(input) {
		const { inline, ...rest } = input;
		return this.fabric.deskCommit({
			...rest,
			...inline ? { inline: inline.toString("base64") } : {}
		});
	}
	workspace(id) {
		return this.fabric.getWorkspace({ workspace: id });
	}
	head(id) {
		return this.fabric.workspaceHead({ workspace: id });
	}
	async listWorkspaces() {
		return (await this.fabric.listWorkspaces()).items;
	}
	async attachedAt(host, paths) {
		return (await this.fabric.attachedAt({
			host,
			paths: [...paths]
		})).items;
	}
	async listSnapshots(workspace) {
		return (await this.fabric.listSnapshots({ workspace })).items;
	}
	snapshot(id) {
		return this.fabric.getSnapshot({ snapshot: id });
	}
	fork(input) {
		if (input.driver === "plain") throw invalidArgument("a fork is a copy or an overlay");
		return this.fabric.deskFork({
			...input,
			driver: input.driver
		});
	}
	detach(id) {
		return this.fabric.detachWorkspace({ workspace: id });
	}
	async refused(input) {
		await this.fabric.deskRefused(input);
	}
	async checkSession(id) {
		await this.fabric.getSession({ session: id });
	}
	getEvent(id) {
		return this.fabric.getEvent({ event: id });
	}
	readBranch(input) {
		return this.fabric.readBranch(input);
	}
};
/** A desk on this host whose store is a Cairn server: the directory stays here, the snapshots go there. */
async function remoteDesk(fabric, options) {
	return new Desk({
		...options,
		store: await RemoteDeskStore.open(fabric)
	});
}
export { RemoteDeskStore, remoteDesk };
