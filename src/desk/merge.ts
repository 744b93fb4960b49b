/*
 * Three-way merge of whole snapshot trees.
 *
 * Conflict markers use git's diff3 style, always with the base section
 * (empty for an add/add), each marker line ending with the file's line ending
 * (CRLF when ours — else theirs, else base — uses CRLF for its first line, LF otherwise):
 *
 *     <<<<<<< ours-label
 *     …ours' lines…
 *     ||||||| base
 *     …base lines…
 *     =======
 *     …theirs' lines…
 *     >>>>>>> theirs-label
 *
 * A conflicted side whose last line has no line ending gets one before the next marker.
 */
import { diff3Merge } from 'node-diff3';
import { comparePaths, isText } from './diff.js';
import {
  type Entry,
  type EntryMap,
  type FileEntry,
  type ReadContent,
  sameContent,
  sameEntry,
} from './types.js';

/** Whether text still holds a whole conflict block as `mergeText` writes it (the user has not resolved it). */
export function hasConflictMarkers(text: string): boolean {
  return /^<<<<<<< .*\r?\n[\s\S]*?^=======\r?\n[\s\S]*?^>>>>>>> /m.test(text);
}

export interface MergeConflict {
  path: string;
  reason: 'content' | 'modify-delete' | 'add-add' | 'type' | 'binary';
  /**
   * Each side as text: a file's bytes decoded as UTF-8, a symlink's link text;
   * null when the side is absent, a directory, or a file that is not text
   * (in which case `sizes` is set).
   */
  base: string | null;
  ours: string | null;
  theirs: string | null;
  /** Byte sizes of the three sides' files (null where the side is not a file); set when any file side is not text. */
  sizes?: { base: number | null; ours: number | null; theirs: number | null };
}

/** A file whose merged bytes exist in no input snapshot (a clean line merge, or text with conflict markers). */
export interface MergedFile {
  kind: 'file';
  path: string;
  exec: boolean;
  /** The new bytes to write. */
  content: Buffer;
}

export type MergedEntry = Entry | MergedFile;

export interface TreeMerge {
  /** The merged tree, sorted by path; every entry's parent is a 'dir' entry. */
  entries: Map<string, MergedEntry>;
  conflicts: MergeConflict[];
  /** paths whose entry differs from ours */
  changed: string[];
}

export function isMergedFile(entry: MergedEntry): entry is MergedFile {
  return 'content' in entry;
}

const BASE_LABEL = 'base';

type Maybe = Entry | undefined;

function same(a: Maybe, b: Maybe): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameEntry(a, b);
}

/** Lines with their terminators kept, so joining them gives back the exact text (CRLF, missing final newline). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function eolOf(...texts: (string | null)[]): string {
  for (const text of texts) {
    if (text === null) continue;
    const nl = text.indexOf('\n');
    if (nl >= 0) return nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
  }
  return '\n';
}

/**
 * diff3 line merge. `base` null means both sides added the file (an empty base).
 * Clean merges are the exact concatenation of input lines, so bytes round trip.
 */
export function mergeText(
  base: string | null,
  ours: string,
  theirs: string,
  labels: { ours: string; theirs: string },
): { text: string; conflict: boolean } {
  const eol = eolOf(ours, theirs, base);
  const section = (lines: string[]): string => {
    const text = lines.join('');
    return text === '' || text.endsWith('\n') ? text : text + eol;
  };
  const regions = diff3Merge<string>(splitLines(ours), splitLines(base ?? ''), splitLines(theirs), {
    excludeFalseConflicts: true,
  });
  let text = '';
  let conflict = false;
  for (const region of regions) {
    if (region.ok) {
      text += region.ok.join('');
    } else if (region.conflict) {
      conflict = true;
      text +=
        `<<<<<<< ${labels.ours}${eol}${section(region.conflict.a)}` +
        `||||||| ${BASE_LABEL}${eol}${section(region.conflict.o)}` +
        `=======${eol}${section(region.conflict.b)}` +
        `>>>>>>> ${labels.theirs}${eol}`;
    }
  }
  return { text, conflict };
}

/** A side as the conflict record shows it. */
interface Shown {
  text: string | null;
  /** File size, when the side is a file. */
  size: number | null;
  binary: boolean;
}

