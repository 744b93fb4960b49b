import { z } from 'zod';

/**
 * Input schemas, shared by the library edge, the HTTP server (OpenAPI) and the
 * CLI. Input is validated once, here; inside, the types are trusted.
 */
const id = (prefix: string) =>
  z
    .string()
    .regex(
      new RegExp(`^${prefix}_[0-9a-z]{26}$`),
      `expected an id like ${prefix}_ followed by 26 lowercase letters and digits, as Cairn returned it`,
    );

export const SessionId = id('ss');
export const EventId = id('ev');
export const BranchName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit',
  );
export const EventKind = z
  .string()
  .regex(
    /^[a-z][a-z0-9_.:-]{0,63}$/,
    'lowercase letters, digits and "_.:-", at most 64, starting with a letter',
  );
export const Actor = z.string().min(1).max(200);
export const IdempotencyKey = z.string().min(1).max(200);

export const CreateSessionInput = z
  .object({
    title: z.string().max(500).default(''),
    meta: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const ListSessionsInput = z
  .object({
    limit: z.number().int().min(1).max(1000).default(100),
    after: SessionId.optional(),
  })
  .strict();

export const AppendInput = z
  .object({
    session: SessionId,
    branch: BranchName.default('main'),
    kind: EventKind,
    payload: z.unknown().default(null),
    actor: Actor.optional(),
    idempotencyKey: IdempotencyKey.optional(),
  })
  .strict();

export const ReadBranchInput = z
  .object({
    session: SessionId,
    branch: BranchName.default('main'),
    from: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(10_000).default(1000),
  })
  .strict();

export const ForkInput = z
  .object({
    session: SessionId,
    /** Event to fork at; defaults to the head of `from`. */
    at: EventId.optional(),
    from: BranchName.default('main'),
    name: BranchName.optional(),
  })
  .strict();

export const RewindInput = z
  .object({
    session: SessionId,
    branch: BranchName,
    to: EventId,
  })
  .strict();

export const CreateTokenInput = z
  .object({
    /** Existing principal to mint for; omit to create a new principal. */
    principal: id('pr').optional(),
    kind: z.enum(['user', 'agent', 'service']).default('agent'),
    name: z.string().min(1).max(200).default('agent'),
    role: z.enum(['admin', 'member']).default('member'),
    label: z.string().max(200).default(''),
  })
  .strict();

export type CreateSessionInput = z.input<typeof CreateSessionInput>;
export type ListSessionsInput = z.input<typeof ListSessionsInput>;
export type AppendInput = z.input<typeof AppendInput>;
export type ReadBranchInput = z.input<typeof ReadBranchInput>;
export type ForkInput = z.input<typeof ForkInput>;
export type RewindInput = z.input<typeof RewindInput>;
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

/** The same inputs after validation, defaults filled in. */
export type ValidCreateSession = z.output<typeof CreateSessionInput>;
export type ValidListSessions = z.output<typeof ListSessionsInput>;
export type ValidAppend = z.output<typeof AppendInput>;
export type ValidReadBranch = z.output<typeof ReadBranchInput>;
export type ValidFork = z.output<typeof ForkInput>;
export type ValidRewind = z.output<typeof RewindInput>;
export type ValidCreateToken = z.output<typeof CreateTokenInput>;
