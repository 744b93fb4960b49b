/**
 * A corpus of planted credentials for the secret guard: real key formats made
 * with openssl / ssh-keygen at test time, fake tokens of the real shapes with
 * fresh random parts, each written into a workspace in a given way. Each case
 * has the needles (byte strings) whose presence anywhere in the store means
 * the credential got in.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXAMPLE_VALUE } from '../../src/desk/guard/rules.js';
import { withChecksum } from '../../src/desk/guard.js';

export interface CorpusCase {
  family: string;
  name: string;
  /** Byte strings of the secret as it would be stored; any of them in the store is a leak. */
  needles: Buffer[];
  /** True when the case lives in git history (checked in a fork with git, not only by byte scan). */
  git?: { repo: string; secret: string };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Draws again until the value spells no placeholder word by chance ("fake" in
 * 340 random characters: about 1 draw in 2,000): the guard rates such a value
 * low, by design, and the corpus samples real credentials.
 */
function unlikePlaceholder(draw: () => string): string {
  for (;;) {
    const value = draw();
    if (!EXAMPLE_VALUE.test(value)) return value;
  }
}

export function rand(n: number, alphabet = ALNUM): string {
  return unlikePlaceholder(() => {
    const bytes = randomBytes(n);
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[(bytes[i] as number) % alphabet.length];
    return out;
  });
}
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B32 = '0123456789abcdefghjkmnpqrstvwxyz';

function put(root: string, rel: string, content: string | Buffer): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

/** One GitHub token every 300 KiB through 6 MiB of text: some of them straddle the chunker's cuts. */
export function secretsAcrossEdges(count = 20): { secrets: string[]; text: string } {
  const secrets: string[] = [];
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const secret = withChecksum('ghp', rand(30));
    secrets.push(secret);
    parts.push(`${'/'.repeat(300 * 1024 - 60)}\n'${secret}'\n`);
  }
  return { secrets, text: parts.join('') };
}

/** A slice from the middle of a secret: distinctive, and what any stored copy would contain. */
function middle(secret: string, length = 24): string {
  const start = Math.max(0, Math.floor((secret.length - length) / 2));
  return secret.slice(start, start + Math.min(length, secret.length));
}

function sh(cmd: string, args: string[], cwd?: string, input?: string): Buffer {
  return execFileSync(cmd, args, {
    cwd,
    input,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
  });
}

function pemBody(pem: string): string {
  return pem
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----') && !l.includes(':'))
    .join('');
}

