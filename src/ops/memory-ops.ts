/**
 * Memory's operations (docs/design/memory.md). Recall is a tool the agent
 * calls — nothing is put into its context unasked. A record's text is
 * checked by the desk's secret guard before anything is written: a
 * credential never enters memory.
 */
import { scanText } from '../desk/guard.js';
import { forbidden } from '../errors.js';
import * as branches from '../memory/branches.js';
import * as memory from '../memory/memory.js';
import * as found from '../memory/recall.js';
import * as m from '../memory/schema.js';
import { embedTexts, indexMissing, noVectors, unindexed, vectorsOn } from '../memory/vectors.js';
import { inSlices } from '../slices.js';
import { type Client, type OpContext, op, refuseAudited } from './op.js';

/** Refuses text (or data) that holds what the secret guard takes for a credential; names rule and line only. */
async function refuseCredentials(text: string, data: Record<string, unknown>): Promise<void> {
  const findings = [
    ...(await scanText(text, 'memory.txt')),
    ...(Object.keys(data).length > 0 ? await scanText(JSON.stringify(data), 'memory.json') : []),
  ];
  if (findings.length === 0) return;
  throw forbidden(
    `this memory holds what looks like a credential (${findings
      .slice(0, 3)
      .map((f) => `${f.rule}, line ${f.line}`)
      .join(
        '; ',
      )}): credentials never enter memory — keep them in the vault (\`cairn cred add\`) and remember where they are, not what they are`,
    { findings: findings.map((f) => ({ rule: f.rule, line: f.line })) },
  );
}

/** Refuses, audited, a record whose source its writer may not name (an agent's claim to be a person). */
async function refuseClaims(ctx: OpContext, records: readonly m.ValidRemember[]): Promise<void> {
  for (const record of records) {
    const refused = memory.claimRefusal(ctx.who, record);
    if (refused)
      await refuseAudited(
        ctx,
        {
          action: 'memory.claim.refused',
          resourceType: 'memory',
          resourceId: ctx.who.principal,
          payload: { source: record.source, kind: ctx.who.kind },
        },
        refused,
      );
  }
}

/** Memory as a caller holds it: one method per operation below, embedded (`store.memory(who)`) or remote. */
export type Memory = Client<typeof MEMORY_OPS>;

/** The vectors of texts when vectors are on here (embedded before the transaction, in one call), else undefined each. */
async function vectorsOf(
  ctx: OpContext,
  texts: readonly string[],
): Promise<(found.QueryVector | undefined)[]> {
  const embedding = ctx.memoryEmbedding;
  if (!vectorsOn(embedding, ctx.engine.dialect, ctx.engine.capabilities)) return texts.map(() => undefined);
  return (await embedTexts(embedding, texts)).map((bytes) => ({ embedding, bytes }));
}

const vectorOf = async (ctx: OpContext, text: string) => (await vectorsOf(ctx, [text]))[0];

