/**
 * The desk's data model: a snapshot is a tree of entries. Paths are relative
 * to the workspace root, `/`-separated, never starting with `/` or holding
 * `.`/`..` segments; the root itself has no entry.
 */
export type EntryKind = 'file' | 'dir' | 'symlink';

export interface FileEntry {
  kind: 'file';
  path: string;
  size: number;
  /** The owner-executable bit (the only mode bit kept). */
  exec: boolean;
  /** Digests (sha256 hex) of the file's chunks, in order; empty for a zero-byte file. */
  chunks: string[];
}

export interface DirEntry {
  kind: 'dir';
  path: string;
}

export interface SymlinkEntry {
  kind: 'symlink';
  path: string;
  /** The link text, verbatim; it never resolves outside the workspace. */
  target: string;
}

export type Entry = FileEntry | DirEntry | SymlinkEntry;

/** A snapshot flattened: path → entry. */
export type EntryMap = Map<string, Entry>;

/** Reads a file entry's bytes from the store (chunks re-hashed on read). */
export type ReadContent = (entry: FileEntry) => Promise<Buffer>;

/** Two file entries hold the same bytes exactly when their chunk lists match (chunking is deterministic). */
export function sameContent(a: FileEntry, b: FileEntry): boolean {
  return (
    a.size === b.size && a.chunks.length === b.chunks.length && a.chunks.every((c, i) => c === b.chunks[i])
  );
}

/** Same kind, same content, same mode, same link text. */
export function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.exec === b.exec && sameContent(a, b);
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  return true;
}
