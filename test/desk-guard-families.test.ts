/**
 * The guard's families beyond a token on one line (issue 19): base64 and hex
 * values decoded (Kubernetes `data:`, `.dockerconfigjson`), JWTs and
 * kubeconfig bearer tokens, Cairn's own master key as `cred keygen` prints
 * it, Cairn's token and handle formats, credentials split across adjacent
 * lines, and hidden characters (zero-width, full-width) — each found by
 * `scanFile`, with look-alikes of each family that must stay clean.
 */
import { describe, expect, it } from 'vitest';
import { scanFile } from '../src/desk/guard.js';
import { familySamples, lookAlikes } from './support/guard-corpus.js';

const scan = async (path: string, text: string | Buffer) =>
  scanFile(path, typeof text === 'string' ? Buffer.from(text, 'utf8') : text);

describe('guard families: found', () => {
  for (const sample of familySamples()) {
    it(`${sample.family}: ${sample.name}`, async () => {
      const findings = await scan(sample.path, sample.content);
      expect(findings.length, `${sample.name} was not found`).toBeGreaterThan(0);
      expect(findings.some((f) => f.confidence === 'high')).toBe(true);
      // A finding holds no part of the secret.
      expect(JSON.stringify(findings)).not.toContain(sample.needle);
    });
  }
});

describe('guard families: look-alikes pass', () => {
  for (const sample of lookAlikes()) {
    it(`${sample.family}: ${sample.name}`, async () => {
      expect(await scan(sample.path, sample.content)).toEqual([]);
    });
  }
});
