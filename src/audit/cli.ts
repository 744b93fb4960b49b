/**
 * `cairn audit checkpoint | proof | consistency | key`: the audit log's
 * verification documents from the command line, made from the operations'
 * CLI bindings. `--json` prints each document as docs/design/audit.md writes
 * it; without it, the lines a person reads. (`audit verify` is in
 * cli/fabric-commands.ts: it walks every tenant of a local store.)
 */
import type { z } from 'zod';
import type { FabricCommand } from '../cli/command.js';
import { operationCommand } from '../cli/derived.js';
import { isoTime } from '../cli/output.js';
import { AUDIT_CONTRACT } from './contract.js';
import type * as shape from './shapes.js';

type Checkpoint = z.output<typeof shape.AuditCheckpoint>;
type Proof = z.output<typeof shape.InclusionProof>;
type Consistency = z.output<typeof shape.ConsistencyProof>;
type PublicKey = z.output<typeof shape.AuditPublicKey>;

const path = (hashes: readonly string[]) => hashes.map((h, i) => `  ${i}  ${h}`);

export const AUDIT_COMMANDS: FabricCommand[] = [
  operationCommand(AUDIT_CONTRACT.auditCheckpoint, (c: Checkpoint) => [
    `tree size ${c.size}, root ${c.root}, signed ${isoTime(c.at)}`,
    '',
    ...c.note.trimEnd().split('\n'),
  ]),
  operationCommand(AUDIT_CONTRACT.auditProof, (p: Proof) => [
    `entry ${p.index} in the tree of ${p.size}: leaf ${p.leafHash}, root ${p.root}`,
    `entry: ${p.entry}`,
    `audit path (leaf to root, ${p.path.length} hashes):`,
    ...path(p.path),
    ...(p.tlogProof
      ? [
          '',
          'as a C2SP tlog-proof (save it as a .tlog-proof file):',
          '',
          ...p.tlogProof.trimEnd().split('\n'),
        ]
      : []),
  ]),
  operationCommand(AUDIT_CONTRACT.auditConsistency, (p: Consistency) => [
    `tree ${p.from} (root ${p.fromRoot}) is a prefix of tree ${p.to} (root ${p.toRoot})`,
    `consistency path (${p.path.length} hashes):`,
    ...path(p.path),
  ]),
  operationCommand(AUDIT_CONTRACT.auditKey, (k: PublicKey) => [
    `${k.algorithm} public key ${k.publicKey}`,
    `note verifier key: ${k.verifierKey}`,
  ]),
];
