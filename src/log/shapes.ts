/** What the session log's operations answer, as zod schemas (the shared nouns: ../shapes.ts). */
import { z } from 'zod';
import type { EventId, SessionId } from '../ids.js';
import { at, idOf } from '../shapes.js';

export const Session = z.object({
  id: idOf<SessionId>(),
  tenant: z.string(),
  owner: z.string(),
  title: z.string(),
  meta: z.record(z.string(), z.unknown()),
  createdAt: at,
});

export const SessionPage = z.object({
  sessions: z.array(Session),
  next: z.string().nullable().describe('cursor to pass as `after` for the next page; null on the last page'),
});

export const Branch = z.object({
  id: z.string(),
  session: idOf<SessionId>(),
  name: z.string(),
  owner: z.string(),
  head: idOf<EventId | ''>().describe("id of the head event; '' while the branch is empty"),
  headSeq: z
    .number()
    .int()
    .describe('sequence number of the head event (its depth from the root); 0 while empty'),
  forkedFrom: idOf<EventId | ''>().describe(
    "event the branch was forked at; '' for a session's first branch",
  ),
  createdAt: at,
  updatedAt: at,
});

export const BranchList = z.array(Branch);

export const CairnEvent = z.object({
  id: idOf<EventId>(),
  session: idOf<SessionId>(),
  branch: z.string().describe('name of the branch the event was appended on'),
  parent: idOf<EventId | ''>().describe("id of the previous event on its path; '' for a root event"),
  seq: z.number().int().describe('position on its path from the root, starting at 1'),
  kind: z.string(),
  payload: z.unknown(),
  actor: z.string(),
  owner: z.string(),
  at,
  idempotencyKey: z.string().nullable(),
});

export const AppendResult = CairnEvent.extend({
  deduplicated: z.boolean().describe('true when an earlier append with the same idempotency key answered'),
});

export const EventPage = z.object({
  events: z.array(CairnEvent),
  next: z
    .number()
    .int()
    .nullable()
    .describe('sequence number to pass as `from` for the next page; null after the head'),
  head: idOf<EventId | ''>(),
  headSeq: z.number().int(),
});

export const RefLogEntry = z.object({
  branch: z.string(),
  op: z.enum(['create', 'fork', 'rewind', 'move']),
  headBefore: z.string(),
  headAfter: z.string(),
  by: z.string(),
  at,
});

export const RefLog = z.array(RefLogEntry);
