import type { Client } from './contract/spec.js';
import { bindOps } from './ops/op.js';
import { type ContextOptions, OPERATIONS, type Operations, opContext } from './ops/table.js';
import type { Engine } from './storage/engine.js';
import type { Identity } from './types.js';

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
    Object.assign(this, bindOps(OPERATIONS, opContext(engine, who, options)));
  }

  close(): Promise<void> {
    return this.#onClose();
  }
}
