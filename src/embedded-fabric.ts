import type { Feature } from './contract/index.js';
import type { Client } from './contract/spec.js';
import { WIRE } from './contract/wire.js';
import { type ContextOptions, opContext } from './ops/context.js';
import { type OpContext, runOp } from './ops/op.js';
import { featureOperations } from './ops/registry.js';
import type { Operations } from './ops/table.js';
import type { Engine } from './storage/engine.js';
import type { Identity } from './types.js';

/**
 * The table's methods bound to one context, each loading its feature's
 * contract and handlers on its first call (the wire manifest names the
 * operations and their features without loading any).
 */
function embeddedMethods(ctx: OpContext): Record<string, (input?: unknown) => Promise<unknown>> {
  const methods: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const [name, { feature }] of Object.entries(WIRE))
    methods[name] = async (input) => {
      const operation = (await featureOperations(feature as Feature))[name];
      if (!operation)
        throw new Error(`the ${feature} feature has no operation ${name}: run \`npm run wire\``);
      return runOp(operation, ctx, input);
    };
  return methods;
}

/**
 * The fabric over a local engine, acting as one identity: the table of
 * operations bound to it. Each method passes the access gate, validates its
 * input once, and runs in one transaction of the caller's tenant.
 */
export interface EmbeddedFabric extends Client<Operations> {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the methods come from the table (the interface above), assigned in the constructor.
export class EmbeddedFabric {
  readonly #onClose: () => Promise<void>;

  /**
   * `options.caller`, on the machine that holds the workspaces (a local store
   * with a desk), lets the operations that run there (attach, checkpoint,
   * restore, fork, status) run, and settles a workspace named by its
   * directory for those that take one (listCheckpoints); elsewhere they are
   * refused with where they run.
   * `options.masterKey` lets the credential operations seal values.
   */
  constructor(
    engine: Engine,
    who: Identity,
    onClose: () => Promise<void> = async () => {},
    options: ContextOptions = {},
  ) {
    this.#onClose = onClose;
    Object.assign(this, embeddedMethods(opContext(engine, who, options)));
  }

  close(): Promise<void> {
    return this.#onClose();
  }
}
