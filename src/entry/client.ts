/**
 * `cairn/client`: the remote fabric alone — `connect` to a `cairn serve`,
 * the wire manifest it is made from, and Cairn's errors. Importing it loads
 * no database driver, no secret scanner, no server and no schema library
 * (test/contract.test.ts); the schemas are `cairn/contract`.
 */
export { connect } from '../client/connect.js';
export { type ConnectOptions, RemoteFabric } from '../client/remote-fabric.js';
export type { Contract } from '../contract/index.js';
export type { Client, OpSpec } from '../contract/spec.js';
export { WIRE } from '../contract/wire.js';
export type { WireOp } from '../contract/wire-of.js';
export { CairnError, type CairnErrorJSON, type ErrorCode } from '../errors.js';