async function show(entry: Maybe, read: ReadContent): Promise<Shown> {
  if (entry === undefined || entry.kind === 'dir') return { text: null, size: null, binary: false };
  if (entry.kind === 'symlink') return { text: entry.target, size: null, binary: false };
  const bytes = await read(entry);
  if (!isText(bytes)) return { text: null, size: bytes.length, binary: true };
  return { text: bytes.toString('utf8'), size: bytes.length, binary: false };
}

async function conflictRecord(
  path: string,
  reason: MergeConflict['reason'],
  sides: { base: Maybe; ours: Maybe; theirs: Maybe },
  read: ReadContent,
): Promise<MergeConflict> {
  const [b, o, t] = await Promise.all([
    show(sides.base, read),
    show(sides.ours, read),
    show(sides.theirs, read),
  ]);
  const record: MergeConflict = { path, reason, base: b.text, ours: o.text, theirs: t.text };
  if (b.binary || o.binary || t.binary) record.sizes = { base: b.size, ours: o.size, theirs: t.size };
  return record;
}

interface PathMerge {
  entry: MergedEntry | undefined;
  conflict?: MergeConflict;
}

/** Both sides changed a file's content differently (base: the base file, if the base had a file here). */
async function mergeFiles(
  path: string,
  base: Maybe,
  ours: FileEntry,
  theirs: FileEntry,
  read: ReadContent,
  labels: { ours: string; theirs: string },
): Promise<PathMerge> {
  const baseFile = base?.kind === 'file' ? base : undefined;
  // The exec bit: one side's flip wins; with no base file to compare, ours.
  const exec = baseFile === undefined || ours.exec !== baseFile.exec ? ours.exec : theirs.exec;
  const withExec = (f: FileEntry): FileEntry => (f.exec === exec ? f : { ...f, exec });

  if (sameContent(ours, theirs)) {
    if (baseFile === undefined && ours.exec !== theirs.exec) {
      // Both added the same bytes with different modes: nothing says which mode is right.
      const conflict = await conflictRecord(path, 'add-add', { base, ours, theirs }, read);
      return { entry: ours, conflict };
    }
    return { entry: withExec(ours) };
  }
  if (baseFile !== undefined && sameContent(baseFile, ours)) return { entry: withExec(theirs) };
  if (baseFile !== undefined && sameContent(baseFile, theirs)) return { entry: withExec(ours) };

  const [b, o, t] = await Promise.all([
    baseFile === undefined ? Promise.resolve(null) : read(baseFile),
    read(ours),
    read(theirs),
  ]);
  const addAdd = baseFile === undefined;
  if ((b !== null && !isText(b)) || !isText(o) || !isText(t)) {
    const conflict: MergeConflict = {
      path,
      reason: addAdd ? 'add-add' : 'binary',
      base: null,
      ours: null,
      theirs: null,
      sizes: { base: b === null ? null : b.length, ours: o.length, theirs: t.length },
    };
    if (b !== null && isText(b)) conflict.base = b.toString('utf8');
    if (isText(o)) conflict.ours = o.toString('utf8');
    if (isText(t)) conflict.theirs = t.toString('utf8');
    return { entry: ours, conflict };
  }
  const baseText = b === null ? null : b.toString('utf8');
  const oursText = o.toString('utf8');
  const theirsText = t.toString('utf8');
  const merged = mergeText(baseText, oursText, theirsText, labels);
  const content = Buffer.from(merged.text, 'utf8');
  let entry: MergedEntry;
  if (content.equals(o)) entry = withExec(ours);
  else if (content.equals(t)) entry = withExec(theirs);
  else entry = { kind: 'file', path, exec, content };
  if (!merged.conflict) return { entry };
  return {
    entry,
    conflict: {
      path,
      reason: addAdd ? 'add-add' : 'content',
      base: baseText,
      ours: oursText,
      theirs: theirsText,
    },
  };
}

async function mergePath(
  path: string,
  base: Maybe,
  ours: Maybe,
  theirs: Maybe,
  read: ReadContent,
  labels: { ours: string; theirs: string },
): Promise<PathMerge> {
  if (same(ours, theirs)) return { entry: ours };
  if (same(base, ours)) return { entry: theirs };
  if (same(base, theirs)) return { entry: ours };
  // Both sides changed this path, differently.
  const sides = { base, ours, theirs };
  if (ours === undefined || theirs === undefined) {
    const kept = ours ?? theirs;
    return { entry: kept, conflict: await conflictRecord(path, 'modify-delete', sides, read) };
  }
  if (ours.kind !== theirs.kind) {
    return { entry: ours, conflict: await conflictRecord(path, 'type', sides, read) };
  }
  if (ours.kind === 'file' && theirs.kind === 'file') {
    return mergeFiles(path, base, ours, theirs, read, labels);
  }
  // Two symlinks with different link text (two dirs are always the same entry).
  const reason = base?.kind === ours.kind ? 'content' : 'add-add';
  return { entry: ours, conflict: await conflictRecord(path, reason, sides, read) };
}

