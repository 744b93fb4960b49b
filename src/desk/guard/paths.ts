/**
 * Credential files recognised by their path alone: what such a file holds is
 * a credential whatever it looks like, so it is withheld whole, without being
 * read. `.npmrc` and `.pypirc` hold a secret only sometimes and are judged by
 * their content ({@link contentPathFindings}).
 */

/** `.env` suffixes that by convention hold no real values. */
const SAFE_DOTENV_SUFFIXES = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema']);
const SSH_KEY_PREFIXES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'];
const GCLOUD_DIR_FILES = new Set(['credentials.db', 'access_tokens.db']);
const AZURE_FILES = new Set([
  'accesstokens.json',
  'msal_token_cache.json',
  'msal_token_cache.bin',
  'service_principal_entries.json',
  'service_principal_entries.bin',
]);

function dotenvRule(name: string): string | null {
  // `.env`, `.env.local`, `.env-prod`, `prod.env`, `.envrc` (direnv): all hold environment values.
  let rest: string | null = null;
  if (name === '.env' || name === '.envrc') return 'credential-path:dotenv';
  if (name.startsWith('.env.') || name.startsWith('.env-') || name.startsWith('.env_')) rest = name.slice(5);
  else if (name.endsWith('.env') && name.length > 4) rest = name.slice(0, -4);
  if (rest === null) return null;
  const words = rest.split(/[.\-_]/);
  return words.some((w) => SAFE_DOTENV_SUFFIXES.has(w)) ? null : 'credential-path:dotenv';
}

/**
 * The credential-path rule a path falls under (`'credential-path:dotenv'`,
 * …), or null. Needs no content.
 */
export function credentialPathRule(relPath: string): string | null {
  const parts = relPath.split('/');
  const name = (parts[parts.length - 1] ?? '').toLowerCase();
  const parent = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const dotenv = dotenvRule(name);
  if (dotenv) return dotenv;
  if (name.endsWith('.pem')) return 'credential-path:pem';
  if (name.endsWith('.key')) return 'credential-path:private-key';
  if (name.endsWith('.p12') || name.endsWith('.pfx')) return 'credential-path:pkcs12';
  if (name.endsWith('.ppk')) return 'credential-path:putty';
  if (name.endsWith('.jks') || name.endsWith('.keystore')) return 'credential-path:keystore';
  if (SSH_KEY_PREFIXES.some((p) => name.startsWith(p)) && !name.endsWith('.pub'))
    return 'credential-path:ssh-key';
  if (name === '.netrc' || name === '_netrc') return 'credential-path:netrc';
  if (name === '.pgpass') return 'credential-path:pgpass';
  if (name === '.git-credentials') return 'credential-path:git-credentials';
  if (parent === '.aws' && name === 'credentials') return 'credential-path:aws';
  if (parent === '.docker' && name === 'config.json') return 'credential-path:docker';
  if (name === 'application_default_credentials.json') return 'credential-path:gcloud';
  const dirs = parts.slice(0, -1);
  if (dirs.includes('gcloud') && (GCLOUD_DIR_FILES.has(name) || dirs.includes('legacy_credentials'))) {
    return 'credential-path:gcloud';
  }
  if (AZURE_FILES.has(name)) return 'credential-path:azure';
  return null;
}

export type ContentPathKind = 'npmrc' | 'pypirc';

export function contentPathKind(relPath: string): ContentPathKind | null {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  if (name === '.npmrc') return 'npmrc';
  if (name === '.pypirc') return 'pypirc';
  return null;
}

/** `_authToken=`, `_auth=`, `_password=` (optionally registry-scoped) in `.npmrc`; `password` in `.pypirc`. */
const CONTENT_PATH_KEYS = {
  npmrc: /^\s*(?:\S*:)?_(?:authToken|auth|password)\s*=\s*(.*)$/,
  pypirc: /^\s*password\s*[=:]\s*(.*)$/,
} as const;

/** Line numbers (1-based) of `.npmrc` / `.pypirc` lines that hold a credential. */
export function contentPathLines(kind: ContentPathKind, text: string): number[] {
  const found: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*[#;]/.test(line)) continue; // ini comments
    const m = CONTENT_PATH_KEYS[kind].exec(line);
    if (!m) continue;
    const value = (m[1] ?? '').trim().replace(/^["']|["']$/g, '');
    // `_authToken=${NPM_TOKEN}` reads the token from the environment: nothing is stored.
    if (value === '' || (kind === 'npmrc' && value.startsWith('${'))) continue;
    found.push(i + 1);
  }
  return found;
}
