/**
 * `cairn erase --subject …`: the erasure cascade from the command line, made
 * from the operation's CLI binding. `--json` prints the erasure document
 * with its receipt (docs/design/erasure.md); without it, the lines a person
 * reads.
 */
import type { z } from 'zod';
import type { FabricCommand } from '../cli/command.js';
import { operationCommand } from '../cli/derived.js';
import { ERASURE_CONTRACT } from './contract.js';
import type * as shape from './shapes.js';

type Erasure = z.output<typeof shape.Erasure>;

const countLines = (e: Erasure) =>
  Object.entries(e.counts).flatMap(([feature, kinds]) =>
    Object.entries(kinds).map(([kind, n]) => `  ${feature}.${kind}  ${n}`),
  );

export const ERASURE_COMMANDS: FabricCommand[] = [
  operationCommand(ERASURE_CONTRACT.erase, (e: Erasure) =>
    e.preview
      ? [`would erase of ${e.subject}:`, ...countLines(e), 'nothing was erased (--preview)']
      : [
          `erased ${e.subject}: erasure ${e.erasure}`,
          ...countLines(e),
          ...(e.reclaimed
            ? [
                `outside the rows: ${Object.entries(e.reclaimed.swept)
                  .map(([k, n]) => `${n} ${k}`)
                  .join(
                    ', ',
                  )}; database ${e.reclaimed.database.database}, its log ${e.reclaimed.database.log}`,
              ]
            : []),
          `in the audit tree of ${e.checkpoint?.size} entries (root ${e.checkpoint?.root})`,
          '',
          ...(e.receipt ?? '').trimEnd().split('\n'),
        ],
  ),
];
