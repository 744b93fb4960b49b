/** What the audit log's operations answer, as zod schemas. */
import { z } from 'zod';

export const AuditBreak = z.object({ seq: z.number().int(), reason: z.string() });

export const AuditReport = z.object({
  tenant: z.string(),
  ok: z.boolean(),
  entries: z.number().int(),
  events: z.number().int(),
  erased: z.number().int().describe('entries whose payload was erased, each named by a signed tombstone'),
  firstBreak: AuditBreak.nullable().describe('the first broken link, when `ok` is false'),
});

const Hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('a SHA-256 hash, hex');
const Size = z.number().int().min(0).describe('a tree size: how many entries, numbered from 0');

export const AuditCheckpoint = z.object({
  size: Size,
  root: Hash.describe('the root hash of the tree of `size` entries, hex'),
  at: z.number().int().describe('when it was signed, ms since the epoch'),
  note: z
    .string()
    .describe(
      'the checkpoint as a C2SP signed note: origin, size, base64 root, time; then its Ed25519 signature line',
    ),
});

export const InclusionProof = z.object({
  index: z.number().int().min(0).describe('the entry, numbered from 0'),
  size: Size,
  entry: z
    .string()
    .describe('the entry as the tree hashes it: RFC 8785 JSON, whose leaf hash is SHA-256(0x00 ‖ entry)'),
  leafHash: Hash,
  root: Hash.describe('the root of the tree of `size` entries'),
  path: z.array(Hash).describe('the audit path, leaf to root (RFC 9162 §2.1.3)'),
  tlogProof: z
    .string()
    .nullable()
    .describe(
      'the same proof as a C2SP tlog-proof (c2sp.org/tlog-proof@v1; `extra` holds the entry), with the signed checkpoint of `size`; null when no checkpoint was signed at that size',
    ),
});

export const ConsistencyProof = z.object({
  from: Size,
  to: Size,
  fromRoot: Hash,
  toRoot: Hash,
  path: z.array(Hash).describe('the consistency path (RFC 9162 §2.1.4)'),
});

export const AuditPublicKey = z.object({
  name: z.string().describe('the key name its signature lines carry'),
  algorithm: z.literal('Ed25519'),
  publicKey: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('the Ed25519 public key, hex'),
  verifierKey: z.string().describe('the note verifier key: name+keyid+base64(0x01 ‖ public key)'),
});
