/**
 * The public nouns of the foundation, as every surface (SDK, HTTP, CLI) shows
 * them. Those an operation answers are inferred from their schemas in
 * ops/shapes.ts (the one declaration, also behind the OpenAPI document).
 */
import type { z } from 'zod';
import type * as shape from './ops/shapes.js';

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
export type Identity = z.output<typeof shape.Identity>;
export type Session = z.output<typeof shape.Session>;
export type Branch = z.output<typeof shape.Branch>;
export type CairnEvent = z.output<typeof shape.CairnEvent>;
export type AppendResult = z.output<typeof shape.AppendResult>;
export type EventPage = z.output<typeof shape.EventPage>;
export type SessionPage = z.output<typeof shape.SessionPage>;
/** One move of a branch head other than an append: the branch's reflog. */
export type RefLogEntry = z.output<typeof shape.RefLogEntry>;
export type CreatedToken = z.output<typeof shape.CreatedToken>;
export type RevokedToken = z.output<typeof shape.RevokedToken>;
export type AuditBreak = z.output<typeof shape.AuditBreak>;
export type AuditReport = z.output<typeof shape.AuditReport>;
