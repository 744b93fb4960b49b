import { z } from 'zod';
import { idMessage, idPattern } from './ids.js';

/**
 * Input schemas, shared by the library edge, the HTTP server (OpenAPI) and the
 * CLI. Input is validated once, here; inside, the types are trusted.
 */
/** A string that is an id with this prefix (ids.ts), typed so. */
export const id = <P extends string>(prefix: P) =>
  z.string().regex(idPattern(prefix), idMessage(prefix)) as unknown as z.ZodType<`${P}_${string}`, string>;

/**
 * Free text that is stored as a column: well-formed Unicode (a lone surrogate
 * would be rewritten by the database, and break the digest of the row) and no
 * NUL (PostgreSQL rejects it in text).
 */
export const text = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine(
      (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed() && !s.includes('\u0000'),
      'must be well-formed Unicode text without NUL characters',
    );

export const SessionId = id('ss').describe("a session's id (ss_…)");
export const TokenId = id('tk');
export const EventId = id('ev').describe("an event's id (ev_…)");
export const ApprovalId = id('ap');
export const GrantId = id('gr');
export const MemoryId = id('mr');
export const BranchName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit',
  );
/** A vault credential's name: it is also the first path segment of proxied URLs. */
export const CredentialName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,63}$/,
    'lower-case letters, digits, "_" or "-", at most 64, starting with a letter or digit',
  );
export const EventKind = z
  .string()
  .regex(
    /^[a-z][a-z0-9_.:-]{0,63}$/,
    'lowercase letters, digits and "_.:-", at most 64, starting with a letter',
  );
export const Actor = text(1, 200);
export const IdempotencyKey = text(1, 200);
export const TenantName = text(1, 200);

/** The longest session title, in characters (also after redaction's placeholders: log/handlers.ts). */
export const MAX_TITLE_CHARS = 500;

export const CreateSessionInput = z
  .object({
    title: text(0, MAX_TITLE_CHARS).default('').describe('a title a person will recognise the session by'),
    meta: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('free JSON about the session (your harness, the task); not searched'),
  })
  .strict();

export const ListSessionsInput = z
  .object({
    limit: z.number().int().min(1).max(1000).default(100).describe('how many sessions at most'),
    after: SessionId.optional().describe('the last session of the previous page: the page after it'),
  })
  .strict();

export const AppendInput = z
  .object({
    session: SessionId,
    branch: BranchName.default('main').describe('the branch to append to; main unless you forked'),
    kind: EventKind.describe(
      `the event's kind, e.g. "tool.call"; kinds under "cairn." are Cairn's own and refused`,
    ),
    payload: z
      .unknown()
      .default(null)
      .describe('the event itself, any JSON; a credential in it is stored as a placeholder'),
    actor: Actor.optional().describe(
      'who acted, in your words (a tool, a sub-agent); your identity is recorded anyway',
    ),
    idempotencyKey: IdempotencyKey.optional().describe(
      'makes a retry safe: a second append with the same key returns the first event instead of adding one',
    ),
  })
  .strict();

export const ReadBranchInput = z
  .object({
    session: SessionId,
    branch: BranchName.default('main').describe('the branch to read'),
    from: z.number().int().min(1).default(1).describe('the first sequence number to return (1: the root)'),
    limit: z.number().int().min(1).max(10_000).default(1000).describe('how many events at most'),
  })
  .strict();

export const ForkInput = z
  .object({
    session: SessionId,
    at: EventId.optional().describe('the event to fork at'),
    from: BranchName.optional().describe('a branch whose head to fork at, instead of at; default main'),
    name: BranchName.optional().describe("the new branch's name; default a generated one"),
  })
  .strict()
  .refine((v) => v.at === undefined || v.from === undefined, {
    message: 'pass either at (an event) or from (a branch), not both',
    path: ['from'],
  });

export const RewindInput = z
  .object({
    session: SessionId,
    branch: BranchName.describe('the branch whose head moves'),
    to: EventId.describe('an event on the branch’s path to move the head back to'),
  })
  .strict();

/** A head move to any event of the session (a unit restore, undo or redo); `ifHead` makes it a compare-and-swap. */
export const MoveHeadInput = z
  .object({
    session: SessionId,
    branch: BranchName.describe('the branch whose head moves'),
    to: EventId.describe('any event of the session to move the head to'),
    ifHead: EventId.optional().describe('move only while the head is still this event (else CONFLICT)'),
  })
  .strict();

