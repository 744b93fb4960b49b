/**
 * A subject's data in every store, for the erasure tests: a user with a
 * session holding events, steps, a workspace's files, memory, artifacts and
 * a held write, each carrying a string that occurs nowhere else.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Desk } from '../../src/desk/desk.js';
import type { MasterKey } from '../../src/entry/keys.js';
import type { Identity } from '../../src/index.js';
import { Journal } from '../../src/steps/journal.js';
import type { Store } from '../../src/store.js';
import { holdWrite } from './held-writes.js';
import { put } from './trees.js';

/** A string that occurs nowhere but where the test put it: one token, so full-text indexes keep it whole. */
export const mark = (tag: string) => `${tag}${randomBytes(6).toString('hex')}`;

export interface Seeded {
  who: Identity;
  token: string;
  session: string;
  /** Every unique string of this subject the test wrote. */
  marks: string[];
  memory: string;
  artifact: string;
}

export interface SeedPlace {
  store: Store;
  admin: Identity;
  /** The vault key the tenant's `billing` credential (added by `addBilling`) is sealed with. */
  master: MasterKey;
  /** Where workspaces go (outside the store folder). */
  root: string;
  /** The desk's host state: left out, the store folder's own (a store in a folder). */
  stateDir?: string;
  /** Desks opened, for the caller to close. */
  desks: Desk[];
}

/** How much to write: more events and memory make an erasure long enough to be killed inside. */
export interface SeedSize {
  events?: number;
  memories?: number;
  artifacts?: number;
}

export async function addBilling(store: Store, admin: Identity, master: MasterKey): Promise<void> {
  await store.keys(admin, { masterKey: master }).addCredential({
    name: 'billing',
    kind: 'bearer',
    upstream: 'http://127.0.0.1:9/api',
    value: Buffer.from('sk_erasure_value'),
  });
}

export async function seedSubject(place: SeedPlace, tag: string, size: SeedSize = {}): Promise<Seeded> {
  const { store, admin, master, root } = place;
  const minted = await store
    .fabric(admin)
    .createToken({ kind: 'user', name: `${tag} person`, role: 'member' });
  const who = await store.authenticate(minted.token);
  const fabric = store.fabric(who);
  const marks: string[] = [];
  const m = (kind: string) => {
    const s = mark(`${tag}${kind}`);
    marks.push(s);
    return s;
  };
  const session = (await fabric.createSession({ title: `about ${m('title')}` })).id;
  for (let i = 0; i < (size.events ?? 10); i++)
    await fabric.append({ session, kind: 'message', payload: { text: `note ${m(`event${i}`)}` } });
  const journal = (await Journal.open(fabric, { session })).atEnd();
  // A step keeps its arguments' digest, not their text: its results are what the journal holds.
  const first = m('stepone');
  const second = m('steptwo');
  await journal.step('lookup', { query: 1 }, async () => ({ answer: first }));
  await journal.step('lookup', { query: 2 }, async () => ({ answer: second }));
  await journal.flush();
  const memory = (
    await fabric.remember({
      scope: { user: who.principal },
      text: `${m('memoryone')} likes tea`,
      source: 'person',
    })
  ).id;
  await fabric.remember({ scope: { session }, text: `the ${m('memorytwo')} plan`, source: 'agent' });
  const more = (size.memories ?? 2) - 2;
  if (more > 0)
    await fabric.rememberMany({
      records: Array.from({ length: more }, (_, i) => ({
        scope: { user: who.principal },
        text: `fact ${m(`memory${i + 3}`)}`,
      })),
    });
  const desk = store.desk(who, { host: `${tag}-host`, stateDir: place.stateDir });
  place.desks.push(desk);
  const dir = join(root, `${tag}-work`);
  put(dir, 'notes.md', `# ${m('fileone')}\n`);
  put(dir, 'shared.txt', 'the same bytes in every workspace\n');
  const ws = (await desk.attach({ dir, session: session as `ss_${string}` })).workspace;
  put(dir, 'later.md', `${m('filetwo')}\n`);
  put(dir, 'deep/more.md', `${m('filethree')}\n`);
  // A file's name is in the snapshot's trees and the desk's stat cache.
  put(dir, `${m('filename')}.txt`, 'a file whose name is the secret\n');
  await desk.checkpoint(ws.id);
  let artifact = '';
  for (let i = 0; i < (size.artifacts ?? 1); i++)
    artifact = (
      await fabric.publishArtifact({
        session,
        name: `report-${i}.txt`,
        mediaType: 'text/plain',
        bytes: Buffer.from(`report ${m(`artifact${i}`)}\n`),
      })
    ).id;
  const keys = store.keys(admin, { masterKey: master });
  await keys.grant({ session, branch: 'main', credential: 'billing', mode: 'live', approval: 'each-write' });
  await holdWrite(keys, {
    session,
    branch: 'main',
    credential: 'billing',
    path: '/pay',
    body: JSON.stringify({ memo: m('approval') }),
  });
  return { who, token: minted.token, session, marks, memory, artifact };
}
