/**
 * Memory's inputs and answers, as zod schemas: the operations validate with
 * them (once, at the edge) and the OpenAPI document and MCP tools are made
 * from them. The semantics are in docs/design/memory.md.
 */
import { z } from 'zod';
import type { MemoryId } from '../ids.js';
import { BranchName as Branch, MemoryId as MemoryIdSchema, SessionId as SessionIdSchema } from '../schema.js';

export const MEMORY_KINDS = ['fact', 'episode', 'procedure', 'pinned'] as const;
export const MEMORY_SOURCES = ['person', 'agent', 'tool', 'import'] as const;
/** The sources an agent or a service may name: `person` is a user's alone. */
export const AGENT_SOURCES = ['agent', 'tool', 'import'] as const;
/** Trust tiers, most trusted first: `minTrust` keeps a tier and those above it. */
export const TRUST_TIERS = ['trusted', 'untrusted', 'quarantined'] as const;

export type MemoryKind = (typeof MEMORY_KINDS)[number];
export type MemorySource = (typeof MEMORY_SOURCES)[number];
export type TrustTier = (typeof TRUST_TIERS)[number];

export const RECALL_MODES = ['auto', 'text', 'vector', 'hybrid'] as const;
export const MAX_TEXT = 16_384;
export const MAX_K = 100;

export { MemoryIdSchema };

/** A scope value names a user, an agent or a project inside the caller's tenant: validated, never rewritten. */
const ScopeName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/,
    'letters, digits and "._@-", at most 128, starting with a letter or digit (a name inside your tenant)',
  );

export const Scope = z
  .object({
    user: ScopeName.optional().describe('the person it is about or for'),
    agent: ScopeName.optional().describe('the agent it belongs to'),
    project: ScopeName.optional().describe('the project it belongs to'),
    session: SessionIdSchema.optional().describe('a session (ss_…): seen only on that session’s branches'),
  })
  .strict()
  .refine(
    (s) => Object.values(s).some((v) => v !== undefined),
    'a scope names at least one of user, agent, project, session',
  )
  .describe('where it belongs: at least one of user, agent, project, session');

const Text = z
  .string()
  .min(1, 'a memory needs text')
  .max(MAX_TEXT, `at most ${MAX_TEXT} characters: keep large content as an artifact and remember a summary`)
  .refine(
    (s) =>
      (s as unknown as { isWellFormed(): boolean }).isWellFormed() &&
      !s.includes('\u0000') &&
      s.trim() !== '',
    'must be well-formed Unicode text, not blank, without NUL characters',
  );
const Tag = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,63}$/, 'lowercase letters, digits and "._:-", at most 64');
const DerivedRef = z
  .string()
  .regex(/^(mr|ev)_[0-9a-z]{26}$/, 'a memory record (mr_…) or a log event (ev_…) it was made from');
const Millis = z.number().int().min(0).max(8.64e15);

export const RememberInput = z
  .object({
    scope: Scope,
    text: Text.describe('what to remember, in a sentence or a paragraph (no credentials)'),
    kind: z
      .enum(MEMORY_KINDS)
      .default('fact')
      .describe('fact, episode (what happened), procedure (how to do something) or pinned (always relevant)'),
    data: z.record(z.string(), z.unknown()).default({}).describe('structured detail, any JSON; not searched'),
    tags: z.array(Tag).max(32).default([]).describe('labels to filter recall by'),
    source: z.enum(MEMORY_SOURCES).default('agent').describe('where the text came from'),
    derivedFrom: z
      .array(DerivedRef)
      .max(64)
      .default([])
      .describe('records (mr_…) or log events (ev_…) it was made from: its trust is no higher than theirs'),
    branch: Branch.default('main').describe("the session's branch it is written on (with a session scope)"),
    validFrom: Millis.optional().describe('when it became true in the world; default now'),
    validTo: Millis.optional().describe('when it stopped being true in the world (ms since the epoch)'),
    supersedes: MemoryIdSchema.optional().describe('a record this one replaces: a new version of it'),
  })
  .strict();

/** `remember` as an agent's tool offers it (MCP): only the sources an agent may name. */
export const AgentRememberInput = RememberInput.extend({
  source: z.enum(AGENT_SOURCES).default('agent').describe('where the text came from: you, a tool, an import'),
});

/** The most records one `rememberMany` writes. */
export const MAX_BATCH = 1000;

/**
 * The most text (and JSON `data`) one `rememberMany` writes, in characters:
 * a batch is one transaction, and its commit (writing its pages to the WAL,
 * and the full-text index's flush) is work the event loop cannot interrupt:
 * ≈ 20–25 ms a MiB here (docs/design/memory.md).
 */
export const MAX_BATCH_CHARS = 1024 * 1024;

export const RememberManyInput = z
  .object({
    records: z
      .array(RememberInput)
      .min(1, 'give at least one record')
      .max(MAX_BATCH, `at most ${MAX_BATCH} records a call: split the rest into further calls`),
  })
  .strict()
  .superRefine((input, ctx) => {
    let chars = 0;
    for (const record of input.records) chars += record.text.length + JSON.stringify(record.data).length;
    if (chars > MAX_BATCH_CHARS)
      ctx.addIssue({
        code: 'custom',
        path: ['records'],
        message: `at most ${MAX_BATCH_CHARS} characters of text and data a call (this one has ${chars}): split it into further calls`,
      });
  });