/** Writes the corpus into `root` (a fresh directory); returns the cases. */
export function plantCorpus(root: string, scratch: string): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const text = (family: string, name: string, rel: string, content: string, secret: string) => {
    put(root, rel, content);
    cases.push({ family, name, needles: [Buffer.from(middle(secret))] });
  };
  const src = (secret: string) =>
    `// settings\nexport const timeoutMs = 30_000;\nexport const value = '${secret}';\n`;

  // ---- private keys, made at test time ----------------------------------------------
  mkdirSync(scratch, { recursive: true });
  const k = (name: string) => join(scratch, name);
  sh('openssl', ['genrsa', '-traditional', '-out', k('rsa1.pem'), '2048']);
  sh('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', k('rsa8.pem')]);
  sh('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', k('ec.pem')]);
  sh('openssl', ['genpkey', '-algorithm', 'ED25519', '-out', k('ed.pem')]);
  sh('openssl', [
    'pkcs8',
    '-topk8',
    '-in',
    k('rsa8.pem'),
    '-v2',
    'aes-256-cbc',
    '-passout',
    'pass:corpus',
    '-out',
    k('enc8.pem'),
  ]);
  sh('openssl', [
    'rsa',
    '-in',
    k('rsa1.pem'),
    '-traditional',
    '-aes128',
    '-passout',
    'pass:corpus',
    '-out',
    k('encrsa.pem'),
  ]);
  sh('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', k('ec.pem'), '-outform', 'DER', '-out', k('ec8.der')]);
  sh('openssl', ['rsa', '-in', k('rsa1.pem'), '-traditional', '-outform', 'DER', '-out', k('rsa1.der')]);
  sh('openssl', [
    'pkcs8',
    '-topk8',
    '-in',
    k('rsa8.pem'),
    '-v2',
    'aes-256-cbc',
    '-passout',
    'pass:corpus',
    '-outform',
    'DER',
    '-out',
    k('enc8.der'),
  ]);
  sh('openssl', [
    'req',
    '-x509',
    '-new',
    '-key',
    k('rsa8.pem'),
    '-subj',
    '/CN=corpus',
    '-days',
    '1',
    '-out',
    k('cert.pem'),
  ]);
  sh('openssl', [
    'pkcs12',
    '-export',
    '-inkey',
    k('rsa8.pem'),
    '-in',
    k('cert.pem'),
    '-passout',
    'pass:corpus',
    '-out',
    k('bundle.p12'),
  ]);
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', k('ssh_ed'), '-C', 'corpus']);
  sh('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', k('ssh_rsa'), '-C', 'corpus']);
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'corpus-pass', '-f', k('ssh_enc'), '-C', 'corpus']);
  const pemCases: [string, string, string][] = [
    ['RSA PKCS#1 PEM', 'rsa1.pem', 'deploy/signing.txt'],
    ['RSA PKCS#8 PEM', 'rsa8.pem', 'src/fixtures-not/key-material.ts'],
    ['EC SEC1 PEM', 'ec.pem', 'ops/ec-key.conf'],
    ['Ed25519 PKCS#8 PEM', 'ed.pem', 'ops/ed25519.txt'],
    ['encrypted PKCS#8 PEM', 'enc8.pem', 'ops/encrypted.txt'],
    ['encrypted legacy RSA PEM', 'encrsa.pem', 'ops/legacy-encrypted.txt'],
    ['OpenSSH ed25519', 'ssh_ed', 'home/deploy_ed'],
    ['OpenSSH RSA', 'ssh_rsa', 'home/deploy_rsa'],
    ['OpenSSH encrypted', 'ssh_enc', 'home/deploy_enc'],
  ];
  for (const [name, file, rel] of pemCases) {
    const pem = readFileSync(k(file), 'utf8');
    put(root, rel, pem);
    cases.push({ family: 'private-key', name, needles: [Buffer.from(middle(pemBody(pem), 40))] });
  }
  const embedded = readFileSync(k('rsa8.pem'), 'utf8');
  put(root, 'src/embedded.ts', `export const key = \`${embedded}\`;\n`);
  cases.push({
    family: 'private-key',
    name: 'PEM inside source',
    needles: [Buffer.from(middle(pemBody(embedded), 40))],
  });
  const derCases: [string, string, string][] = [
    ['DER PKCS#8 (EC)', 'ec8.der', 'assets/blob-a.bin'],
    ['DER PKCS#1 (RSA)', 'rsa1.der', 'assets/blob-b.dat'],
    ['DER encrypted PKCS#8', 'enc8.der', 'assets/blob-c'],
    ['PKCS#12 bundle', 'bundle.p12', 'assets/bundle.bin'],
  ];
  for (const [name, file, rel] of derCases) {
    const der = readFileSync(k(file));
    put(root, rel, der);
    const cut = der.subarray(der.length - 48, der.length - 8);
    cases.push({ family: 'private-key', name, needles: [Buffer.from(cut)] });
  }
  const ppkSecret = Buffer.from(randomBytes(32)).toString('base64');
  put(
    root,
    'home/work-key.txt',
    [
      'PuTTY-User-Key-File-3: ssh-ed25519',
      'Encryption: none',
      'Comment: eddsa-key-corpus',
      'Public-Lines: 2',
      `AAAAC3NzaC1lZDI1NTE5AAAAI${rand(40)}`,
      'AAAA',
      'Private-Lines: 1',
      ppkSecret,
      `Private-MAC: ${rand(64, HEX)}`,
      '',
    ].join('\n'),
  );
  cases.push({ family: 'private-key', name: 'PuTTY ppk (no .ppk name)', needles: [Buffer.from(ppkSecret)] });

  // ---- provider tokens of the real shapes ----------------------------------------------
  const tokens: [string, string][] = [
    ['GitHub classic', withChecksum('ghp', rand(30))],
    ['GitHub OAuth', withChecksum('gho', rand(30))],
    ['GitHub fine-grained', `github_pat_${rand(82)}`],
    ['GitLab', `glpat-${rand(20)}`],
    ['Slack bot', `xoxb-${rand(10, HEX.slice(0, 10))}-${rand(10, HEX.slice(0, 10))}-${rand(24)}`],
    ['Slack webhook', `https://hooks.slack.com/services/T${rand(8, UPPER)}/B${rand(8, UPPER)}/${rand(24)}`],
    ['Stripe live', `sk_live_${rand(24)}`],
    ['npm', withChecksum('npm', rand(30))],
    ['AWS access key id', `AKIA${rand(16, UPPER)}`],
    ['AWS secret key', `aws_secret_access_key = "${rand(40)}"`],
    ['OpenAI', `sk-${rand(20)}T3BlbkFJ${rand(20)}`],
    ['Anthropic', `sk-ant-api03-${rand(93)}AA`],
    ['Groq', `gsk_${rand(52)}`],
    ['Hugging Face', `hf_${rand(34, ALNUM.slice(0, 52))}`],
    ['SendGrid', `SG.${rand(22)}.${rand(43)}`],
    ['Shopify', `shpat_${rand(32, HEX)}`],
    ['Linear', `lin_api_${rand(40)}`],
    ['Databricks', `dapi${rand(32, HEX)}`],
    ['Docker Hub', `dckr_pat_${rand(27)}`],
    ['Figma', `figd_${rand(40)}`],
    ['Grafana service account', `glsa_${rand(32)}_${rand(8, HEX)}`],
    ['HashiCorp Vault', `hvs.${rand(90)}`],
    ['Tailscale', `tskey-auth-k${rand(10)}CNTRL-${rand(32)}`],
    ['database URL', `postgres://app:${rand(16)}@db.internal:5432/orders`],
    ['basic auth URL', `https://deploy:${rand(16)}@ci.internal.net/hook`],
  ];
  tokens.forEach(([name, secret], i) => {
    const password = /:\/\/[^:/]+:([^@]+)@/.exec(secret)?.[1];
    text('token', name, `src/mod${i}/settings.ts`, src(secret), password ?? secret);
  });

  // ---- Cairn's own formats --------------------------------------------------------------
  const cairnSecret = rand(52, B32);
  text(
    'cairn',
    'Cairn bearer token',
    'agent/token.json',
    `{"token":"cairn.acme.tk_${rand(26, B32)}.${cairnSecret}"}\n`,
    cairnSecret,
  );
  const handleSecret = rand(52, B32);
  text(
    'cairn',
    'Cairn branch handle',
    'agent/env.sh',
    `export CAIRN_HANDLE=cbh.acme.hd_${rand(26, B32)}.${handleSecret}\n`,
    handleSecret,
  );
  const master = rand(64, HEX);
  text(
    'cairn',
    'master key in a script',
    'agent/run.sh',
    `#!/bin/sh\nCAIRN_MASTER_KEY=${master} cairn serve\n`,
    master,
  );
  const masterFile = rand(64, HEX);
  text('cairn', 'master key file', 'agent/master-key.txt', `${masterFile}\n`, masterFile);

  // ---- credential files in any folder --------------------------------------------------------
  const kubeToken = rand(40);
  text(
    'config-file',
    'kubeconfig token',
    'deploy/cluster.yaml',
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://k8s.internal\nusers:\n- name: admin\n  user:\n    token: ${kubeToken}\n`,
    kubeToken,
  );
  const kubeKey = Buffer.from(randomBytes(64)).toString('base64');
  text(
    'config-file',
    'kubeconfig client-key-data',
    'deploy/kubeconfig',
    `users:\n- name: a\n  user:\n    client-key-data: ${kubeKey}\n`,
    kubeKey,
  );
  const dockerAuth = Buffer.from(`robot:${rand(24)}`).toString('base64');
  text(
    'config-file',
    'docker config.json auths',
    'ci/docker/config.json',
    `{"auths":{"registry.internal":{"auth":"${dockerAuth}"}}}\n`,
    dockerAuth,
  );
  const awsSecret = rand(40);
  text(
    'config-file',
    'aws credentials file elsewhere',
    'backup/aws-creds',
    `[default]\naws_access_key_id = AKIA${rand(16, UPPER)}\naws_secret_access_key = ${awsSecret}\n`,
    awsSecret,
  );
  const refresh = `1//${rand(60)}`;
  text(
    'config-file',
    'gcloud authorized_user JSON',
    'gcp/user.json',
    `{"client_id":"1.apps.googleusercontent.com","client_secret":"${rand(24)}","refresh_token":"${refresh}","type":"authorized_user"}\n`,
    refresh,
  );
  const saPem = readFileSync(k('rsa8.pem'), 'utf8');
  const saJson = JSON.stringify({
    type: 'service_account',
    project_id: 'p',
    private_key_id: rand(40, HEX),
    private_key: saPem,
  });
  put(root, 'gcp/sa.json', saJson);
  cases.push({
    family: 'config-file',
    name: 'service-account JSON',
    needles: [Buffer.from(middle(pemBody(saPem), 40))],
  });
  const accountKey = Buffer.from(randomBytes(64)).toString('base64');
  text(
    'config-file',
    'Azure storage connection string',
    'az/app.config',
    `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${accountKey};EndpointSuffix=core.windows.net\n`,
    accountKey,
  );
  const msal = rand(60);
  text(
    'config-file',
    'Azure MSAL cache',
    'az/cache.json',
    `{"RefreshToken":{"k":{"credential_type":"RefreshToken","secret":"${msal}"}}}\n`,
    msal,
  );
  const gitCred = rand(20);
  text(
    'config-file',
    '.git-credentials',
    'home/.git-credentials',
    `https://me:${gitCred}@github.com\n`,
    gitCred,
  );
  const netrc = rand(20);
  text(
    'config-file',
    'netrc lines in another file',
    'home/machines.txt',
    `machine api.internal login me password ${netrc}\n`,
    netrc,
  );
  for (const [name, rel] of [
    ['*.env', 'config/prod.env'],
    ['.env-*', 'config/.env-staging'],
    ['.envrc', '.envrc'],
  ] as const) {
    const value = rand(20);
    text('config-file', `dotenv ${name}`, rel, `DB_PASSWORD=${value}\n`, value);
  }

  // ---- evasions ------------------------------------------------------------------------------
  const ev = (name: string, rel: string, encode: (s: string) => Buffer, secret: string) => {
    put(root, rel, encode(src(secret)));
    cases.push({ family: 'evasion', name, needles: [Buffer.from(middle(secret)), encode(middle(secret))] });
  };
  const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
  const utf32le = (s: string) => {
    const out = Buffer.alloc(s.length * 4);
    for (let i = 0; i < s.length; i++) out.writeUInt32LE(s.charCodeAt(i), i * 4);
    return out;
  };
  ev(
    'UTF-16LE with BOM',
    'win/a.txt',
    (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]),
    withChecksum('ghp', rand(30)),
  );
  ev('UTF-16LE without BOM', 'win/b.txt', (s) => Buffer.from(s, 'utf16le'), withChecksum('ghp', rand(30)));
  ev(
    'UTF-16BE with BOM',
    'win/c.txt',
    (s) => Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(s)]),
    withChecksum('ghp', rand(30)),
  );
  ev('UTF-32LE', 'win/d.txt', (s) => utf32le(s), withChecksum('ghp', rand(30)));
  ev(
    'NUL byte first',
    'bin/e.txt',
    (s) => Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(s)]),
    withChecksum('ghp', rand(30)),
  );
  ev(
    'secretlint-disable-line',
    'src/waived.ts',
    (s) => Buffer.from(s.replace(/;\n/g, '; // secretlint-disable-line\n')),
    withChecksum('ghp', rand(30)),
  );
  const bigSecret = withChecksum('ghp', rand(30));
  const filler = '// nothing to see here, just a long generated file\n'.repeat(60_000);
  put(root, 'gen/big-end.ts', `${filler}export const t = '${bigSecret}';\n`);
  cases.push({ family: 'evasion', name: 'end of a 3 MB file', needles: [Buffer.from(middle(bigSecret))] });
  const { secrets: edge, text: edgeText } = secretsAcrossEdges();
  put(root, 'gen/edges.txt', edgeText);
  cases.push({
    family: 'evasion',
    name: 'secrets across chunk edges (20 in 6 MiB)',
    needles: edge.map((s) => Buffer.from(middle(s))),
  });

  // ---- names -------------------------------------------------------------------------------------
  const nameToken = withChecksum('ghp', rand(30));
  put(root, `names/${nameToken}.txt`, 'nothing\n');
  cases.push({ family: 'name', name: 'file name', needles: [Buffer.from(middle(nameToken))] });
  const dirToken = withChecksum('ghp', rand(30));
  put(root, `names/${dirToken}/inner.txt`, 'nothing\n');
  cases.push({ family: 'name', name: 'directory name', needles: [Buffer.from(middle(dirToken))] });
  const linkToken = withChecksum('ghp', rand(30));
  mkdirSync(join(root, 'names'), { recursive: true });
  symlinkSync(`/tmp/${linkToken}`, join(root, 'names/link'));
  cases.push({ family: 'name', name: 'symlink target', needles: [Buffer.from(middle(linkToken))] });

  // ---- git history ---------------------------------------------------------------------------------
  for (const [name, repo, pack] of [
    ['committed then deleted (loose object)', 'repo-loose', false],
    ['committed then deleted (packed)', 'repo-packed', true],
  ] as const) {
    const dir = join(root, repo);
    mkdirSync(dir, { recursive: true });
    sh('git', ['init', '-q', '-b', 'main'], dir);
    const secret = withChecksum('ghp', rand(30));
    writeFileSync(join(dir, 'config.txt'), `token = ${secret}\n`);
    writeFileSync(join(dir, 'README'), 'a repository\n');
    sh('git', ['add', '-A'], dir);
    sh('git', ['commit', '-q', '-m', 'add config'], dir);
    sh('git', ['rm', '-q', 'config.txt'], dir);
    sh('git', ['commit', '-q', '-m', 'remove config'], dir);
    if (pack) sh('git', ['gc', '-q', '--prune=now'], dir);
    cases.push({
      family: 'git-history',
      name,
      needles: [Buffer.from(middle(secret))],
      git: { repo, secret },
    });
  }

  // ---- issue 19's families: decoded, JWTs, Cairn's own, split, hidden -------------------------------
  for (const sample of familySamples()) {
    put(root, `families/${sample.path}`, sample.content);
    cases.push({
      family: sample.family,
      name: sample.name,
      needles: sample.needles.map((n) => Buffer.from(n)),
    });
  }
  return cases;
}

