/**
 * The public nouns of the foundation, as every surface (SDK, HTTP, CLI) shows
 * them. Those an operation answers are inferred from their schemas in
 * each feature's shapes.ts and ./shapes.ts (the one declaration, also behind the OpenAPI document).
 */
import type { z } from 'zod';
import type * as auditShape from './audit/shapes.js';
import type * as identityShape from './identity/shapes.js';
import type * as logShape from './log/shapes.js';
import type * as shared from './shapes.js';

export type PrincipalKind = 'user' | 'agent' | 'service';
export type Role = 'admin' | 'member';

export interface Principal {
  id: string;
  tenant: string;
  kind: PrincipalKind;
  name: string;
  role: Role;
  createdAt: number;
}

/** Who is calling: resolved from a token (server) or the store's local principal (embedded). */
export type Identity = z.output<typeof shared.Identity>;
export type Session = z.output<typeof logShape.Session>;
export type Branch = z.output<typeof logShape.Branch>;
export type CairnEvent = z.output<typeof logShape.CairnEvent>;
export type AppendResult = z.output<typeof logShape.AppendResult>;
export type EventPage = z.output<typeof logShape.EventPage>;
export type SessionPage = z.output<typeof logShape.SessionPage>;
/** One move of a branch head other than an append: the branch's reflog. */
export type RefLogEntry = z.output<typeof logShape.RefLogEntry>;
export type CreatedToken = z.output<typeof identityShape.CreatedToken>;
export type RevokedToken = z.output<typeof identityShape.RevokedToken>;
export type AuditBreak = z.output<typeof auditShape.AuditBreak>;
export type AuditReport = z.output<typeof auditShape.AuditReport>;
