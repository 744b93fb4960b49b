import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { unkeyedSecretRules } from '../src/desk/guard/secretlint.js';
import {
  createPathFilter,
  credentialPathRule,
  DEFAULT_IGNORES,
  guardFailure,
  type SecretFinding,
  scanFile,
} from '../src/desk/guard.js';
import { CairnError } from '../src/errors.js';

// Secrets are put together at run time, so this file holds no token-shaped literal itself.
const join = (...parts: string[]) => parts.join('');
/** Rule, path and line of each finding (confidence and action are asserted where they matter). */
const brief = (findings: SecretFinding[]) => findings.map(({ rule, path, line }) => ({ rule, path, line }));
const scanBrief = async (path: string, bytes: Uint8Array) => brief(await scanFile(path, bytes));
const RSA_PEM = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** name → [secret text as planted, the rule that must report it]. */
const PLANTED: Record<string, [string, string]> = {
  'AWS access key id': [join('AKIA', 'Z7QW4RT2YU8IO3PL'), 'secretlint:aws'],
  'AWS secret access key': [
    join('aws_secret_access_key = "', 'Zq8Lw3Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx2Cv4Bn6M', '"'),
    'secretlint:aws',
  ],
  'GitHub token': [join('ghp', '_', 'R8c2Lw0xQ3mZ7tY5nB1vK9pD4sF6hJ2gA8eW'), 'secretlint:github'],
  'GitHub fine-grained token': [join('github_pat', '_', 'A1b2C3d4E5'.repeat(8), 'xY'), 'secretlint:github'],
  'Slack token': [
    join('xox', 'b-', '2489017364', '-', '8301957264', '-', 'Qw3Er5Ty7Ui9Op1As3Df5Gh7'),
    'secretlint:slack',
  ],
  'Slack webhook': [
    join('https://hooks.', 'slack.com/services/', 'T0A1B2C3D', '/B4E5F6G7H', '/Zx8Cv6Bn4Mq2Wr0Ty9Ui7Op5'),
    'secretlint:slack',
  ],
  // secretlint 12 (Node 20) has no Stripe rule: Cairn's own covers it.
  'Stripe key': [join('sk', '_live_', 'Pq7Rs9Tu1Vw3Xy5Za7Bc9De1Fg3'), 'cairn:stripe'],
  'npm token': [join('npm', '_', 'Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5'), 'secretlint:npm'],
  'GitLab token': [join('glpat', '-', 'Xy7Zw5Vu3Ts1Rq9Po7Nm5'), 'secretlint:gitlab'],
  'database URL': [
    join('postgres://', 'app_rw:', 'Vq8-Tz3-Lw6-Np1', '@db.internal:5432/orders'),
    'secretlint:database-connection-string',
  ],
  'basic auth URL': [
    join('https://', 'deploy:', 'Kr7Mv2Xq9Lt4', '@ci.internal.net/hook'),
    'secretlint:basicauth',
  ],
  'private key block': [RSA_PEM.trimEnd(), 'secretlint:privatekey'],
};

/** A TypeScript file with `secret` on line 5 (after four ordinary lines). */
function sourceWith(secret: string, eol = '\n'): string {
  return [
    "import { readFile } from 'node:fs/promises';",
    '',
    '// Settings for the https://example.com integration.',
    'export const timeoutMs = 30_000;',
    `export const value = \`${secret}\`;`,
    'export const done = true;',
    '',
  ].join(eol);
}

/** Every 8-character slice of the secret's payload: none may surface anywhere. */
function fragments(secret: string): string[] {
  const out: string[] = [];
  const body = secret.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  for (let i = 0; i + 8 <= body.length; i += 4) out.push(body.slice(i, i + 8));
  return out;
}

/** The full recommended preset, no prefilter: what secretlint alone reports. */
async function fullPresetRuleLines(path: string, text: string): Promise<string[]> {
  const result = await lintSource({
    source: { filePath: path, ext: '.ts', content: text, contentType: 'text' },
    options: {
      config: {
        rules: [
          {
            id: recommendedPreset.meta.id,
            rule: recommendedPreset,
            rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
          },
        ],
      },
      maskSecrets: true,
      noPhysicFilePath: true,
    },
  });
  return result.messages
    .filter((m) => m.messageId !== 'AWSAccountID')
    .map((m) => `${m.ruleId.replace('@secretlint/secretlint-rule-', 'secretlint:')}@${m.loc.start.line}`);
}