// ---- families of issue 19: decoded, split, hidden, JWTs, Cairn's own -----------------------------

/** One file of a family: where it goes, what it holds, and the byte strings that would be the leak. */
export interface FamilySample {
  family: string;
  name: string;
  path: string;
  content: string | Buffer;
  /** Strings of the secret as the file holds it (and as it decodes): none may reach the store. */
  needles: string[];
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** A JWT of the real shape (RS256 header, a service account's claims, a random signature). */
export function jwt(): string {
  const header = b64url(JSON.stringify({ alg: 'RS256', kid: rand(20) }));
  const claims = b64url(
    JSON.stringify({ iss: 'kubernetes/serviceaccount', sub: `system:serviceaccount:ci:${rand(8)}` }),
  );
  return `${header}.${claims}.${unlikePlaceholder(() => b64url(randomBytes(256).toString('latin1')))}`;
}

/** Cuts `s` in two at `at` (for secrets split across lines). */
const cut = (s: string, at: number): [string, string] => [s.slice(0, at), s.slice(at)];

/**
 * A token made by `make`, cut at `at`, drawn again until a piece holds a digit: the guard joins
 * lines only around runs with a digit (prose and identifiers wrapped across lines mostly have
 * none), so a split token with no digit at all is a stated gap, not a sample (GUARANTEES.md).
 */
function cutWithDigit(make: () => string, at: number): [string, string] {
  for (;;) {
    const pieces = cut(make(), at);
    if (/[0-9]/.test(pieces[0]) || /[0-9]/.test(pieces[1])) return pieces;
  }
}

/** Wraps text at `width` columns, as `base64` and PEM do. */
const wrap = (s: string, width: number) => s.match(new RegExp(`.{1,${width}}`, 'g'))?.join('\n') ?? s;

export function familySamples(): FamilySample[] {
  const out: FamilySample[] = [];
  const add = (family: string, name: string, path: string, content: string | Buffer, ...needles: string[]) =>
    out.push({ family, name, path, content, needles: needles.map((n) => middle(n, 20)) });
  const gh = () => withChecksum('ghp', rand(30));

  // Base64 and hex: Kubernetes Secrets, docker pull secrets, encoded env files.
  {
    const t = gh();
    add(
      'base64',
      'Kubernetes Secret data: field',
      'deploy/secret.yaml',
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: gh\ntype: Opaque\ndata:\n  GITHUB_TOKEN: ${b64(t)}\n`,
      t,
      b64(t),
    );
    const pass = rand(24);
    const docker = JSON.stringify({ auths: { 'registry.internal': { auth: b64(`robot:${pass}`) } } });
    add(
      'base64',
      '.dockerconfigjson pull secret',
      'deploy/pull-secret.yaml',
      `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${b64(docker)}\n`,
      b64(docker),
    );
    const aws = rand(40);
    const env = `AWS_ACCESS_KEY_ID=AKIA${rand(16, UPPER)}\naws_secret_access_key=${aws}\n`;
    add('base64', 'base64 of an AWS credentials file', 'ci/creds.b64', `${b64(env)}\n`, b64(env));
    const wrapped = `# settings\nexport const timeoutMs = 30_000;\nexport const token = '${gh()}';\n`;
    add(
      'base64',
      'base64 wrapped at 76 columns',
      'ci/settings.b64.txt',
      `${wrap(b64(wrapped), 76)}\n`,
      b64(wrapped).slice(40, 76),
    );
    const s = `sk_live_${rand(24)}`;
    add(
      'base64',
      'URL-safe base64 in JSON',
      'app/state.json',
      `{"blob":"${b64url(`key=${s}`)}"}\n`,
      b64url(`key=${s}`),
    );
    const h = gh();
    const hex = Buffer.from(`token=${h}`).toString('hex');
    add('base64', 'hex-encoded token', 'app/state.hex', `${hex}\n`, hex);
  }

  // JWTs and kubeconfig bearer tokens.
  {
    const a = jwt();
    add(
      'jwt',
      'kubeconfig user token (a JWT, no kind: Config)',
      'deploy/ci-user.yaml',
      `users:\n- name: ci\n  user:\n    token: ${a}\n`,
      a.split('.')[2] as string,
    );
    const b = jwt();
    add(
      'jwt',
      'Authorization: Bearer JWT in a script',
      'scripts/call.sh',
      `curl -H "Authorization: Bearer ${b}" https://k8s.internal/api\n`,
      b.split('.')[2] as string,
    );
    const c = jwt();
    add('jwt', 'JWT in JSON', 'app/session.json', `{"id_token":"${c}"}\n`, c.split('.')[2] as string);
    const k = rand(40);
    add(
      'jwt',
      'kubeconfig user token (opaque, no kind: Config)',
      'deploy/admin.yml',
      `contexts: []\nusers:\n  - name: admin\n    user:\n      token: ${k}\n`,
      k,
    );
  }

  // Cairn's own: the master key as `cred keygen` prints it, tokens and handles of today's format.
  {
    const k1 = rand(64, HEX);
    add(
      'cairn',
      'cred keygen transcript',
      'notes/setup.txt',
      `$ cairn cred keygen\n${k1}\n$ echo done\n`,
      k1,
    );
    const k2 = rand(64, HEX);
    add(
      'cairn',
      'cred keygen --json output',
      'notes/keygen.json',
      `{"masterKey":"${k2}","id":"${rand(16, HEX)}"}\n`,
      k2,
    );
    const k3 = randomBytes(32).toString('base64');
    add('cairn', 'master key (base64) in notes', 'notes/ops.md.txt', `vault master key: ${k3}\n`, k3);
    const tk = rand(52, B32);
    add(
      'cairn',
      'token of a tn_ tenant in a shell profile',
      'home/profile.sh',
      `export CAIRN_TOKEN=cairn.tn_${rand(26, B32)}.tk_${rand(26, B32)}.${tk}\n`,
      tk,
    );
    const hd = rand(52, B32);
    add(
      'cairn',
      'branch handle of a tn_ tenant in JSON',
      'agent/handle.json',
      `{"handle":"cbh.tn_${rand(26, B32)}.hd_${rand(26, B32)}.${hd}"}\n`,
      hd,
    );
  }

  // Split across adjacent lines.
  {
    const [a1, a2] = cutWithDigit(gh, 18);
    add(
      'split',
      "JS string concatenation ('…' +\\n '…')",
      'src/split-a.ts',
      `export const t =\n  '${a1}' +\n  '${a2}';\n`,
      a1.slice(4) + a2.slice(0, 8),
    );
    const [b1, b2] = cutWithDigit(gh, 22);
    add(
      'split',
      'Python implicit concatenation',
      'src/split_b.py',
      `TOKEN = (\n    "${b1}"\n    "${b2}"\n)\n`,
      b1.slice(6) + b2.slice(0, 6),
    );
    const [c1, c2] = cutWithDigit(() => `glpat-${rand(20)}`, 12);
    add(
      'split',
      'shell line continuation',
      'scripts/split-c.sh',
      `export GL_TOKEN=${c1}\\\n${c2}\nrun\n`,
      c1 + c2,
    );
    const [d1, d2] = cutWithDigit(gh, 20);
    add(
      'split',
      'hard-wrapped note',
      'notes/split-d.txt',
      `the deploy token is ${d1}\n${d2} (rotate monthly)\n`,
      d1.slice(4) + d2.slice(0, 8),
    );
    const [e1, e2] = cutWithDigit(() => `sk_live_${rand(24)}`, 16);
    add(
      'split',
      'YAML folded value',
      'deploy/split-e.yaml',
      `stripe:\n  key: >-\n    ${e1}\n    ${e2}\n`,
      e1 + e2,
    );
  }

  // Hidden characters.
  {
    const t = gh();
    const zw = `${t.slice(0, 10)}\u200b${t.slice(10, 20)}\u200d${t.slice(20)}`;
    add(
      'hidden',
      'zero-width characters inside a token',
      'src/zw.ts',
      `export const t = '${zw}';\n`,
      t.slice(10, 20),
      t.slice(20),
    );
    const f = gh();
    const full = [...f].map((ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)).join('');
    add('hidden', 'full-width token', 'src/fw.ts', `export const t = '${full}';\n`, full.slice(8, 20));
  }
  return out;
}

/** Files that look like the families above and are not credentials: none may be flagged. */
export function lookAlikes(): FamilySample[] {
  const out: FamilySample[] = [];
  const add = (family: string, name: string, path: string, content: string | Buffer) =>
    out.push({ family, name, path, content, needles: [] });
  add(
    'base64',
    'ConfigMap-like data of plain text',
    'deploy/config.yaml',
    `data:\n  settings: ${b64('log_level=debug\nworkers=4\nregion=eu-west-1\n')}\n`,
  );
  add(
    'base64',
    'lock-file integrity hashes',
    'package-lock.json',
    `{"integrity":"sha512-${randomBytes(64).toString('base64')}"}\n`,
  );
  add(
    'base64',
    'a PNG data URI',
    'web/icon.css',
    `.i{background:url(data:image/png;base64,${randomBytes(600).toString('base64')})}\n`,
  );
  add(
    'base64',
    'SHA-256 digests',
    'SHA256SUMS',
    `${rand(64, HEX)}  cairn.tgz\n${rand(64, HEX)}  cairn.zip\n`,
  );
  add(
    'base64',
    'hex of plain text',
    'app/greeting.hex',
    `${Buffer.from('hello from the build server, all is well').toString('hex')}\n`,
  );
  add(
    'jwt',
    'a JWT header alone',
    'src/jwt-doc.ts',
    `export const header = '${b64url('{"alg":"HS256","typ":"JWT"}')}';\n`,
  );
  add(
    'jwt',
    'kubeconfig user with a templated password',
    'deploy/values.yaml',
    'user:\n  name: app\n  password: {{ .Values.password }}\n',
  );
  add(
    'jwt',
    'kubeconfig user with an exec plugin',
    'deploy/kube.yaml',
    'users:\n- name: eks\n  user:\n    exec:\n      command: aws\n',
  );
  add(
    'cairn',
    'master key id and file path',
    'notes/keys.txt',
    `master key id: ${rand(16, HEX)}\nmasterKeyFile: /etc/cairn/master.key\n`,
  );
  add(
    'cairn',
    'cred keygen mentioned, a digest later',
    'notes/howto.txt',
    `run \`cairn cred keygen --out key\`\n\n\n\n\n\nsha256 of the tarball:\n${rand(64, HEX)}\n`,
  );
  add(
    'cairn',
    'token id and handle id alone',
    'notes/ids.txt',
    `token tk_${rand(26, B32)} of tenant tn_${rand(26, B32)}\n`,
  );
  add(
    'split',
    'wrapped prose',
    'docs-not/guide.txt',
    'The deployment pipeline builds the container image, then\nintroduces the configuration into the environment-specific\ncluster once every check passes.\n',
  );
  add(
    'split',
    'method chains and long identifiers',
    'src/chain.ts',
    'const result = someService\n  .configurationLoaderFactory\n  .createConfigurationLoader();\n',
  );
  add(
    'split',
    'base64 of a public certificate, wrapped',
    'certs/ca.txt',
    `${wrap(randomBytes(600).toString('base64'), 64)}\n`,
  );
  add('hidden', 'full-width prose', 'notes/ja.txt', 'ＣＡＩＲＮ　のメモ：ｔｅｓｔ ａｂｃ\n');
  add(
    'hidden',
    'zero-width joiner in emoji',
    'notes/emoji.txt',
    'family: \u{1F468}\u200d\u{1F469}\u200d\u{1F467}\n',
  );
  return out;
}