function parentsOf(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

/**
 * Make the merged tree consistent: every entry's ancestors must be 'dir'
 * entries. A missing ancestor (a dir one side removed while the other added
 * or kept changed files inside) comes back as a dir. An ancestor that merged
 * to a file or symlink is a file/directory clash, resolved toward ours: if ours
 * has a dir there, the dir stays; otherwise ours' entry stays and the entries
 * beneath it (theirs alone) go. Either way a 'type' conflict is recorded.
 */
async function repairTree(
  merged: Map<string, MergedEntry>,
  conflicts: Map<string, MergeConflict>,
  sides: { base: EntryMap; ours: EntryMap; theirs: EntryMap },
  read: ReadContent,
): Promise<void> {
  const clash = async (path: string): Promise<void> => {
    if (conflicts.get(path)?.reason === 'type') return;
    const record = await conflictRecord(
      path,
      'type',
      { base: sides.base.get(path), ours: sides.ours.get(path), theirs: sides.theirs.get(path) },
      read,
    );
    conflicts.set(path, record);
  };
  for (const path of [...merged.keys()].sort(comparePaths)) {
    if (!merged.has(path)) continue; // dropped below an ancestor already
    for (const parent of parentsOf(path)) {
      const entry = merged.get(parent);
      if (entry === undefined) {
        merged.set(parent, { kind: 'dir', path: parent });
        continue;
      }
      if (entry.kind === 'dir') continue;
      await clash(parent);
      if (sides.ours.get(parent)?.kind === 'dir') {
        merged.set(parent, { kind: 'dir', path: parent });
        continue;
      }
      merged.delete(path);
      break;
    }
  }
}

/**
 * Three-way merge of `ours` and `theirs` against their common ancestor `base`.
 *
 * Per path: a side that left the path as in base takes the other side's
 * version; equal changes merge to that change; the exec bit takes a one-sided
 * flip; two different text edits line-merge with diff3 (see the marker style
 * above); otherwise the path is a conflict: 'modify-delete' (the surviving
 * side is kept), 'add-add' (text: markers over an empty base; else ours is
 * kept), 'type' (ours is kept), 'binary' (ours is kept) or 'content' (text
 * with markers; two symlinks: ours). Then the tree is made consistent (see
 * repairTree): removed dirs come back when something inside survives.
 */
export async function mergeTrees(
  base: EntryMap,
  ours: EntryMap,
  theirs: EntryMap,
  read: ReadContent,
  labels: { ours: string; theirs: string } = { ours: 'ours', theirs: 'theirs' },
): Promise<TreeMerge> {
  const paths = [...new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])].sort(comparePaths);
  const merged = new Map<string, MergedEntry>();
  const conflicts = new Map<string, MergeConflict>();
  for (const path of paths) {
    const result = await mergePath(path, base.get(path), ours.get(path), theirs.get(path), read, labels);
    if (result.entry !== undefined) merged.set(path, result.entry);
    if (result.conflict !== undefined) conflicts.set(path, result.conflict);
  }
  await repairTree(merged, conflicts, { base, ours, theirs }, read);

  const entries = new Map<string, MergedEntry>();
  for (const path of [...merged.keys()].sort(comparePaths)) entries.set(path, merged.get(path)!);
  const changed: string[] = [];
  for (const path of [...new Set([...entries.keys(), ...ours.keys()])].sort(comparePaths)) {
    const mine = ours.get(path);
    const next = entries.get(path);
    if (next === undefined || mine === undefined) {
      if (next !== mine) changed.push(path);
    } else if (isMergedFile(next) || !sameEntry(next, mine)) {
      changed.push(path);
    }
  }
  const conflictList = [...conflicts.values()].sort((a, b) => comparePaths(a.path, b.path));
  return { entries, conflicts: conflictList, changed };
}