describe('guard: secrets in file contents', () => {
  for (const [name, [secret, rule]] of Object.entries(PLANTED)) {
    it(`finds a planted ${name} on its line, and never repeats the value`, async () => {
      const text = sourceWith(secret);
      const findings = await scanFile('src/settings.ts', Buffer.from(text));
      expect(brief(findings)).toContainEqual({ rule, path: 'src/settings.ts', line: 5 });
      for (const f of findings)
        expect(Object.keys(f).sort()).toEqual(['action', 'confidence', 'line', 'path', 'rule']);
      const serialized = JSON.stringify([findings, guardFailure(findings), guardFailure(findings).message]);
      for (const fragment of fragments(secret)) expect(serialized).not.toContain(fragment);
    });
  }

  it('reports the same rules and lines as the unfiltered rule set (the keyword prefilter loses nothing)', async () => {
    const all = Object.values(PLANTED).map(([secret]) => secret);
    const text = ['// all of them, one per line', ...all.map((s) => `x(\`${s}\`);`), ''].join('\n');
    const ours = (await scanFile('src/all.ts', Buffer.from(text)))
      .filter((f) => f.rule.startsWith('secretlint:'))
      .map((f) => `${f.rule}@${f.line}`);
    const full = [...new Set(await fullPresetRuleLines('src/all.ts', text))];
    expect(ours.sort()).toEqual(full.sort());
    expect(ours.length).toBeGreaterThanOrEqual(all.length - 1); // all but Stripe are secretlint's
    for (const [name, [secret]] of Object.entries(PLANTED)) {
      const one = sourceWith(secret);
      const mine = (await scanFile('src/one.ts', Buffer.from(one)))
        .filter((f) => f.rule.startsWith('secretlint:'))
        .map((f) => `${f.rule}@${f.line}`);
      expect(mine.sort(), name).toEqual([...new Set(await fullPresetRuleLines('src/one.ts', one))].sort());
    }
  });

  it('counts lines across CRLF files and several findings in one file', async () => {
    const gh = PLANTED['GitHub token']![0];
    const slack = PLANTED['Slack token']![0];
    const text = ['a', 'b', `t = '${gh}'`, 'c', 'd', 'e', `s = '${slack}'`, ''].join('\r\n');
    const findings = await scanBrief('notes/tokens.md', Buffer.from(text));
    expect(findings).toEqual([
      { rule: 'secretlint:github', path: 'notes/tokens.md', line: 3 },
      { rule: 'secretlint:slack', path: 'notes/tokens.md', line: 7 },
    ]);
  });

  it('passes ordinary source, prose and configuration', async () => {
    const samples: Record<string, string> = {
      'src/errors.ts': readFileSync(new URL('../src/errors.ts', import.meta.url), 'utf8'),
      'src/desk/types.ts': readFileSync(new URL('../src/desk/types.ts', import.meta.url), 'utf8'),
      'src/config.ts': [
        "const secretName = 'db-password'; // the name of a secret, not a secret",
        "const url = 'https://example.com/path?q=1';",
        "const conn = process.env.DATABASE_URL ?? 'postgres://localhost/dev';",
        "const key = process.env['AWS_SECRET_ACCESS_KEY'];",
        "const example = 'AKIAIOSFODNN7EXAMPLE'; // AWS's documented example id",
        "const accountId = '123456789012'; // an account id is not a credential",
        "const aws_account_id = '1234-5678-9012';",
      ].join('\n'),
      'package.json': '{ "name": "x", "dependencies": { "ignore": "7.0.17" } }\n',
    };
    for (const [path, text] of Object.entries(samples)) {
      expect(await scanBrief(path, Buffer.from(text)), path).toEqual([]);
    }
  });

  it('ignores secretlint-disable comments: the guard is not the agent to waive', async () => {
    const gh = PLANTED['GitHub token']![0];
    const text = [
      `const fixture = '${gh}'; // secretlint-disable-line`,
      `const live = '${gh}';`,
      '// secretlint-disable',
      `const more = '${gh}';`,
      '// secretlint-enable',
      '',
    ].join('\n');
    expect(await scanBrief('test/fixture.ts', Buffer.from(text))).toEqual([
      { rule: 'secretlint:github', path: 'test/fixture.ts', line: 1 },
      { rule: 'secretlint:github', path: 'test/fixture.ts', line: 2 },
      { rule: 'secretlint:github', path: 'test/fixture.ts', line: 4 },
    ]);
  });

  it('scans binary files, files with NUL bytes and files of any size', async () => {
    const gh = PLANTED['GitHub token']![0];
    const binary = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      Buffer.from(`\n${gh}\n`),
    ]);
    expect(await scanBrief('assets/logo.png', binary)).toEqual([
      { rule: 'secretlint:github', path: 'assets/logo.png', line: 2 },
    ]);
    const big = Buffer.from(`${'// filler\n'.repeat(110_000)}const t = '${gh}';\n`);
    expect(big.length).toBeGreaterThan(1024 * 1024);
    expect(await scanBrief('src/big.ts', big)).toEqual([
      { rule: 'secretlint:github', path: 'src/big.ts', line: 110_001 },
    ]);
  });

  it('finds credentials in large binaries wherever text runs hold them, and skips keywords that binary bytes make by chance', async () => {
    const gh = PLANTED['GitHub token']![0];
    // Past 64 KiB a binary window is searched around its keywords only, over the run of text bytes each lies in.
    const binary = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < binary.length; i++) binary[i] = ((i * 7919) % 251) | 0x80; // no text byte anywhere
    binary[16] = 0; // a NUL early on: a binary file
    // A token between a non-letter high byte and NUL, as a string table holds it.
    binary.write(`\xe9${gh}\x00`, 300_000, 'latin1');
    // A PEM key with CRLF line breaks: one run of text bytes across its lines.
    binary.write(`\x00${RSA_PEM.replace(/\n/g, '\r\n')}\x00`, 600_000, 'latin1');
    // Keywords in runs too short to hold any credential.
    binary.write('\x00hf_\x00sg.\x00://\x00', 900_000, 'latin1');
    const rules = (await scanFile('assets/blob.bin', binary)).map((f) => f.rule).sort();
    expect(rules).toEqual(['cairn:private-key', 'secretlint:github', 'secretlint:privatekey']);
  });

  it('accepts a plain Uint8Array view into a larger buffer', async () => {
    const gh = PLANTED['GitHub token']![0];
    const whole = Buffer.from(`HEADER-NOT-PART-OF-FILE\nfirst\nt = '${gh}'\n`);
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 24, whole.length - 24);
    expect(await scanBrief('a.txt', view)).toEqual([{ rule: 'secretlint:github', path: 'a.txt', line: 2 }]);
  });

  it('keeps a keyword for every rule of the preset, and leaves no profiler marks behind', async () => {
    expect(unkeyedSecretRules()).toEqual([]);
    await scanFile('src/a.ts', Buffer.from(sourceWith(PLANTED['GitHub token']![0])));
    expect(performance.getEntriesByType('mark').filter((m) => m.name.includes('@core'))).toEqual([]);
  });
});

