// The raw-SQLite baselines: better-sqlite3 straight, no Cairn, on a table
// shaped like Cairn's events table (same columns and keys).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export function openRawDb(dir, name = 'raw.db') {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    tenant TEXT NOT NULL, id TEXT NOT NULL, session TEXT NOT NULL, branch TEXT NOT NULL, line TEXT NOT NULL,
    seq INTEGER NOT NULL, parent TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, actor TEXT NOT NULL,
    owner TEXT NOT NULL, at INTEGER NOT NULL, idem_key TEXT,
    PRIMARY KEY (tenant, id), UNIQUE (tenant, line, seq))`);
  return db;
}

// Time-ordered like Cairn's ids (time prefix, then random), so inserts land at the index's right edge.
const fakeId = (prefix) =>
  `${prefix}_${Date.now().toString(32).padStart(10, '0')}${randomBytes(8).toString('hex').slice(0, 16)}`;

/** Returns a function producing event rows of about `payloadText`'s size, in one line. */
export function rowMaker(payloadText) {
  const tenant = fakeId('tn');
  const session = fakeId('ss');
  const line = fakeId('ln');
  const owner = fakeId('pr');
  let seq = 0;
  let parent = '';
  return () => {
    const id = fakeId('ev');
    const row = [
      tenant,
      id,
      session,
      'main',
      line,
      ++seq,
      parent,
      'message',
      payloadText,
      owner,
      owner,
      Date.now(),
      null,
    ];
    parent = id;
    return row;
  };
}

export const INSERT = 'INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
