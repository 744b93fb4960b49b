import { isUtf8 } from 'node:buffer';
import {
  type Entry,
  type EntryMap,
  type FileEntry,
  type ReadContent,
  sameContent,
  sameEntry,
} from './types.js';

/**
 * Differences between two snapshots' entry maps.
 *
 * - `added` / `removed`: the path exists on one side only (directories included).
 * - `modified`: same kind on both sides, different content (files: bytes, and
 *   possibly the exec bit too; symlinks: link text).
 * - `mode-changed`: a file with the same bytes whose exec bit flipped.
 * - `type-changed`: the path is a different kind on each side (file / dir / symlink).
 */
export type ChangeKind = 'added' | 'removed' | 'modified' | 'type-changed' | 'mode-changed';

export interface DiffItem {
  path: string;
  change: ChangeKind;
  before: Entry | null;
  after: Entry | null;
  /** unified diff for text files (when asked and both sides are text, or one side absent) */
  patch?: string;
  /** for binary or oversized content: sizes only */
  binary?: { before: number; after: number };
}

/** How far {@link isText} looks for a NUL byte (git's heuristic window). */
const SNIFF_BYTES = 8 * 1024;

/** Above this many bytes on either side {@link withPatches} reports sizes instead of a patch. */
export const DEFAULT_MAX_PATCH_BYTES = 1024 * 1024;

/** Paths compare in UTF-16 code-unit order, the same order tree objects use. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Text means: no NUL byte in the first 8 KiB, and the whole buffer is valid UTF-8. */
export function isText(bytes: Buffer): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return false;
  return isUtf8(bytes);
}

function classify(before: Entry | undefined, after: Entry | undefined): ChangeKind | null {
  if (before === undefined && after === undefined) return null;
  if (before === undefined) return 'added';
  if (after === undefined) return 'removed';
  if (sameEntry(before, after)) return null;
  if (before.kind !== after.kind) return 'type-changed';
  if (before.kind === 'file' && after.kind === 'file' && sameContent(before, after)) return 'mode-changed';
  return 'modified';
}

/**
 * Every path whose entry differs between `before` and `after`, sorted by path.
 * Metadata only: file contents are compared by chunk digests, never read.
 */
export function diffEntryMaps(before: EntryMap, after: EntryMap): DiffItem[] {
  const paths = new Set<string>([...before.keys(), ...after.keys()]);
  const items: DiffItem[] = [];
  for (const path of [...paths].sort(comparePaths)) {
    const b = before.get(path);
    const a = after.get(path);
    const change = classify(b, a);
    if (change === null) continue;
    items.push({ path, change, before: b ?? null, after: a ?? null });
  }
  return items;
}

/** One side of a patch: its header name and its text, or why there can be no text. */
type Side =
  | { kind: 'absent' }
  | { kind: 'text'; text: string; size: number }
  | { kind: 'opaque'; size: number };

async function loadSide(entry: Entry | null, read: ReadContent, maxBytes: number): Promise<Side | null> {
  if (entry === null) return { kind: 'absent' };
  if (entry.kind === 'dir') return null;
  if (entry.kind === 'symlink') {
    return { kind: 'text', text: entry.target, size: Buffer.byteLength(entry.target) };
  }
  return loadFile(entry, read, maxBytes);
}

async function loadFile(entry: FileEntry, read: ReadContent, maxBytes: number): Promise<Side> {
  if (entry.size > maxBytes) return { kind: 'opaque', size: entry.size };
  const bytes = await read(entry);
  if (!isText(bytes)) return { kind: 'opaque', size: bytes.length };
  return { kind: 'text', text: bytes.toString('utf8'), size: bytes.length };
}

function sizeOf(side: Side): number {
  return side.kind === 'absent' ? 0 : side.size;
}

async function addPatch(item: DiffItem, read: ReadContent, maxBytes: number): Promise<DiffItem> {
  // Dirs carry no content; a kind change or a mode flip has no line diff to show.
  if (item.change === 'type-changed' || item.change === 'mode-changed') return { ...item };
  const [before, after] = await Promise.all([
    loadSide(item.before, read, maxBytes),
    loadSide(item.after, read, maxBytes),
  ]);
  if (before === null || after === null) return { ...item };
  if (before.kind === 'opaque' || after.kind === 'opaque') {
    return { ...item, binary: { before: sizeOf(before), after: sizeOf(after) } };
  }
  const oldName = before.kind === 'absent' ? '/dev/null' : `a/${item.path}`;
  const newName = after.kind === 'absent' ? '/dev/null' : `b/${item.path}`;
  const oldText = before.kind === 'text' ? before.text : '';
  const newText = after.kind === 'text' ? after.text : '';
  // The diff library loads with the first patch: a desk that never diffs never loads it.
  const { createTwoFilesPatch, FILE_HEADERS_ONLY } = await import('diff');
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
    headerOptions: FILE_HEADERS_ONLY,
  });
  return { ...item, patch };
}

/**
 * Copies of `items` with content detail: a unified diff (`--- a/<path>` /
 * `+++ b/<path>`, `/dev/null` for an absent side, as git writes them) when
 * every present side is text of at most `maxBytes` (default 1 MiB), otherwise
 * `binary` with both sizes (0 for an absent side). Symlinks diff their link
 * text. Directories, `type-changed` and `mode-changed` items get neither.
 */
export async function withPatches(
  items: DiffItem[],
  read: ReadContent,
  options: { maxBytes?: number } = {},
): Promise<DiffItem[]> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PATCH_BYTES;
  const out: DiffItem[] = new Array(items.length);
  // A few reads in flight at once: enough to hide store latency, few enough to bound memory.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await addPatch(items[i]!, read, maxBytes);
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, items.length) }, worker));
  return out;
}