/** The path root → one event, paged by sequence number, whatever branch heads point at. */
export const ReadPathInput = z
  .object({
    to: EventId.describe('the event the path ends at'),
    from: z.number().int().min(1).default(1).describe('the first sequence number to return (1: the root)'),
    limit: z.number().int().min(1).max(10_000).default(1000).describe('how many events at most'),
  })
  .strict();

export const CreateTokenInput = z
  .object({
    /** Existing principal to mint for; omit to create a new principal (kind, name, role). */
    principal: id('pr').optional().describe('mint for this existing principal (pr_…); default a new one'),
    kind: z.enum(['user', 'agent', 'service']).optional().describe('the new principal’s kind; default agent'),
    name: text(1, 200).optional().describe('the new principal’s name; default agent'),
    role: z.enum(['admin', 'member']).optional().describe('the new principal’s role; default member'),
    label: text(0, 200).default('').describe('a note to tell tokens apart'),
  })
  .strict()
  .refine(
    (v) =>
      v.principal === undefined || (v.kind === undefined && v.name === undefined && v.role === undefined),
    {
      message: 'kind, name and role describe a new principal: omit them when passing an existing principal',
      path: ['principal'],
    },
  );

/** An operation that takes nothing. */
export const NoInput = z.object({}).strict();
export const GetSessionInput = z.object({ session: SessionId }).strict();
export const GetEventInput = z.object({ event: EventId }).strict();
export const ListBranchesInput = z.object({ session: SessionId }).strict();
export const BranchHistoryInput = z
  .object({ session: SessionId, branch: BranchName.describe('the branch whose head moves to list') })
  .strict();
export const RevokeTokenInput = z
  .object({ token: TokenId.describe('the token’s id (tk_…), not its secret') })
  .strict();

/** A person's decision on a held request. */
export const DecisionInput = z
  .object({ approval: ApprovalId, note: text(0, 500).default('').describe('a note for the audit log') })
  .strict();
export const RevokeGrantInput = z
  .object({ grant: GrantId, reason: text(0, 500).default('').describe('why, for the audit log') })
  .strict();
export const ApprovalStateFilter = z
  .enum(['pending', 'approved', 'denied', 'expired', 'used', 'all'])
  .default('pending')
  .describe('which approvals: those in this state, or all');
export const ListApprovalsInput = z.object({ state: ApprovalStateFilter }).strict();
export const GetApprovalInput = z.object({ approval: ApprovalId }).strict();
/** A credential's value: it travels only in a request body, never in a URL, and is never logged. */
const SecretValue = z
  .string()
  .min(1)
  .max(64 * 1024);
const UpstreamUrl = z.string().min(1).max(2048);
export const ListCredentialsInput = z.object({}).strict();
export const AddCredentialInput = z
  .object({
    name: CredentialName,
    kind: z.enum(['bearer', 'basic', 'header', 'env']),
    upstream: UpstreamUrl.optional(),
    header: z.string().min(1).max(200).optional(),
    value: SecretValue,
    sandbox: z.object({ upstream: UpstreamUrl, value: SecretValue }).strict().optional(),
    allowHeaders: z.array(z.string().min(1).max(200)).max(50).optional(),
    maxBodyBytes: z.number().int().min(1).optional(),
  })
  .strict();
export const RotateCredentialInput = z
  .object({ name: CredentialName, value: SecretValue.optional(), sandbox: SecretValue.optional() })
  .strict();
export const DeleteCredentialInput = z.object({ name: CredentialName }).strict();
export const AddGrantInput = z
  .object({
    session: SessionId,
    branch: BranchName,
    credential: CredentialName,
    mode: z.enum(['read', 'sandbox', 'live']),
    approval: z.enum(['none', 'each-write']).optional(),
    parent: GrantId.optional(),
    allow: z
      .object({
        hosts: z.array(z.string().min(1).max(300)).max(50).optional(),
        methods: z.array(z.string().min(1).max(20)).max(10).optional(),
        pathPrefixes: z.array(z.string().min(1).max(2048)).max(50).optional(),
      })
      .strict()
      .optional(),
    expiresAt: z.number().int().nullable().optional(),
    maxUses: z.number().int().min(1).nullable().optional(),
  })
  .strict();
export const GetGrantInput = z.object({ grant: GrantId }).strict();
/** A grant a branch still to be made would get, checked and not issued (a fork checks them all first). */
export const CheckGrantInput = AddGrantInput.omit({ branch: true });
export const ListGrantsInput = z
  .object({
    session: SessionId.optional().describe('only grants of this session'),
    branch: BranchName.optional().describe('only grants of branches of this name'),
  })
  .strict();