describe('guard: credential paths', () => {
  const flagged: Record<string, string> = {
    '.env': 'credential-path:dotenv',
    '.env.local': 'credential-path:dotenv',
    'services/api/.env.production': 'credential-path:dotenv',
    '.ssh/id_rsa': 'credential-path:ssh-key',
    id_ed25519: 'credential-path:ssh-key',
    'keys/id_ecdsa_work': 'credential-path:ssh-key',
    id_dsa: 'credential-path:ssh-key',
    'certs/server.pem': 'credential-path:pem',
    'certs/SERVER.PEM': 'credential-path:pem',
    'tls/site.key': 'credential-path:private-key',
    'signing/app.p12': 'credential-path:pkcs12',
    'signing/app.pfx': 'credential-path:pkcs12',
    '.aws/credentials': 'credential-path:aws',
    'home/.config/gcloud/application_default_credentials.json': 'credential-path:gcloud',
    '.config/gcloud/credentials.db': 'credential-path:gcloud',
    '.config/gcloud/legacy_credentials/me@example.com/adc.json': 'credential-path:gcloud',
    '.azure/msal_token_cache.json': 'credential-path:azure',
    '.azure/accessTokens.json': 'credential-path:azure',
    '.docker/config.json': 'credential-path:docker',
    '.netrc': 'credential-path:netrc',
    '.pgpass': 'credential-path:pgpass',
  };
  const kept = [
    '.env.example',
    '.env.sample',
    '.env.template',
    'config/.env.production.example',
    '.ssh/id_rsa.pub',
    'id_ed25519.pub',
    '.aws/config',
    '.config/gcloud/configurations/config_default',
    '.azure/config',
    'config.json',
    'docker/config.json',
    'src/env.ts',
    'environment.md',
    '.npmrc',
    '.pypirc',
    'src/keys.ts',
    'id.txt',
  ];

  it('flags credential files by path alone', async () => {
    for (const [path, rule] of Object.entries(flagged)) {
      expect(credentialPathRule(path), path).toBe(rule);
      // scanFile reports them without looking at the content, on line 0.
      expect(await scanBrief(path, Buffer.from('anything')), path).toEqual([{ rule, path, line: 0 }]);
      expect((await scanFile(path, Buffer.from('anything')))[0]).toMatchObject({
        confidence: 'high',
        action: 'withheld',
      });
    }
  });

  it('leaves examples, public keys and look-alikes alone', async () => {
    for (const path of kept) {
      expect(credentialPathRule(path), path).toBeNull();
      expect(await scanBrief(path, Buffer.from('# nothing to see\nname = demo\n')), path).toEqual([]);
    }
  });

  it('flags .npmrc only when it holds an auth token, password or _auth', async () => {
    const token = join('Zt7', 'Yq2Wn5Rk8Lp3Xc6Vb9');
    const withToken = `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${token}\n`;
    const found = await scanBrief('.npmrc', Buffer.from(withToken));
    expect(found).toContainEqual({ rule: 'credential-path:npmrc', path: '.npmrc', line: 2 });
    expect(JSON.stringify(found)).not.toContain(token);
    expect(await scanBrief('web/.npmrc', Buffer.from(`; comment\n_auth = ${token}\n`))).toContainEqual({
      rule: 'credential-path:npmrc',
      path: 'web/.npmrc',
      line: 2,
    });
    expect(
      await scanBrief('.npmrc', Buffer.from(`//npm.example.net/:_password="${token}"\n`)),
    ).toContainEqual({
      rule: 'credential-path:npmrc',
      path: '.npmrc',
      line: 1,
    });
    for (const text of [
      'registry=https://registry.npmjs.org/\nsave-exact=true\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: npm's own `${VAR}` syntax, meant literally
      '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n',
    ]) {
      expect(await scanBrief('.npmrc', Buffer.from(text)), text).toEqual([]);
    }
    // A commented-out line is no credential to the path rule (secretlint's npm rule is stricter).
    for (const text of ['# _authToken=abc123 in a comment\n', ';//npm.example.net/:_authToken=abc123\n']) {
      const commented = await scanBrief('.npmrc', Buffer.from(text));
      expect(commented.filter((f) => f.rule === 'credential-path:npmrc')).toEqual([]);
    }
  });

  it('flags .pypirc only when it holds a password', async () => {
    const text = '[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = pypi-Ag8x\n';
    expect(await scanBrief('.pypirc', Buffer.from(text))).toEqual([
      { rule: 'credential-path:pypirc', path: '.pypirc', line: 6 },
    ]);
    expect(await scanBrief('.pypirc', Buffer.from('[pypi]\nusername = __token__\n'))).toEqual([]);
  });
});

