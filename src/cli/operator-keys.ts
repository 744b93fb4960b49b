import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AuditKey } from '../audit/note.js';
import { invalidArgument } from '../errors.js';
import { MasterKey } from '../keys/crypto.js';
import { stringFlag } from './args.js';
import type { FlagSpec, Invocation } from './command.js';

/**
 * The keys the operator holds and Cairn never stores — the vault master key
 * and the audit signing key — each from a file flag, a file variable or the
 * key itself in a variable: read by the CLI and passed to the library.
 */
interface KeySource {
  flag: string;
  fileVariable: string;
  variable: string;
}

/** The text of a key and where it came from, or undefined when none is given. */
function keyText(
  call: Invocation,
  source: KeySource,
  what: string,
): { text: string; where: string } | undefined {
  const file = stringFlag(call.values, source.flag) ?? call.env[source.fileVariable];
  if (file !== undefined && file !== '') {
    const path = resolve(call.cwd, file);
    try {
      return { text: readFileSync(path, 'utf8'), where: path };
    } catch (error) {
      throw invalidArgument(
        `could not read the ${what} file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path`,
        { file: path },
      );
    }
  }
  const inline = call.env[source.variable];
  return inline ? { text: inline, where: source.variable } : undefined;
}

const MASTER: KeySource = {
  flag: 'master-key-file',
  fileVariable: 'CAIRN_MASTER_KEY_FILE',
  variable: 'CAIRN_MASTER_KEY',
};

/** `--master-key-file`, `$CAIRN_MASTER_KEY_FILE` or `$CAIRN_MASTER_KEY`. */
export const MASTER_KEY_FLAG: FlagSpec = {
  name: MASTER.flag,
  type: 'string',
  value: 'FILE',
  help: 'the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)',
};

/** The operator's master key, from a file or the environment; undefined when none is given. */
export function masterKeyOf(call: Invocation): MasterKey | undefined {
  const key = keyText(call, MASTER, 'master key');
  return key && MasterKey.parse(key.text, key.where);
}

const AUDIT: KeySource = {
  flag: 'audit-key-file',
  fileVariable: 'CAIRN_AUDIT_KEY_FILE',
  variable: 'CAIRN_AUDIT_KEY',
};

/** `--audit-key-file`, `$CAIRN_AUDIT_KEY_FILE` or `$CAIRN_AUDIT_KEY`. */
export const AUDIT_KEY_FLAG: FlagSpec = {
  name: AUDIT.flag,
  type: 'string',
  value: 'FILE',
  help: 'the audit signing key the operator holds, an Ed25519 seed in hex (env CAIRN_AUDIT_KEY_FILE, or CAIRN_AUDIT_KEY); without it the store keeps its own',
};

/** The operator's audit signing key, from a file or the environment; undefined when none is given. */
export function auditKeyOf(call: Invocation): AuditKey | undefined {
  const key = keyText(call, AUDIT, 'audit key');
  return key && AuditKey.parse(key.text, key.where);
}
