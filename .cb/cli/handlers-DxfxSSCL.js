import { z as authorize } from "./store-folder-D53airw-.js";
import { t as verifyAuditChain } from "./audit-verify-TLifYexv.js";
// dist/audit/handlers.js
/** The handlers of the audit chain's operations (the contract: ./contract.ts). */
const AUDIT_HANDLERS = { verifyAudit: async (ctx) => {
	authorize(ctx.who, "audit.verify");
	return verifyAuditChain(ctx.engine, ctx.who.tenant);
} };
export { AUDIT_HANDLERS };
