import type {
  AppendInput,
  CreateSessionInput,
  CreateTokenInput,
  ForkInput,
  ListSessionsInput,
  MoveHeadInput,
  ReadBranchInput,
  ReadPathInput,
  RewindInput,
} from './schema.js';
import type {
  AppendResult,
  AuditReport,
  Branch,
  CairnEvent,
  CreatedToken,
  EventPage,
  Identity,
  RefLogEntry,
  RevokedToken,
  Session,
  SessionPage,
} from './types.js';

/**
 * What an agent harness talks to, whether the fabric is embedded in its
 * process (`openFabric`) or served over HTTP (`connect`). Every call acts as
 * one identity and sees only its tenant.
 */
export interface Fabric {
  whoami(): Promise<Identity>;

  createSession(input?: CreateSessionInput): Promise<Session>;
  listSessions(input?: ListSessionsInput): Promise<SessionPage>;
  getSession(id: string): Promise<Session>;

  /** Appends one event to a branch head; durable when the promise resolves. */
  append(input: AppendInput): Promise<AppendResult>;
  /** Events root → head of a branch, paged by sequence number. */
  readBranch(input: ReadBranchInput): Promise<EventPage>;
  getEvent(id: string): Promise<CairnEvent>;

  /** Starts a branch at an event (or another branch's head); nothing is copied. */
  fork(input: ForkInput): Promise<Branch>;
  /** Moves a branch head back to an event on its path; the old head stays readable. */
  rewind(input: RewindInput): Promise<Branch>;
  /**
   * Moves a branch head to any event of its session (back, forward or onto
   * another line): nothing is written or removed, the move is recorded in
   * `branchHistory`. `ifHead` makes it a compare-and-swap (CONFLICT when the
   * head moved).
   */
  moveHead(input: MoveHeadInput): Promise<Branch>;
  /** Events root → one event, paged like `readBranch`, whatever branch heads point at. */
  readPath(input: ReadPathInput): Promise<EventPage>;
  listBranches(session: string): Promise<Branch[]>;
  branchHistory(session: string, branch: string): Promise<RefLogEntry[]>;

  createToken(input?: CreateTokenInput): Promise<CreatedToken>;
  /** Revokes a token at once; members may revoke their own tokens, admins any in the tenant. */
  revokeToken(id: string): Promise<RevokedToken>;
  verifyAudit(): Promise<AuditReport>;

  close(): Promise<void>;
}