/** The lowest tier a read returns: quarantined records only when asked for, in recall and list alike. */
const MinTrust = z
  .enum(TRUST_TIERS)
  .default('untrusted')
  .describe('the lowest trust tier returned: quarantined records only when asked for');

export const RecallInput = z
  .object({
    query: z.string().min(1).max(1000).describe('words to look for (or a question, with vectors on)'),
    scope: Scope,
    branch: Branch.default('main').describe('with a session scope: the branch whose view to search'),
    k: z.number().int().min(1).max(MAX_K).default(10).describe('how many records at most'),
    kinds: z.array(z.enum(MEMORY_KINDS)).max(4).optional().describe('only records of these kinds'),
    tags: z.array(Tag).max(32).optional().describe('only records with all of these tags'),
    asOf: Millis.optional().describe('what was recorded by then (record time)'),
    minTrust: MinTrust,
    mode: z
      .enum(RECALL_MODES)
      .default('auto')
      .describe(
        'text (full text), vector, hybrid (both, fused by rank), auto: hybrid where vectors are on, else text',
      ),
  })
  .strict();

export const RecordInput = z.object({ record: MemoryIdSchema }).strict();
export const HistoryInput = RecordInput;
export const ForgetInput = z
  .object({
    record: MemoryIdSchema.describe('the record to forget (mr_…)'),
    derived: z.boolean().default(false).describe('also everything made from it, transitively'),
    preview: z.boolean().default(false).describe('list what would go; remove nothing'),
  })
  .strict();
export const ListInput = z
  .object({
    scope: Scope,
    branch: Branch.default('main').describe('with a session scope: the branch whose view to list'),
    limit: z.number().int().min(1).max(1000).default(100).describe('how many records at most'),
    minTrust: MinTrust,
  })
  .strict();

export const CarryInput = z
  .object({
    session: SessionIdSchema,
    from: Branch,
    to: Branch.describe('the branch that takes them (a kept fork’s parent)'),
  })
  .strict();
export const CarryAnswer = z.object({
  records: z.array(z.string()).describe('the records carried'),
  event: z.string().describe("the event on `to` that anchors them; '' when there was nothing to carry"),
});

export const DropBranchInput = z
  .object({
    session: SessionIdSchema,
    branch: Branch,
    keepFor: z.array(Branch).max(10_000).describe('the branches whose view stays: what they see is kept'),
  })
  .strict();

export const ReindexInput = z
  .object({
    limit: z.number().int().min(1).max(1000).default(200).describe('how many records to embed in this call'),
  })
  .strict();
export const ReindexAnswer = z.object({
  model: z.string(),
  indexed: z.number().int(),
  remaining: z.number().int().describe('records still without a vector in this model’s index'),
});

export type ValidRemember = z.output<typeof RememberInput>;
export type ValidRecall = z.output<typeof RecallInput>;
export type ValidRememberMany = z.output<typeof RememberManyInput>;
export type ValidForget = z.output<typeof ForgetInput>;
export type ValidList = z.output<typeof ListInput>;
export type MemoryScope = z.output<typeof Scope>;

// ---- answers -------------------------------------------------------------------------------------

export const Provenance = z.object({
  principal: z.string().describe('who wrote it'),
  source: z.enum(MEMORY_SOURCES),
  trust: z.enum(TRUST_TIERS),
  session: z.string().describe("the session it was written in; '' outside one"),
  branch: z.string(),
  event: z.string().describe("the log event that records the write; '' outside a session"),
  derivedFrom: z.array(z.string()),
});

export const MemoryRecord = z.object({
  id: z.string() as unknown as z.ZodType<MemoryId, MemoryId>,
  version: z.number().int(),
  kind: z.enum(MEMORY_KINDS),
  text: z.string(),
  data: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  scope: z.object({
    user: z.string().optional(),
    agent: z.string().optional(),
    project: z.string().optional(),
    session: z.string().optional(),
  }),
  provenance: Provenance,
  validFrom: z.number().int(),
  validTo: z.number().int().nullable(),
  recordedAt: z.number().int(),
});

export const RecallItem = MemoryRecord.extend({ score: z.number().describe('higher is better') });
export const RecallAnswer = z.object({ items: z.array(RecallItem) });
export const MemoryList = z.object({ items: z.array(MemoryRecord) });
export const ForgetAnswer = z.object({
  preview: z.boolean(),
  records: z.array(z.string()).describe('every record that goes (all its versions)'),
  versions: z.number().int(),
  indexEntries: z.number().int().describe('full-text entries removed with them'),
  vectorEntries: z.number().int().describe('vector index entries removed with them'),
  anchors: z.number().int(),
});

export type MemoryRecord = z.output<typeof MemoryRecord>;
export type RecallItem = z.output<typeof RecallItem>;
export type ForgetAnswer = z.output<typeof ForgetAnswer>;
