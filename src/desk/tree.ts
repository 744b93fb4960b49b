import { type CairnError, corrupt } from '../errors.js';
import { digestOf } from './chunker.js';

/**
 * Tree objects (format v1): one per directory, the JSON text of
 * `{"v":1,"e":[…]}` with entries sorted by name (UTF-16 code-unit order):
 *   [name, "f", size, exec 0|1, [chunk digests]]            (+ `, 1` when redacted)
 *   [name, "d", tree digest, files below, bytes below]      (+ `, n` redacted files below, n > 0)
 *   [name, "l", link text]
 * A redacted file is the stored copy of a file whose secret spans the guard
 * overwrote (docs/design/desk.md); the marker lets every restore and fork say so.
 * A tree's digest is the sha256 of that text, so equal directories share one
 * object and an unchanged subtree is never rewritten.
 */
export type TreeItem =
  | { name: string; kind: 'file'; size: number; exec: boolean; chunks: string[]; redacted?: boolean }
  | { name: string; kind: 'dir'; tree: string; files: number; bytes: number; redacted?: number }
  | { name: string; kind: 'symlink'; target: string };

const DIGEST = /^[0-9a-f]{64}$/;

export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function encodeTree(items: TreeItem[]): { digest: string; bytes: Buffer } {
  const sorted = [...items].sort(byName);
  const e = sorted.map((item) => {
    if (item.kind === 'file') {
      const entry = [item.name, 'f', item.size, item.exec ? 1 : 0, item.chunks];
      return item.redacted ? [...entry, 1] : entry;
    }
    if (item.kind === 'dir') {
      const entry = [item.name, 'd', item.tree, item.files, item.bytes];
      return item.redacted ? [...entry, item.redacted] : entry;
    }
    return [item.name, 'l', item.target];
  });
  const bytes = Buffer.from(JSON.stringify({ v: 1, e }));
  return { digest: digestOf(bytes), bytes };
}

export const EMPTY_TREE = encodeTree([]);

/** The longest name of one entry and the longest path a snapshot holds, in UTF-8 bytes (Linux's NAME_MAX, PATH_MAX). */
export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4096;

/**
 * A name one directory entry may have: no separators, not `.`/`..`, no NUL,
 * at most 255 bytes. Every tree is decoded through it, and a pack from
 * outside the store is refused when one of its trees is not (verifyPack).
 */
export function validName(name: string): boolean {
  return (
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\0') &&
    Buffer.byteLength(name, 'utf8') <= MAX_NAME_BYTES
  );
}

function malformedTree(digest: string, why: string): CairnError {
  return corrupt(`desk tree ${digest} is malformed (${why}): restore the store from a backup`, {
    digest,
  });
}

export function decodeTree(digest: string, bytes: Buffer): TreeItem[] {
  let doc: { v?: unknown; e?: unknown };
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformedTree(digest, 'not JSON');
  }
  if (doc.v !== 1 || !Array.isArray(doc.e)) throw malformedTree(digest, 'not a v1 tree');
  const items: TreeItem[] = [];
  let previous: string | null = null;
  for (const raw of doc.e as unknown[]) {
    if (!Array.isArray(raw) || typeof raw[0] !== 'string' || !validName(raw[0]))
      throw malformedTree(digest, 'bad entry name');
    const name = raw[0];
    if (previous !== null && !(previous < name)) throw malformedTree(digest, 'entries out of order');
    previous = name;
    if (
      raw[1] === 'f' &&
      Number.isSafeInteger(raw[2]) &&
      (raw[3] === 0 || raw[3] === 1) &&
      Array.isArray(raw[4]) &&
      (raw.length === 5 || (raw.length === 6 && raw[5] === 1))
    ) {
      const chunks = raw[4] as unknown[];
      if (!chunks.every((c) => typeof c === 'string' && DIGEST.test(c)))
        throw malformedTree(digest, `bad chunk list for ${name}`);
      items.push({
        name,
        kind: 'file',
        size: raw[2] as number,
        exec: raw[3] === 1,
        chunks: chunks as string[],
        ...(raw[5] === 1 ? { redacted: true } : {}),
      });
    } else if (
      raw[1] === 'd' &&
      typeof raw[2] === 'string' &&
      DIGEST.test(raw[2]) &&
      Number.isSafeInteger(raw[3]) &&
      Number.isSafeInteger(raw[4]) &&
      (raw.length === 5 || (raw.length === 6 && Number.isSafeInteger(raw[5]) && (raw[5] as number) > 0))
    ) {
      const redacted = raw.length === 6 ? { redacted: raw[5] as number } : {};
      items.push({
        name,
        kind: 'dir',
        tree: raw[2],
        files: raw[3] as number,
        bytes: raw[4] as number,
        ...redacted,
      });
    } else if (raw[1] === 'l' && typeof raw[2] === 'string') {
      items.push({ name, kind: 'symlink', target: raw[2] });
    } else {
      throw malformedTree(digest, `bad entry ${name}`);
    }
  }
  return items;
}
