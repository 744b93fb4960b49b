import { CONTRACT_PARTS, type Contract, type Feature } from '../contract/index.js';
import { type HttpBinding, opTitle } from '../contract/spec.js';
import { unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { Engine } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { parseInput } from '../validate.js';
import { type Bound, type CallerSide, type Op, type OpContext, runOp, withHandlers } from './op.js';
import { AT_CALLER, featureOperations } from './registry.js';

/**
 * The contract with every feature's handlers registered: what the server side
 * runs. A feature's code loads on the first call of one of its operations
 * (ops/registry.ts).
 */
// The contract's type given, not inferred: the caller's side (its units, over a fabric) refers back to it.
export const OPERATIONS = Object.assign(
  {},
  ...(Object.entries(CONTRACT_PARTS) as [Feature, Contract][]).map(([feature, part]) =>
    withHandlers(
      part,
      async () => {
        const table = await featureOperations(feature);
        return Object.fromEntries(Object.entries(table).map(([name, op]) => [name, op.run])) as never;
      },
      AT_CALLER[feature] as never,
    ),
  ),
) as Bound<Contract>;
export type Operations = typeof OPERATIONS;

/**
 * A fabric that is not embedded (a server's), with the operations that run
 * at the caller (the unit's) running here, over the caller's side, and those
 * with a step the caller's side settles first (a workspace named by its
 * directory) settled here, then sent: what `cairn mcp --url` serves.
 */
export function withCallerOps(fabric: Fabric, caller: CallerSide): Fabric {
  // The unit's operations act through `caller` only; the store is the server's, reached through `fabric`.
  const elsewhere = (): never => {
    throw unavailable("the store is a server's: reach it through the fabric", {});
  };
  const ctx: OpContext = {
    get who(): Identity {
      return elsewhere();
    },
    get engine(): Engine {
      return elsewhere();
    },
    caller,
    read: elsewhere,
    write: elsewhere,
    once: elsewhere,
  };
  const operations = Object.values(OPERATIONS) as Op[];
  const there = fabric as unknown as Record<string, (input: unknown) => Promise<unknown>>;
  const here = Object.fromEntries([
    ...operations
      .filter((o) => o.runs === 'caller')
      .map((o) => [o.name, (input?: unknown) => runOp(o, ctx, input)]),
    ...operations
      .filter((o) => o.runs === 'anywhere' && o.atCaller)
      .map((o) => [
        o.name,
        async (input?: unknown) => {
          const valid = parseInput(o.input, input ?? {}, opTitle(o.name));
          return (there[o.name] as (input: unknown) => Promise<unknown>)(
            await (o.atCaller as NonNullable<Op['atCaller']>)(caller, valid),
          );
        },
      ]),
  ]);
  return { ...fabric, ...here, close: () => fabric.close() } as Fabric;
}

/** Operations served over HTTP: those that run anywhere (each has its route). */
export function servedOps(): (Op & { http: HttpBinding })[] {
  return (Object.values(OPERATIONS) as Op[]).filter(
    (o): o is Op & { http: HttpBinding } => o.runs === 'anywhere' && o.http !== undefined,
  );
}
