// Writes src/contract/wire.ts, the remote client's manifest, from the built contract
// (run `npm run build` first; `npm run wire` does both). test/contract.test.ts checks it.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { CONTRACT } = await import('../dist/contract/index.js');
const { wireModule, wireOf } = await import('../dist/contract/wire-of.js');
const target = fileURLToPath(new URL('../src/contract/wire.ts', import.meta.url));
writeFileSync(target, wireModule(wireOf(CONTRACT)));
console.log(`wrote ${target}`);
