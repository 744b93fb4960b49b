/** The handlers of memory's operations (the contract: ./contract.ts). */
import { scanText } from '../desk/guard.js';
import { forbidden } from '../errors.js';
import * as branches from '../memory/branches.js';
import * as memory from '../memory/memory.js';
import * as found from '../memory/recall.js';
import type * as m from '../memory/schema.js';
import { embedTexts, indexMissing, noVectors, unindexed, vectorsOn } from '../memory/vectors.js';
import type { Handlers } from '../ops/op.js';
import { type OpContext, refuseAudited } from '../ops/op.js';
import { underPolicy } from '../redaction/apply.js';
import { addPii, type PiiCounts, type PiiRules, redactValue } from '../redaction/pii.js';
import { inSlices } from '../slices.js';
import type { MEMORY_CONTRACT } from './contract.js';

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

/**
 * The records with what the tenant's redaction policy names replaced in
 * their text and data, before anything is made of them (an embedding, the
 * index), and the counts over all of them (redaction/apply.ts checks the
 * policy again in the write).
 */
function redacted(
  rules: PiiRules | null,
  records: readonly m.ValidRemember[],
): { records: m.ValidRemember[]; pii: PiiCounts } {
  if (!rules) return { records: [...records], pii: {} };
  const pii: PiiCounts = {};
  const out = records.map((r) => {
    const text = redactValue(r.text, rules);
    const data = redactValue(r.data, rules);
    addPii(pii, text.counts);
    addPii(pii, data.counts);
    return { ...r, text: text.value as string, data: data.value as Record<string, unknown> };
  });
  return { records: out, pii };
}

/** Memory as a caller holds it: one method per operation below, embedded (`store.memory(who)`) or remote. */

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

export const MEMORY_HANDLERS: Handlers<typeof MEMORY_CONTRACT> = {
  remember: async (ctx, input) => {
    await refuseClaims(ctx, [input]);
    await refuseCredentials(input.text, input.data);
    return underPolicy(
      ctx.engine,
      ctx.who.tenant,
      ctx.write,
      async (rules) => {
        const { records, pii } = redacted(rules, [input]);
        const record = records[0] as m.ValidRemember;
        return { record, pii, vector: await vectorOf(ctx, record.text) };
      },
      (tx, now, { record, pii, vector }) =>
        memory.remember(tx, ctx.engine.dialect, ctx.who, record, now, ctx.memoryPolicy, vector, pii),
    );
  },
  rememberMany: async (ctx, input) => {
    await refuseClaims(ctx, input.records);
    await inSlices(input.records, (record) => refuseCredentials(record.text, record.data));
    const items = await underPolicy(
      ctx.engine,
      ctx.who.tenant,
      ctx.write,
      async (rules) => {
        const { records, pii } = redacted(rules, input.records);
        return {
          records,
          pii,
          vectors: await vectorsOf(
            ctx,
            records.map((r) => r.text),
          ),
        };
      },
      (tx, now, { records, pii, vectors }) =>
        memory.rememberMany(tx, ctx.engine.dialect, ctx.who, records, now, ctx.memoryPolicy, vectors, pii),
    );
    return { items };
  },
  recall: async (ctx, input) => {
    const vector = input.mode === 'text' ? undefined : await vectorOf(ctx, input.query);
    if (!vector && (input.mode === 'vector' || input.mode === 'hybrid')) throw noVectors(ctx.memoryEmbedding);
    return {
      items: await ctx.read((tx) => found.recall(tx, ctx.engine.dialect, ctx.who, input, vector)),
    };
  },
  listMemory: async (ctx, input) => ({
    items: await ctx.read((tx) => found.list(tx, ctx.engine.dialect, ctx.who, input)),
  }),
  getMemory: (ctx, input) => ctx.read((tx) => memory.getRecord(tx, ctx.who, input.record)),
  memoryHistory: async (ctx, input) => ({
    items: await ctx.read((tx) => memory.history(tx, ctx.who, input.record)),
  }),
  quarantineMemory: (ctx, input) =>
    ctx.write((tx, now) => memory.setTrust(tx, ctx.who, input.record, 'quarantined', now)),
  promoteMemory: (ctx, input) =>
    ctx.write((tx, now) => memory.setTrust(tx, ctx.who, input.record, 'trusted', now)),
  carryMemory: (ctx, input) =>
    ctx.write((tx, now) => branches.carry(tx, ctx.engine.dialect, ctx.who, input, now)),
  dropBranchMemory: (ctx, input) =>
    ctx.write((tx, now) => branches.dropBranch(tx, ctx.engine.dialect, ctx.who, input, now)),
  reindexMemory: async (ctx, input) => {
    const embedding = ctx.memoryEmbedding;
    if (!vectorsOn(embedding, ctx.engine.dialect, ctx.engine.capabilities)) throw noVectors(embedding);
    const { batch } = await ctx.read((tx) => unindexed(tx, ctx.who.tenant, embedding, input.limit));
    const vectors = await embedTexts(
      embedding,
      batch.map((b) => b.text),
    );
    // Indexed in one transaction; a version forgotten meanwhile is skipped, one indexed meanwhile is not doubled.
    return ctx.write(async (tx) => {
      let indexed = 0;
      for (const [i, b] of batch.entries())
        if (await indexMissing(tx, ctx.who.tenant, embedding, b.n, vectors[i]!)) indexed++;
      const { remaining } = await unindexed(tx, ctx.who.tenant, embedding, 0);
      return { model: embedding.model, indexed, remaining };
    });
  },
  forgetMemory: (ctx, input) =>
    input.preview
      ? ctx.read((tx) => memory.forget(tx, ctx.engine.dialect, ctx.who, input, Date.now()))
      : ctx.write((tx, now) => memory.forget(tx, ctx.engine.dialect, ctx.who, input, now)),
};