export const MEMORY_OPS = {
  remember: op({
    name: 'remember',
    mcp: 'remember',
    summary:
      'Remember a record in a scope (user, agent, project, session), with its kind, source and what it was made from; credentials are refused',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.RememberInput,
    mcpInput: m.AgentRememberInput,
    output: m.MemoryRecord,
    http: { method: 'POST', path: '/v1/memory', status: 201 },
    run: async (ctx, input) => {
      await refuseClaims(ctx, [input]);
      await refuseCredentials(input.text, input.data);
      const vector = await vectorOf(ctx, input.text);
      return ctx.write('memory.write', (tx, now) =>
        memory.remember(tx, ctx.engine.dialect, ctx.who, input, now, ctx.memoryPolicy, vector),
      );
    },
  }),
  rememberMany: op({
    name: 'rememberMany',
    summary:
      'Remember up to 1,000 records (1 Mi characters of text and data) in one write, all or none, each checked as remember checks it (one audit entry lists them)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.RememberManyInput,
    output: m.MemoryList,
    http: { method: 'POST', path: '/v1/memory/batch', status: 201, maxBodyBytes: 2 * 1024 * 1024 },
    run: async (ctx, input) => {
      await refuseClaims(ctx, input.records);
      await inSlices(input.records, (record) => refuseCredentials(record.text, record.data));
      const vectors = await vectorsOf(
        ctx,
        input.records.map((r) => r.text),
      );
      const items = await ctx.write('memory.write', (tx, now) =>
        memory.rememberMany(tx, ctx.engine.dialect, ctx.who, input.records, now, ctx.memoryPolicy, vectors),
      );
      return { items };
    },
  }),
  recall: op({
    name: 'recall',
    mcp: 'recall',
    summary:
      'Recall records of a scope ranked by how well they match the query, with score and provenance; quarantined ones only with minTrust quarantined',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: m.RecallInput,
    output: m.RecallAnswer,
    http: { method: 'POST', path: '/v1/memory/recall' },
    run: async (ctx, input) => {
      const vector = input.mode === 'text' ? undefined : await vectorOf(ctx, input.query);
      if (!vector && (input.mode === 'vector' || input.mode === 'hybrid'))
        throw noVectors(ctx.memoryEmbedding);
      return {
        items: await ctx.read('memory.read', (tx) =>
          found.recall(tx, ctx.engine.dialect, ctx.who, input, vector),
        ),
      };
    },
  }),
  listMemory: op({
    name: 'listMemory',
    summary: 'The current records of a scope, newest first; quarantined ones only with minTrust quarantined',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: m.ListInput,
    output: m.MemoryList,
    http: { method: 'POST', path: '/v1/memory/list' },
    run: async (ctx, input) => ({
      items: await ctx.read('memory.read', (tx) => found.list(tx, ctx.engine.dialect, ctx.who, input)),
    }),
  }),
  getMemory: op({
    name: 'getMemory',
    summary: 'A record’s newest version, with its provenance',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: m.RecordInput,
    output: m.MemoryRecord,
    http: { method: 'GET', path: '/v1/memory/{record}' },
    run: (ctx, input) => ctx.read('memory.read', (tx) => memory.getRecord(tx, ctx.who, input.record)),
  }),
  memoryHistory: op({
    name: 'memoryHistory',
    summary: 'Every version of a record, oldest first (record time and world time each)',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: m.HistoryInput,
    output: m.MemoryList,
    http: { method: 'GET', path: '/v1/memory/{record}/history' },
    run: async (ctx, input) => ({
      items: await ctx.read('memory.read', (tx) => memory.history(tx, ctx.who, input.record)),
    }),
  }),
  quarantineMemory: op({
    name: 'quarantineMemory',
    summary: 'Quarantine a record: recall leaves it out unless asked for quarantined records',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.RecordInput,
    output: m.MemoryRecord,
    http: { method: 'POST', path: '/v1/memory/{record}/quarantine' },
    run: (ctx, input) =>
      ctx.write('memory.write', (tx, now) => memory.setTrust(tx, ctx.who, input.record, 'quarantined', now)),
  }),
  // Not an MCP tool: trusting a record is a person's decision.
  promoteMemory: op({
    name: 'promoteMemory',
    summary: 'Mark a record trusted (a person only: a user principal)',
    effect: 'write',
    callers: 'person',
    runs: 'anywhere',
    input: m.RecordInput,
    output: m.MemoryRecord,
    http: { method: 'POST', path: '/v1/memory/{record}/promote' },
    run: (ctx, input) =>
      ctx.write('memory.write', (tx, now) => memory.setTrust(tx, ctx.who, input.record, 'trusted', now)),
  }),
  carryMemory: op({
    name: 'carryMemory',
    summary:
      "Carry a branch's memory to another branch of its session (a kept fork's records become its parent's, from a new event on it)",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.CarryInput,
    output: m.CarryAnswer,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{from}/memory/carry' },
    run: (ctx, input) =>
      ctx.write('memory.write', (tx, now) => branches.carry(tx, ctx.engine.dialect, ctx.who, input, now)),
  }),
  dropBranchMemory: op({
    name: 'dropBranchMemory',
    summary:
      'Forget what an abandoned branch remembered: every record of the session seen on it and on none of keepFor',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.DropBranchInput,
    output: m.ForgetAnswer,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/memory/drop' },
    run: (ctx, input) =>
      ctx.write('memory.write', (tx, now) =>
        branches.dropBranch(tx, ctx.engine.dialect, ctx.who, input, now),
      ),
  }),
  reindexMemory: op({
    name: 'reindexMemory',
    summary:
      "Embed up to `limit` records that have no vector in the current model's index (after a model change); run until remaining is 0, the old model's index answering meanwhile",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.ReindexInput,
    output: m.ReindexAnswer,
    http: { method: 'POST', path: '/v1/memory/reindex' },
    run: async (ctx, input) => {
      const embedding = ctx.memoryEmbedding;
      if (!vectorsOn(embedding, ctx.engine.dialect, ctx.engine.capabilities)) throw noVectors(embedding);
      const { batch } = await ctx.read('memory.read', (tx) =>
        unindexed(tx, ctx.who.tenant, embedding, input.limit),
      );
      const vectors = await embedTexts(
        embedding,
        batch.map((b) => b.text),
      );
      // Indexed in one transaction; a version forgotten meanwhile is skipped, one indexed meanwhile is not doubled.
      return ctx.write('memory.write', async (tx) => {
        let indexed = 0;
        for (const [i, b] of batch.entries())
          if (await indexMissing(tx, ctx.who.tenant, embedding, b.n, vectors[i]!)) indexed++;
        const { remaining } = await unindexed(tx, ctx.who.tenant, embedding, 0);
        return { model: embedding.model, indexed, remaining };
      });
    },
  }),
  forgetMemory: op({
    name: 'forgetMemory',
    mcp: 'forget',
    summary:
      'Forget a record — every version, its index entries — and with derived everything made from it; preview lists what would go',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: m.ForgetInput,
    output: m.ForgetAnswer,
    http: { method: 'POST', path: '/v1/memory/{record}/forget' },
    run: (ctx, input) =>
      input.preview
        ? ctx.read('memory.read', (tx) => memory.forget(tx, ctx.engine.dialect, ctx.who, input, Date.now()))
        : ctx.write('memory.write', (tx, now) => memory.forget(tx, ctx.engine.dialect, ctx.who, input, now)),
  }),
};
