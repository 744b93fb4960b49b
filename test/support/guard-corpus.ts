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
export function rand(n: number, alphabet = ALNUM): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(bytes[i] as number) % alphabet.length];
  return out;
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
  return cases;
}
