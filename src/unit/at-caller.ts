import type { AtCaller } from '../ops/op.js';
import type { UNIT_CONTRACT } from './contract.js';

/**
 * Where the caller is, a listing of "my workspace's checkpoints" names the
 * workspace by its directory or not at all: the caller's side makes it an id
 * the store knows. A session's listing needs nothing of the caller.
 */
export const UNIT_AT_CALLER: AtCaller<typeof UNIT_CONTRACT> = {
  listCheckpoints: async (caller, input) => {
    if (input.workspace === undefined && input.session !== undefined) return input;
    if (input.workspace?.startsWith('ws_')) return input;
    return { ...input, workspace: (await caller.workspace(input.workspace)).id };
  },
};