export type CreateSessionInput = z.input<typeof CreateSessionInput>;
export type ListSessionsInput = z.input<typeof ListSessionsInput>;
export type AppendInput = z.input<typeof AppendInput>;
export type ReadBranchInput = z.input<typeof ReadBranchInput>;
export type ForkInput = z.input<typeof ForkInput>;
export type RewindInput = z.input<typeof RewindInput>;
export type MoveHeadInput = z.input<typeof MoveHeadInput>;
export type ReadPathInput = z.input<typeof ReadPathInput>;
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

/** The same inputs after validation, defaults filled in. */
export type ValidCreateSession = z.output<typeof CreateSessionInput>;
export type ValidListSessions = z.output<typeof ListSessionsInput>;
export type ValidAppend = z.output<typeof AppendInput>;
export type ValidReadBranch = z.output<typeof ReadBranchInput>;
export type ValidFork = z.output<typeof ForkInput>;
export type ValidRewind = z.output<typeof RewindInput>;
export type ValidMoveHead = z.output<typeof MoveHeadInput>;
export type ValidReadPath = z.output<typeof ReadPathInput>;
export type ValidCreateToken = z.output<typeof CreateTokenInput>;

// ---- the desk's contract (see desk/desk-store.ts) ----------------------------

export const WorkspaceId = id('ws');
export const SnapshotId = id('sn');
export const Digest = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'expected a sha256 digest: 64 lowercase hex characters');
/** A directory on the desk's host: absolute, as that host names it. */
const HostPath = text(1, 4096).refine((p) => p.startsWith('/'), 'must be an absolute path');
const HostName = text(1, 255);

export const DeskDigestsInput = z.object({ digests: z.array(Digest).min(1).max(1000) }).strict();
export const DeskReadObjectsInput = z.object({ digests: z.array(Digest).min(1).max(256) }).strict();
/**
 * Raw bytes: a Uint8Array, so a Node Buffer (one of those) and a browser's
 * bytes both pass, and loading the schema names no Node global.
 */
export const Bytes = z.custom<Uint8Array>(
  (value) => value instanceof Uint8Array,
  'expected bytes (a Uint8Array)',
);
export const DeskPutPackInput = z.object({ digest: Digest, bytes: Bytes }).strict();
export const DeskDiscardInput = z.object({ packs: z.array(Digest).max(1000) }).strict();
export const WorkspaceInput = z.object({ workspace: WorkspaceId }).strict();
export const SnapshotInput = z.object({ snapshot: SnapshotId }).strict();
export const DeskAttachedInput = z
  .object({ host: HostName, paths: z.array(HostPath).min(1).max(256) })
  .strict();

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Payload = z.record(z.string(), z.unknown());

export const DeskCommitInput = z
  .object({
    id: SnapshotId,
    workspace: WorkspaceId,
    attach: z
      .object({ host: HostName, path: HostPath, session: SessionId.optional(), branch: BranchName })
      .strict()
      .optional(),
    expectHead: z.union([SnapshotId, z.literal('')]),
    kind: z.enum(['checkpoint', 'restore', 'merge']),
    root: Digest,
    files: Count,
    bytes: Count,
    addedBytes: Count,
    packs: z.array(Digest).max(100_000),
    inline: z
      .base64()
      .max(512 * 1024)
      .optional()
      .describe('the small pack, base64'),
    reused: z.array(Digest).max(200_000),
    payload: Payload.optional(),
    // The only event that rides with a commit is the unit's checkpoint: the desk writes Cairn's own kinds for it.
    also: z
      .object({ kind: z.literal('cairn.unit.checkpoint'), payload: Payload })
      .strict()
      .optional(),
    ifHead: z.union([EventId, z.literal('')]).optional(),
    ifMoves: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    moveHeadTo: EventId.optional(),
  })
  .strict();

/** A desk's report that it refused destructive work on a workspace's directory (audited as the caller's word). */
export const DeskRefusedInput = z
  .object({
    workspace: WorkspaceId,
    action: z.enum(['discard', 'mount']),
    reason: z.enum(['other-host', 'not-created']),
    host: HostName,
    dir: HostPath,
  })
  .strict();

export const DeskForkInput = z
  .object({
    id: WorkspaceId,
    from: WorkspaceId,
    host: HostName,
    path: HostPath,
    driver: z.enum(['copy', 'overlay']),
    baseSnapshot: SnapshotId,
    at: EventId.optional(),
    branch: BranchName.optional(),
  })
  .strict();
