import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalidArgument } from '../errors.js';
import { MasterKey } from '../keys/crypto.js';
import { stringFlag } from './args.js';
import type { FlagSpec, Invocation } from './command.js';

/**
 * The vault master key, from `--master-key-file`, `$CAIRN_MASTER_KEY_FILE`
 * or `$CAIRN_MASTER_KEY`: read by the CLI and passed to the library.
 */
export const MASTER_KEY_FLAG: FlagSpec = {
  name: 'master-key-file',
  type: 'string',
  value: 'FILE',
  help: 'the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)',
};

/** The operator's master key, from a file or the environment; undefined when none is given. */
export function masterKeyOf(call: Invocation): MasterKey | undefined {
  const file = stringFlag(call.values, 'master-key-file') ?? call.env.CAIRN_MASTER_KEY_FILE;
  if (file !== undefined && file !== '') {
    const path = resolve(call.cwd, file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw invalidArgument(
        `could not read the master key file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path`,
        { file: path },
      );
    }
    return MasterKey.parse(text, path);
  }
  const inline = call.env.CAIRN_MASTER_KEY;
  return inline ? MasterKey.parse(inline, 'CAIRN_MASTER_KEY') : undefined;
}
