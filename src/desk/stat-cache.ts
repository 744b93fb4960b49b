import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomHex } from '../ids.js';
import type { DirNode, Node, StatKey } from './model.js';

/**
 * The stat cache on disk: a workspace's model (as far as it was loaded) with
 * the stat data of each file when it was hashed, tied to the head snapshot it
 * describes. It is only a cache: written without fsync, ignored when it names
 * another snapshot or does not parse, and then files are simply re-read.
 */
type StatTuple = [number, number, number, number, number, 0 | 1];
type Stored =
  | { k: 'f'; s: number; x: 0 | 1; h: string[]; st: StatTuple | null; r?: 1 }
  | { k: 'l'; t: string; st: StatTuple | null }
  | { k: 'd'; t: string; f: number; b: number; c: Record<string, Stored> | null; r?: number };

function packStat(st: StatKey | null): StatTuple | null {
  return st ? [st.ino, st.size, st.mtimeMs, st.ctimeMs, st.mode, st.racy ? 1 : 0] : null;
}

function unpackStat(t: StatTuple | null): StatKey | null {
  return t ? { ino: t[0], size: t[1], mtimeMs: t[2], ctimeMs: t[3], mode: t[4], racy: t[5] === 1 } : null;
}

function store(node: Node): Stored {
  if (node.kind === 'file') {
    const stored: Stored = {
      k: 'f',
      s: node.size,
      x: node.exec ? 1 : 0,
      h: node.chunks,
      st: packStat(node.stat),
    };
    if (node.redacted) stored.r = 1;
    return stored;
  }
  if (node.kind === 'symlink') return { k: 'l', t: node.target, st: packStat(node.stat) };
  let c: Record<string, Stored> | null = null;
  if (node.children) {
    c = {};
    for (const [name, child] of node.children) c[name] = store(child);
  }
  const dir: Stored = { k: 'd', t: node.tree as string, f: node.files, b: node.bytes, c };
  if (node.redacted) dir.r = node.redacted;
  return dir;
}

function load(s: Stored): Node {
  if (s.k === 'f') {
    const file: Node = { kind: 'file', size: s.s, exec: s.x === 1, chunks: s.h, stat: unpackStat(s.st) };
    if (s.r === 1) file.redacted = true;
    return file;
  }
  if (s.k === 'l') return { kind: 'symlink', target: s.t, stat: unpackStat(s.st) };
  let children: Map<string, Node> | null = null;
  if (s.c) {
    children = new Map();
    for (const [name, child] of Object.entries(s.c)) children.set(name, load(child));
  }
  const dir: Node = { kind: 'dir', tree: s.t, files: s.f, bytes: s.b, children };
  if (s.r) dir.redacted = s.r;
  return dir;
}

/** Saves a sealed model (every directory digest known) for the given head snapshot. */
export function saveStatCache(path: string, snapshot: string, root: DirNode): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${randomHex(6)}`;
  writeFileSync(temp, JSON.stringify({ v: 1, snapshot, root: store(root) }));
  renameSync(temp, path);
}

/** The cached model for `snapshot`, or null when there is none for it. */
export function loadStatCache(path: string, snapshot: string): DirNode | null {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { v: number; snapshot: string; root: Stored };
    if (doc.v !== 1 || doc.snapshot !== snapshot || doc.root.k !== 'd') return null;
    return load(doc.root) as DirNode;
  } catch {
    return null;
  }
}