describe('guard: fail policy error', () => {
  it('is FORBIDDEN, lists rule/path/line only, and says what to do', () => {
    const leaky = {
      rule: 'secretlint:github',
      path: 'src/a.ts',
      line: 3,
      confidence: 'high',
      action: 'withheld',
      secret: 'hunter2',
    } as SecretFinding;
    const findings: SecretFinding[] = [
      leaky,
      { rule: 'credential-path:dotenv', path: '.env', line: 0, confidence: 'high', action: 'withheld' },
    ];
    const error = guardFailure(findings);
    expect(error).toBeInstanceOf(CairnError);
    expect(error.code).toBe('FORBIDDEN');
    expect(error.data).toEqual({
      findings: [
        { rule: 'secretlint:github', path: 'src/a.ts', line: 3, confidence: 'high' },
        { rule: 'credential-path:dotenv', path: '.env', line: 0, confidence: 'high' },
      ],
    });
    expect(error.message).toContain('src/a.ts:3');
    expect(error.message).toContain('.cairnignore');
    expect(error.message).toMatch(/remove the secret/);
    expect(JSON.stringify(error.toJSON())).not.toContain('hunter2');
  });

  it('keeps the message short when there are many findings', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      rule: 'credential-path:pem',
      path: `k/${i}.pem`,
      line: 0,
      confidence: 'high' as const,
      action: 'withheld' as const,
    }));
    const error = guardFailure(many);
    expect(error.message).toContain('and 35 more');
    expect((error.data.findings as unknown[]).length).toBe(40);
  });
});

