import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { conflict, invalidArgument, unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { KEYS_CONTRACT } from '../keys/contract.js';
import { MasterKey } from '../keys/crypto.js';
import type { Approval } from '../keys/keys.js';
import type { Credential, DeletedCredential, GrantWithState, RevokedGrants } from '../keys/types.js';

import { listFlag, readAllBytes, stringFlag, wholeNumberFlag } from './args.js';
import type { FabricCommand, FlagSpec, Invocation, StoreCommand } from './command.js';
import { operationCommand } from './derived.js';
import { withDesk, workspaceOf } from './desk-commands.js';
import { MASTER_KEY_FLAG, masterKeyOf } from './operator-keys.js';
import { EXIT, isoTime, table } from './output.js';
import { listenError, openConfiguredFabric, untilStopSignal, withStore } from './store-commands.js';

/**
 * The keys: `cairn cred …` (the vault), `cairn grant …`, `cairn proxy`,
 * `cairn approvals ls`, `cairn approve|deny` — all but `cred keygen` and
 * `proxy` operations of the table, so on a local store or through a server. Credential
 * values are read from stdin only, never from the command line; the master
 * key comes from `--master-key-file`, `CAIRN_MASTER_KEY_FILE` or
 * `CAIRN_MASTER_KEY`, read here and passed to the library.
 */
/** The embedded fabric of a local store, with the operator's master key if one is given. */
async function withFabric<T>(dir: string, call: Invocation, fn: (fabric: Fabric) => Promise<T>): Promise<T> {
  const fabric = await openConfiguredFabric(dir, masterKeyOf(call));
  try {
    return await fn(fabric);
  } finally {
    await fabric.close();
  }
}

/** The session a grant command means on a local store: --session, else that of the workspace of --ws or the current directory. */
async function sessionOf(dir: string, call: Invocation): Promise<string> {
  const named = stringFlag(call.values, 'session');
  if (named !== undefined) return named;
  return withDesk({ kind: 'local', dir }, call, async ({ desk }) => (await workspaceOf(desk, call)).session);
}

async function stdinValues(call: Invocation, count: 1 | 2, what: string): Promise<string[]> {
  const text = (await readAllBytes(call.stdin)).toString('utf8');
  const lines = text.split(/\r?\n/).filter((l, i, all) => !(i === all.length - 1 && l === ''));
  if (lines.length !== count) {
    throw invalidArgument(
      count === 1
        ? `${what} reads one value from stdin (one line), got ${lines.length} lines: e.g. \`cairn cred add NAME … < value.txt\``
        : `${what} reads two lines from stdin with --sandbox-upstream: the live value, then the sandbox value`,
      { lines: lines.length },
    );
  }
  return lines;
}

const WS_OR_SESSION: FlagSpec[] = [
  {
    name: 'session',
    type: 'string',
    value: 'S',
    help: 'session (default: that of --ws or the current directory)',
  },
  { name: 'ws', type: 'string', value: 'WS', help: 'workspace id or attached directory' },
];

const credKeygen: StoreCommand = {
  target: 'store',
  // Needs no store (and opens none).
  createsStore: true,
  names: ['cred', 'keygen'],
  example: 'cairn cred keygen --out ~/.cairn-master-key',
  args: [],
  flags: [
    {
      name: 'out',
      type: 'string',
      value: 'FILE',
      help: 'write the key to FILE (mode 0600) instead of stdout',
    },
  ],
  summary: 'make a new vault master key (keep it apart from the store)',
  async run(_dir, call) {
    const key = MasterKey.generate();
    const out = stringFlag(call.values, 'out');
    if (out === undefined) {
      call.out.result({ masterKey: key.toHex(), id: key.id }, key.toHex());
      return EXIT.ok;
    }
    const path = resolve(call.cwd, out);
    if (existsSync(path))
      throw conflict(
        `${path} exists: a master key is never overwritten (credentials sealed under it would be lost)`,
        {
          file: path,
        },
      );
    writeFileSync(path, `${key.toHex()}\n`, { mode: 0o600, flag: 'wx' });
    call.out.result({ file: path, id: key.id }, `master key ${key.id} written to ${path} (mode 0600)`);
    return EXIT.ok;
  },
};

const credAdd: FabricCommand = {
  target: 'fabric',
  names: ['cred', 'add'],
  example:
    'printf \'%s\' "$GITHUB_TOKEN" | cairn cred add github --kind bearer --upstream https://api.github.com',
  args: ['NAME'],
  flags: [
    {
      name: 'kind',
      type: 'string',
      value: 'K',
      required: true,
      help: 'bearer, basic (user:password), header or env',
    },
    { name: 'upstream', type: 'string', value: 'URL', help: 'base URL the proxy forwards to (not for env)' },
    {
      name: 'header',
      type: 'string',
      value: 'H',
      help: 'header name (kind header) or variable name (kind env)',
    },
    {
      name: 'sandbox-upstream',
      type: 'string',
      value: 'URL',
      help: 'the test account’s base URL; stdin then holds two lines: live value, sandbox value',
    },
    {
      name: 'allow-header',
      type: 'string',
      value: 'H',
      multiple: true,
      help: 'a header the proxy lets through both ways beyond its defaults (repeatable; never routing overrides)',
    },
    {
      name: 'max-body-bytes',
      type: 'string',
      value: 'N',
      help: 'the largest request body the proxy takes for this credential (default 8 MiB)',
    },
    MASTER_KEY_FLAG,
  ],
  summary: 'add a credential to the vault; its value is read from stdin (never the command line)',
  async run(fabric, call) {
    const sandboxUpstream = stringFlag(call.values, 'sandbox-upstream');
    const [value, sandbox] = await stdinValues(call, sandboxUpstream === undefined ? 1 : 2, 'cred add');
    const cred = await fabric.addCredential({
      name: call.positionals[0]!,
      kind: stringFlag(call.values, 'kind') as 'bearer',
      upstream: stringFlag(call.values, 'upstream'),
      header: stringFlag(call.values, 'header'),
      allowHeaders: listFlag(call.values, 'allow-header'),
      maxBodyBytes: wholeNumberFlag(call.values, 'max-body-bytes'),
      value: value!,
      ...(sandboxUpstream !== undefined ? { sandbox: { upstream: sandboxUpstream, value: sandbox! } } : {}),
    });
    call.out.result(
      cred,
      `credential ${cred.name} (${cred.kind}) sealed under master key ${cred.masterKeyId}`,
    );
    return EXIT.ok;
  },
};

const credRotate: FabricCommand = {
  target: 'fabric',
  names: ['cred', 'rotate'],
  example: 'printf \'%s\' "$NEW_TOKEN" | cairn cred rotate github',
  args: ['NAME'],
  flags: [
    { name: 'sandbox', type: 'boolean', help: 'replace the sandbox value instead of the live one' },
    MASTER_KEY_FLAG,
  ],
  summary: 'replace a credential’s value (from stdin) under a fresh data key; grants stay',
  async run(fabric, call) {
    const [value] = await stdinValues(call, 1, 'cred rotate');
    const cred = await fabric.rotateCredential({
      name: call.positionals[0]!,
      ...(call.values.sandbox === true ? { sandbox: value } : { value }),
    });
    call.out.result(cred, `credential ${cred.name} rotated to version ${cred.version}`);
    return EXIT.ok;
  },
};

/** `grant add` after its session is known. */
async function addGrant(fabric: Fabric, call: Invocation, session: string): Promise<number> {
  const hosts = listFlag(call.values, 'host');
  const methods = listFlag(call.values, 'method');
  const paths = listFlag(call.values, 'path');
  const ttl = wholeNumberFlag(call.values, 'ttl-ms');
  const grant = await fabric.addGrant({
    session,
    branch: stringFlag(call.values, 'branch')!,
    credential: stringFlag(call.values, 'cred')!,
    mode: stringFlag(call.values, 'mode') as 'read',
    approval: stringFlag(call.values, 'approval') as 'none' | undefined,
    parent: stringFlag(call.values, 'parent'),
    allow: {
      ...(hosts.length > 0 ? { hosts } : {}),
      ...(methods.length > 0 ? { methods } : {}),
      ...(paths.length > 0 ? { pathPrefixes: paths } : {}),
    },
    expiresAt: ttl === undefined ? undefined : Date.now() + ttl,
    maxUses: wholeNumberFlag(call.values, 'max-uses'),
  });
  call.out.result(
    grant,
    `grant ${grant.id}: branch ${grant.branch} may use ${grant.credential} (${grant.mode}${grant.approval === 'each-write' ? ', each write approved' : ''})`,
  );
  return EXIT.ok;
}

const grantAdd: FabricCommand = {
  target: 'fabric',
  names: ['grant', 'add'],
  example: 'cairn grant add --ws . --cred github --mode read --host api.github.com --ttl-ms 3600000',
  args: [],
  flags: [
    ...WS_OR_SESSION,
    { name: 'branch', type: 'string', value: 'B', required: true, help: 'the branch the grant is bound to' },
    { name: 'cred', type: 'string', value: 'NAME', required: true, help: 'the credential' },
    { name: 'mode', type: 'string', value: 'M', required: true, help: 'read, sandbox or live' },
    {
      name: 'approval',
      type: 'string',
      value: 'A',
      help: 'none or each-write (a person approves every write)',
    },
    { name: 'parent', type: 'string', value: 'GRANT', help: 'narrow this grant (else a root grant: admin)' },
    {
      name: 'host',
      type: 'string',
      value: 'H',
      multiple: true,
      help: 'allowed upstream host[:port] (repeatable)',
    },
    { name: 'method', type: 'string', value: 'M', multiple: true, help: 'allowed HTTP method (repeatable)' },
    { name: 'path', type: 'string', value: 'P', multiple: true, help: 'allowed path prefix (repeatable)' },
    { name: 'ttl-ms', type: 'string', value: 'MS', help: 'the grant expires after this long' },
    { name: 'max-uses', type: 'string', value: 'N', help: 'the grant ends after N requests' },
  ],
  summary: 'grant a branch use of a credential: read, sandbox, or live (optionally each write approved)',
  // Through a server the session is named (a workspace is resolved by a local desk).
  async run(fabric, call) {
    const session = stringFlag(call.values, 'session');
    if (session === undefined)
      throw invalidArgument('grant add through a server needs --session S (--ws needs the local store)', {
        flag: 'session',
      });
    return addGrant(fabric, call, session);
  },
  async runLocal(dir, call) {
    const session = await sessionOf(dir, call);
    return withFabric(dir, call, (fabric) => addGrant(fabric, call, session));
  },
};

const proxy: StoreCommand = {
  target: 'store',
  createsStore: false,
  names: ['proxy'],
  example: 'cairn proxy --port 7071 --master-key-file ~/.cairn-master-key',
  args: [],
  flags: [
    { name: 'host', type: 'string', value: 'H', help: 'address to listen on (default 127.0.0.1)' },
    { name: 'port', type: 'string', value: 'P', help: 'port (default 7071; 0 picks one)' },
    {
      name: 'approval-timeout-ms',
      type: 'string',
      value: 'MS',
      help: 'how long a write waits for a person (default 5 min)',
    },
    {
      name: 'max-spool-bytes',
      type: 'string',
      value: 'N',
      help: 'request bodies held at once, all branches together (default 256 MiB); past it a body is refused (503, rule spool_full)',
    },
    MASTER_KEY_FLAG,
  ],
  summary:
    'run the egress proxy: branches call /<credential>/<path> with their handle; secrets are injected here',
  async run(dir, call) {
    const host = stringFlag(call.values, 'host') ?? '127.0.0.1';
    const port = wholeNumberFlag(call.values, 'port') ?? 7071;
    const masterKey = masterKeyOf(call);
    if (!masterKey)
      throw unavailable(
        'the proxy needs the vault master key: pass --master-key-file FILE or set CAIRN_MASTER_KEY',
      );
    return withStore(dir, async (store) => {
      const { startProxy } = await import('../keys/proxy.js');
      const who = await store.localIdentity();
      const keys = store.keys(who, { masterKey });
      const running = await startProxy({
        keysFor: (tenant) => (tenant === who.tenant ? keys : undefined),
        auditRefusalsIn: keys,
        host,
        port,
        approvalTimeoutMs: wholeNumberFlag(call.values, 'approval-timeout-ms'),
        maxSpoolBytes: wholeNumberFlag(call.values, 'max-spool-bytes'),
        log: (line) => call.out.problem(line),
      }).catch((error: unknown) => {
        throw listenError(error, host, port);
      });
      call.out.result(
        { url: running.url },
        `cairn proxy on ${running.url}: call ${running.url}/<credential>/<path> with x-cairn-handle`,
      );
      await untilStopSignal();
      await running.close();
      return EXIT.ok;
    });
  },
};

const grantRow = (g: GrantWithState) => [
  g.id,
  g.branch,
  g.credential,
  `${g.mode}${g.approval === 'each-write' ? '+each-write' : ''}`,
  g.state,
  g.parent ? `narrows ${g.parent}` : 'root',
];

const decided = (a: Approval) => `${a.id}: ${a.state} (${a.method} ${a.url}, branch ${a.branch})`;

function approvalLines(approvals: Approval[]): string[] {
  return approvals.flatMap((a) => [
    `${a.id}  ${a.state}  ${a.branch}  ${a.credential}  ${a.method} ${a.url}  (expires ${isoTime(a.expiresAt)})`,
    ...(a.bodyBytes > 0
      ? [`    body (${a.bodyBytes} bytes, sha256 ${a.bodyDigest.slice(0, 12)}…): ${a.preview}`]
      : []),
  ]);
}

export const KEYS_COMMANDS: (StoreCommand | FabricCommand)[] = [
  credKeygen,
  credAdd,
  credRotate,
  operationCommand(
    KEYS_CONTRACT.deleteCredential,
    (done: DeletedCredential) =>
      `credential ${done.credential} deleted; ${done.revokedGrants.length} grants revoked`,
  ),
  operationCommand(KEYS_CONTRACT.listCredentials, ({ credentials }: { credentials: Credential[] }) =>
    table(
      credentials.map((c) => [
        c.name,
        c.kind,
        c.upstream || '-',
        c.sandboxUpstream ? `sandbox ${c.sandboxUpstream}` : '-',
        `v${c.version}`,
      ]),
    ),
  ),
  grantAdd,
  operationCommand(KEYS_CONTRACT.listGrants, ({ grants }: { grants: GrantWithState[] }) =>
    table(grants.map(grantRow)),
  ),
  operationCommand(KEYS_CONTRACT.getGrant, (g: GrantWithState) => table([grantRow(g)])),
  operationCommand(
    KEYS_CONTRACT.revokeGrant,
    (done: RevokedGrants) => `revoked ${done.revoked.length} grants: ${done.revoked.join(' ')}`,
  ),
  proxy,
  operationCommand(KEYS_CONTRACT.listApprovals, ({ approvals }: { approvals: Approval[] }) =>
    approvals.length === 0 ? 'no approvals waiting' : approvalLines(approvals),
  ),
  operationCommand(KEYS_CONTRACT.getApproval, (a: Approval) => approvalLines([a])),
  operationCommand(KEYS_CONTRACT.approve, decided),
  operationCommand(KEYS_CONTRACT.deny, decided),
];
