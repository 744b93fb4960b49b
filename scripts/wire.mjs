// Writes the generated manifests from the built code (run `npm run build` first;
// `npm run wire` does both): src/contract/wire.ts, the remote client's, from the
// contract (test/contract.test.ts checks it), and src/cli/manifest.ts, the CLI's
// commands as data, from the commands (test/cli-parity.test.ts checks it).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { CONTRACT_PARTS } = await import('../dist/contract/index.js');
const { wireModule, wireOf } = await import('../dist/contract/wire-of.js');
const { allCommands } = await import('../dist/cli/commands.js');
const COMMANDS = await allCommands();
const { manifestModule } = await import('../dist/cli/command.js');
for (const [path, text] of [
  ['../src/contract/wire.ts', wireModule(wireOf(CONTRACT_PARTS))],
  ['../src/cli/manifest.ts', manifestModule(COMMANDS)],
]) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
