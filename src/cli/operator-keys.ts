import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AuditKey } from '../audit/note.js';
import { invalidArgument } from '../errors.js';
import { MasterKey } from '../keys/crypto.js';
import { stringFlag } from './args.js';
import type { FlagSpec, Invocation } from './command.js';

/**
 * The keys the operator holds and Cairn never stores — the vault master key
 * and the audit signing key — each from a file flag (`--<name>-file`), a file
 * variable (`$CAIRN_<NAME>_FILE`) or the key itself in a variable
 * (`$CAIRN_<NAME>`): read by the CLI and passed to the library.
 */
function operatorKey<K>(
  name: string,
  what: string,
  help: string,
  parse: (text: string, where: string) => K,
): { flag: FlagSpec; of(call: Invocation): K | undefined } {
  const variable = `CAIRN_${name.toUpperCase().replaceAll('-', '_')}`;
  const flag: FlagSpec = {
    name: `${name}-file`,
    type: 'string',
    value: 'FILE',
    help: `${help} (env ${variable}_FILE, or ${variable} with the key itself)`,
  };
  const of = (call: Invocation): K | undefined => {
    const file = stringFlag(call.values, flag.name) ?? call.env[`${variable}_FILE`];
    if (file !== undefined && file !== '') {
      const path = resolve(call.cwd, file);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        throw invalidArgument(
          `could not read the ${what} file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path`,
          { file: path },
        );
      }
      return parse(text, path);
    }
    const inline = call.env[variable];
    return inline ? parse(inline, variable) : undefined;
  };
  return { flag, of };
}

const MASTER = operatorKey('master-key', 'master key', 'the vault master key', MasterKey.parse);
/** `--master-key-file`, `$CAIRN_MASTER_KEY_FILE` or `$CAIRN_MASTER_KEY`. */
export const MASTER_KEY_FLAG = MASTER.flag;
/** The operator's master key, from a file or the environment; undefined when none is given. */
export const masterKeyOf = MASTER.of;

const AUDIT = operatorKey(
  'audit-key',
  'audit key',
  'the audit signing key the operator holds, an Ed25519 seed in hex; without it the store keeps its own',
  AuditKey.parse,
);
/** `--audit-key-file`, `$CAIRN_AUDIT_KEY_FILE` or `$CAIRN_AUDIT_KEY`. */
export const AUDIT_KEY_FLAG = AUDIT.flag;
/** The operator's audit signing key, from a file or the environment; undefined when none is given. */
export const auditKeyOf = AUDIT.of;