describe('guard: path filter', () => {
  it('applies the defaults, and keeps .git', () => {
    const filter = createPathFilter(null);
    expect(DEFAULT_IGNORES).toEqual(
      expect.arrayContaining(['.cairn/', 'node_modules/.cache/', '.venv/', '*.swp']),
    );
    const ignored: [string, boolean][] = [
      ['.cairn', true],
      ['.cairn/objects/ab', false],
      ['node_modules/.cache', true],
      ['node_modules/.cache/babel/x.json', false],
      ['.venv', true],
      ['py/.venv/lib/site.py', false],
      ['pkg/__pycache__', true],
      ['pkg/__pycache__/m.cpython-312.pyc', false],
      ['.pytest_cache', true],
      ['src/.main.ts.swp', false],
      ['.DS_Store', false],
      ['assets/.DS_Store', false],
    ];
    for (const [path, isDir] of ignored) expect(filter.ignored(path, isDir), path).toBe(true);
    const kept: [string, boolean][] = [
      ['.git', true],
      ['.git/HEAD', false],
      ['.git/objects/pack/p.pack', false],
      ['node_modules', true],
      ['node_modules/ignore/index.js', false],
      ['src/cairn.ts', false],
      ['.env', false],
      ['.cairnignore', false],
    ];
    for (const [path, isDir] of kept) expect(filter.ignored(path, isDir), path).toBe(false);
  });

  it('applies .cairnignore: directory rules, anchors, globs, negation, comments, CRLF', () => {
    const text = [
      '# build output',
      'build/',
      '/dist',
      '*.log',
      '!keep.log',
      'tmp/**/*.bin',
      '',
      '!.venv/',
    ].join('\r\n');
    const filter = createPathFilter(text);
    expect(filter.ignored('build', true)).toBe(true);
    expect(filter.ignored('web/build', true)).toBe(true);
    expect(filter.ignored('build/out.js', false)).toBe(true);
    expect(filter.ignored('build', false)).toBe(false); // a file named build: `build/` matches directories only
    expect(filter.ignored('dist', true)).toBe(true);
    expect(filter.ignored('dist/app.js', false)).toBe(true);
    expect(filter.ignored('web/dist', true)).toBe(false); // anchored to the root
    expect(filter.ignored('a.log', false)).toBe(true);
    expect(filter.ignored('deep/er/b.log', false)).toBe(true);
    expect(filter.ignored('keep.log', false)).toBe(false);
    expect(filter.ignored('tmp/a/b/c.bin', false)).toBe(true);
    expect(filter.ignored('tmp/c.txt', false)).toBe(false);
    expect(filter.ignored('# build output', false)).toBe(false);
    // A negation in .cairnignore brings a default back.
    expect(filter.ignored('.venv', true)).toBe(false);
    expect(filter.ignored('.venv/bin/python', false)).toBe(false);
    // Case-sensitive, as git is by default.
    expect(filter.ignored('A.LOG', false)).toBe(false);
  });

  it('a file under an ignored directory stays ignored even if negated (as in git)', () => {
    const filter = createPathFilter('logs/\n!logs/keep.txt\n');
    expect(filter.ignored('logs/keep.txt', false)).toBe(true);
  });

  it('takes extra patterns after .cairnignore', () => {
    const filter = createPathFilter('!*.tmp\n', ['*.tmp', 'scratch/']);
    expect(filter.ignored('a.tmp', false)).toBe(true);
    expect(filter.ignored('scratch', true)).toBe(true);
    expect(filter.ignored('src/a.ts', false)).toBe(false);
  });

  it('refuses paths that are not workspace-relative', () => {
    const filter = createPathFilter(null);
    for (const bad of ['', '/etc/passwd', './a', '../a']) {
      expect(() => filter.ignored(bad, false), bad).toThrow(CairnError);
    }
  });
});
