import { verifyAuditChain } from './audit/audit-verify.js';
import type { Fabric } from './fabric.js';
import { type Action, authorize } from './identity/access-gate.js';
import { insertPrincipal, insertToken, revokeToken } from './identity/identity-store.js';
import * as log from './log/session-log.js';
import * as schema from './schema.js';
import type { Engine, SqlExecutor } from './storage/engine.js';
import type { Identity } from './types.js';
import { parseInput } from './validate.js';

/**
 * The fabric over a local engine, acting as one identity. Each method passes
 * the access gate, validates its input once, and runs in one transaction of
 * the caller's tenant.
 */
export class EmbeddedFabric implements Fabric {
  constructor(
    private readonly engine: Engine,
    private readonly who: Identity,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {}

  private write<T>(action: Action, fn: (tx: SqlExecutor, now: number) => Promise<T>): Promise<T> {
    authorize(this.who, action);
    return this.engine.write(this.who.tenant, (tx) => fn(tx, Date.now()));
  }

  private read<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    authorize(this.who, action);
    return this.engine.read(this.who.tenant, fn);
  }

  async whoami(): Promise<Identity> {
    return { ...this.who };
  }

  async createSession(input: schema.CreateSessionInput = {}) {
    const valid = parseInput(schema.CreateSessionInput, input, 'create session');
    return this.write('session.create', (tx, now) => log.createSession(tx, this.who, valid, now));
  }

  async listSessions(input: schema.ListSessionsInput = {}) {
    const valid = parseInput(schema.ListSessionsInput, input, 'list sessions');
    return this.read('session.read', (tx) => log.listSessions(tx, this.who, valid));
  }

  async getSession(id: string) {
    const valid = parseInput(schema.SessionId, id, 'get session');
    return this.read('session.read', (tx) => log.getSession(tx, this.who, valid));
  }

  async append(input: schema.AppendInput) {
    const valid = parseInput(schema.AppendInput, input, 'append');
    const payload = log.encodePayload(valid.payload);
    return this.write('log.append', (tx, now) => log.appendEvent(tx, this.who, valid, payload, now));
  }

  async readBranch(input: schema.ReadBranchInput) {
    const valid = parseInput(schema.ReadBranchInput, input, 'read branch');
    return this.read('log.read', (tx) => log.readBranch(tx, this.who, valid));
  }

  async getEvent(id: string) {
    const valid = parseInput(schema.EventId, id, 'get event');
    return this.read('log.read', (tx) => log.getEvent(tx, this.who, valid));
  }

  async fork(input: schema.ForkInput) {
    const valid = parseInput(schema.ForkInput, input, 'fork');
    return this.write('branch.fork', (tx, now) => log.forkBranch(tx, this.who, valid, now));
  }

  async rewind(input: schema.RewindInput) {
    const valid = parseInput(schema.RewindInput, input, 'rewind');
    return this.write('branch.rewind', (tx, now) => log.rewindBranch(tx, this.who, valid, now));
  }

  async moveHead(input: schema.MoveHeadInput) {
    const valid = parseInput(schema.MoveHeadInput, input, 'move head');
    return this.write('branch.move', (tx, now) => log.moveHead(tx, this.who, valid, now));
  }

  async readPath(input: schema.ReadPathInput) {
    const valid = parseInput(schema.ReadPathInput, input, 'read path');
    return this.read('log.read', (tx) => log.readPath(tx, this.who, valid));
  }

  async listBranches(session: string) {
    const valid = parseInput(schema.SessionId, session, 'list branches');
    return this.read('branch.read', (tx) => log.listBranches(tx, this.who, valid));
  }

  async branchHistory(session: string, branch: string) {
    const validSession = parseInput(schema.SessionId, session, 'branch history');
    const validBranch = parseInput(schema.BranchName, branch, 'branch history');
    return this.read('branch.read', (tx) => log.branchHistory(tx, this.who, validSession, validBranch));
  }

  async createToken(input: schema.CreateTokenInput = {}) {
    const valid = parseInput(schema.CreateTokenInput, input, 'create token');
    const forSelf = valid.principal === this.who.principal;
    return this.write(forSelf ? 'token.create.self' : 'token.create.other', async (tx, now) => {
      const principal =
        valid.principal ??
        (await insertPrincipal(
          tx,
          this.who.tenant,
          { kind: valid.kind ?? 'agent', name: valid.name ?? 'agent', role: valid.role ?? 'member' },
          this.who.principal,
          now,
        ));
      return insertToken(tx, this.who.tenant, principal, valid.label, this.who.principal, now);
    });
  }

  async revokeToken(id: string) {
    const valid = parseInput(schema.TokenId, id, 'revoke token');
    return this.write('token.revoke.self', (tx, now) =>
      revokeToken(
        tx,
        this.who.tenant,
        valid,
        this.who.principal,
        (owner) => {
          if (owner !== this.who.principal) authorize(this.who, 'token.revoke.other');
        },
        now,
      ),
    );
  }

  async verifyAudit() {
    authorize(this.who, 'audit.verify');
    return verifyAuditChain(this.engine, this.who.tenant);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
