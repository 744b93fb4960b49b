import { A as invalidArgument } from "./front-BpLyP2oj.js";
// dist/keys/grants.js
const SAFE_METHODS = /* @__PURE__ */ new Set([
	"GET",
	"HEAD",
	"OPTIONS"
]);
const ALL_METHODS = [
	"GET",
	"HEAD",
	"OPTIONS",
	"POST",
	"PUT",
	"PATCH",
	"DELETE"
];
function grantState(grant, now) {
	if (grant.revokedAt !== null) return "revoked";
	if (grant.expiresAt !== null && grant.expiresAt <= now) return "expired";
	if (grant.maxUses !== null && grant.uses >= grant.maxUses) return "exhausted";
	return "active";
}
/** Which modes a child may take under each parent mode: a test account never widens to the real one. */
const CHILD_MODES = {
	live: [
		"live",
		"sandbox",
		"read"
	],
	sandbox: ["sandbox"],
	read: ["read"]
};
function normaliseAllow(allow, defaults) {
	const hosts = (allow.hosts ?? defaults.hosts).map((h) => h.toLowerCase());
	const methods = (allow.methods ?? defaults.methods).map((m) => m.toUpperCase());
	const pathPrefixes = allow.pathPrefixes ?? defaults.pathPrefixes;
	for (const m of methods) if (!ALL_METHODS.includes(m)) throw invalidArgument(`method ${m} is not one of ${ALL_METHODS.join(", ")}`, { method: m });
	for (const p of pathPrefixes) if (!p.startsWith("/") || p.split("/").includes("..")) throw invalidArgument(`path prefix "${p}" must start with / and hold no ..`, { pathPrefix: p });
	for (const h of hosts) if (!/^[a-z0-9.-]+(:\d{1,5})?$/.test(h) && !/^\[[0-9a-f:]+\](:\d{1,5})?$/.test(h)) throw invalidArgument(`host "${h}" is not host or host:port`, { host: h });
	if (hosts.length === 0 || methods.length === 0 || pathPrefixes.length === 0) throw invalidArgument("an allow-list needs at least one host, method and path prefix (or leave it unset)");
	return {
		hosts: [...new Set(hosts)],
		methods: [...new Set(methods)],
		pathPrefixes: [...new Set(pathPrefixes)]
	};
}
function pathAllowed(path, prefixes) {
	return prefixes.some((p) => p === "/" || path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`));
}
/**
* The grant a request describes, checked against its parent: it may only
* narrow. Throws INVALID_ARGUMENT naming the first way it is wider.
*/
function narrowedGrant(parent, request, credentialHosts, now) {
	if (![
		"read",
		"sandbox",
		"live"
	].includes(request.mode)) throw invalidArgument(`mode must be read, sandbox or live, not ${String(request.mode)}`);
	const approval = request.approval ?? (parent?.approval === "each-write" && request.mode === "live" ? "each-write" : "none");
	if (approval !== "none" && approval !== "each-write") throw invalidArgument(`approval must be none or each-write, not ${String(approval)}`);
	if (request.expiresAt != null && (!Number.isSafeInteger(request.expiresAt) || request.expiresAt <= now)) throw invalidArgument("a grant must expire in the future", { expiresAt: request.expiresAt });
	if (request.maxUses != null && (!Number.isSafeInteger(request.maxUses) || request.maxUses < 1)) throw invalidArgument("max uses must be a whole number ≥ 1", { maxUses: request.maxUses });
	const safe = [...SAFE_METHODS];
	const base = parent ? parent.allow : {
		hosts: credentialHosts,
		methods: [...ALL_METHODS],
		pathPrefixes: ["/"]
	};
	const defaults = request.mode === "read" ? {
		...base,
		methods: base.methods.filter((m) => SAFE_METHODS.has(m))
	} : base;
	const allow = normaliseAllow(request.allow ?? {}, defaults);
	if (request.mode === "read") {
		const unsafe = allow.methods.filter((m) => !safe.includes(m));
		if (unsafe.length > 0) throw invalidArgument(`a read grant allows only ${safe.join(", ")}, not ${unsafe.join(", ")}`, { methods: unsafe });
	}
	let expiresAt = request.expiresAt ?? null;
	let maxUses = request.maxUses ?? null;
	if (parent) {
		const wider = (what, data) => invalidArgument(`the grant is wider than its parent ${parent.id}: ${what}`, {
			parent: parent.id,
			...data
		});
		if (!CHILD_MODES[parent.mode].includes(request.mode)) throw wider(`mode ${request.mode} under ${parent.mode}`, { mode: request.mode });
		if (parent.approval === "each-write" && request.mode === "live" && approval !== "each-write") throw wider("live writes without approval under each-write", { approval });
		const extraHosts = allow.hosts.filter((h) => !parent.allow.hosts.includes(h));
		if (extraHosts.length > 0) throw wider(`hosts ${extraHosts.join(", ")}`, { hosts: extraHosts });
		const extraMethods = allow.methods.filter((m) => !parent.allow.methods.includes(m));
		if (extraMethods.length > 0) throw wider(`methods ${extraMethods.join(", ")}`, { methods: extraMethods });
		const extraPaths = allow.pathPrefixes.filter((p) => !pathAllowed(p, parent.allow.pathPrefixes));
		if (extraPaths.length > 0) throw wider(`path prefixes ${extraPaths.join(", ")}`, { pathPrefixes: extraPaths });
		if (parent.expiresAt !== null) {
			if (expiresAt !== null && expiresAt > parent.expiresAt) throw wider("it expires later", {
				expiresAt,
				parentExpiresAt: parent.expiresAt
			});
			expiresAt = expiresAt ?? parent.expiresAt;
		}
		if (parent.maxUses !== null) {
			const left = parent.maxUses - parent.uses;
			if (maxUses !== null && maxUses > left) throw wider(`${maxUses} uses where ${left} are left`, {
				maxUses,
				left
			});
			maxUses = maxUses ?? left;
		}
	}
	return {
		mode: request.mode,
		approval: request.mode === "read" ? "none" : approval,
		allow,
		expiresAt,
		maxUses
	};
}
/**
* May this request go out under this grant chain (the grant first, then its
* ancestors)? Every grant of the chain must be active; the leaf's allow-list
* and mode decide the rest.
*/
function decide(chain, request, now) {
	for (const g of chain) {
		const state = grantState(g, now);
		if (state !== "active") return {
			allowed: false,
			reason: `grant ${g.id}${g === chain[0] ? "" : " (an ancestor)"} is ${state}`,
			rule: "grant_inactive"
		};
	}
	const grant = chain[0];
	if (!grant) return {
		allowed: false,
		reason: "no grant",
		rule: "grant_inactive"
	};
	const method = request.method.toUpperCase();
	const safe = SAFE_METHODS.has(method) && request.hasBody !== true;
	if (grant.mode === "read" && !safe) return SAFE_METHODS.has(method) ? {
		allowed: false,
		reason: `grant ${grant.id} is read-only: a ${method} with a body is a write and is refused (send it without a body)`,
		rule: "body_is_write"
	} : {
		allowed: false,
		reason: `grant ${grant.id} is read-only: ${method} is refused`,
		rule: "read_only"
	};
	if (!grant.allow.methods.includes(method)) return {
		allowed: false,
		reason: `method ${method} is not allowed by grant ${grant.id}`,
		rule: "method"
	};
	if (!grant.allow.hosts.includes(request.host.toLowerCase())) return {
		allowed: false,
		reason: `host ${request.host} is outside grant ${grant.id}'s allow-list`,
		rule: "host"
	};
	for (const path of [request.path, request.decodedPath ?? request.path]) if (!pathAllowed(path, grant.allow.pathPrefixes)) return {
		allowed: false,
		reason: `path ${path.length > 128 ? `${path.slice(0, 128)}…` : path} is outside grant ${grant.id}'s allow-list`,
		rule: "path"
	};
	return {
		allowed: true,
		needsApproval: grant.mode === "live" && grant.approval === "each-write" && !safe
	};
}
export { grantState as n, narrowedGrant as r, decide as t };
