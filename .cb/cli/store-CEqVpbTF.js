import { t as verifyAuditChain } from "./audit-verify-TLifYexv.js";
import { t as Desk } from "./desk-BdPfQa2p.js";
import { t as LocalDeskStore } from "./local-store-Bcz_Wbkg.js";
import { S as localIdentity, T as tenantIds, _ as authenticate, f as bindOps, g as opContext, h as withHandlers, l as EmbeddedFabric, r as openStoreFolder, v as createTenant } from "./store-folder-D53airw-.js";
import { A as invalidArgument, D as forbidden } from "./front-BpLyP2oj.js";
import { t as Keys } from "./keys-BKLLj72I.js";
import { t as MEMORY_CONTRACT } from "./contract-BYiYS3r2.js";
import { t as MEMORY_HANDLERS } from "./handlers-BVg5qvz-.js";
import { G as TenantName } from "./schema-akKHYQxY.js";
import { t as parseInput } from "./validate-Dzwxqk5b.js";
// dist/store.js
/**
* A Cairn store: a relational engine plus a blob store. It hands out fabrics,
* each acting as one identity; it reads no environment of its own.
*/
var Store = class Store {
	engine;
	blobs;
	deskDir;
	memoryPolicy;
	constructor(engine, blobs, deskDir, memoryPolicy = {}) {
		this.engine = engine;
		this.blobs = blobs;
		this.deskDir = deskDir;
		this.memoryPolicy = memoryPolicy;
	}
	/**
	* The embedded default: `<dir>/cairn.db` (SQLite), `<dir>/blobs/` and
	* `<dir>/desk/`, made for the owner alone (folders 0700, files 0600).
	* `onWarning` hears of a store folder other users may enter.
	*/
	static async openDir(dir, options = {}) {
		const { engine, blobs, deskDir } = await openStoreFolder(dir, options);
		return new Store(engine, blobs, deskDir, options.memoryPolicy);
	}
	/**
	* The desk (workspace snapshots) acting as the given identity. `host`
	* names this machine (a directory is attached once per host); the CLI
	* passes the hostname.
	*/
	desk(who, options = {}) {
		const stateDir = options.stateDir ?? this.deskDir;
		if (stateDir === void 0) throw invalidArgument("this store has no local folder: pass stateDir for the desk state", {});
		return new Desk({
			...options,
			store: new LocalDeskStore(this.engine, this.blobs, who, options.now),
			stateDir,
			host: options.host ?? "local"
		});
	}
	/**
	* The keys (vault, grants, handles, approvals) acting as the given
	* identity. The master key is needed only to add, rotate or use a
	* credential; the operator supplies it (the CLI reads a file or variable).
	*/
	keys(who, options = {}) {
		return new Keys({
			engine: this.engine,
			who,
			...options
		});
	}
	/**
	* Memory acting as the given identity (remember, recall, list, get,
	* history, quarantine, promote, forget): the table's memory operations,
	* validated as on every surface. `policy` sets the trust tier each source
	* arrives with; `embedding` (the user's function, with its model's name)
	* turns on vector and hybrid recall on SQLite. Through a server, the same methods are on `connect(…)`.
	*/
	memory(who, options = {}) {
		return bindOps(withHandlers(MEMORY_CONTRACT, MEMORY_HANDLERS), opContext(this.engine, who, {
			memoryPolicy: options.policy ?? this.memoryPolicy,
			memoryEmbedding: options.embedding
		}));
	}
	/** A fabric acting as the given identity (`masterKey`: the credential operations may seal values). */
	fabric(who, options = {}) {
		return new EmbeddedFabric(this.engine, who, void 0, {
			...options,
			blobs: this.blobs,
			memoryPolicy: this.memoryPolicy
		});
	}
	authenticate(token) {
		return authenticate(this.engine, token);
	}
	/** The store's local tenant and admin principal, created on first use. */
	localIdentity() {
		return localIdentity(this.engine);
	}
	createTenant(name) {
		return createTenant(this.engine, { name: parseInput(TenantName, name, "create tenant") });
	}
	/** Verifies the audit chains of the named tenants. */
	verifyTenants(tenants) {
		return Promise.all(tenants.map((t) => verifyAuditChain(this.engine, t)));
	}
	/**
	* Every tenant of the store, for its operator. Only where the database does
	* not itself confine each query to one tenant: on PostgreSQL no role the
	* engine accepts can see across tenants, by design.
	*/
	async listTenants() {
		if (this.engine.capabilities.rowLevelSecurity) throw forbidden("this store confines every query to one tenant (row-level security): act per tenant, with that tenant's token");
		return this.engine.read("", tenantIds);
	}
	async close() {
		await this.blobs.close();
		await this.engine.close();
	}
};
export { Store };
