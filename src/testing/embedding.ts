/**
 * A deterministic embedding function for tests and benchmarks (no model, no
 * download): feature hashing of a text's words and character trigrams into
 * `dimensions` buckets, L2-normalised. Texts that share words or word parts
 * land near each other, so `refunds` is near `refund` — enough to exercise
 * vector and hybrid recall; it knows nothing of meaning.
 */
import { createHash } from 'node:crypto';
import type { EmbeddingFunction } from '../memory/vectors.js';

function bucket(feature: string, dimensions: number): { index: number; sign: number } {
  const digest = createHash('sha256').update(feature).digest();
  return { index: digest.readUInt32BE(0) % dimensions, sign: digest[4]! & 1 ? 1 : -1 };
}

export function hashingEmbedding(dimensions = 384, model = `cairn-hashing-${dimensions}`): EmbeddingFunction {
  const embedOne = (text: string): Float32Array => {
    const vector = new Float32Array(dimensions);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const add = (feature: string, weight: number) => {
        const { index, sign } = bucket(feature, dimensions);
        vector[index] = (vector[index] ?? 0) + sign * weight;
      };
      add(`w:${word}`, 1);
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5);
    }
    const norm = Math.hypot(...vector) || 1;
    for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] ?? 0) / norm;
    return vector;
  };
  return { model, dimensions, embed: async (texts) => texts.map(embedOne) };
}
