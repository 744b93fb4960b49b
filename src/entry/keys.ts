/** `cairn/keys`: the vault, grants, handles and approvals. */
export { MasterKey } from '../keys/crypto.js';
export {
  type Allow,
  type ApprovalPolicy,
  decide,
  type Grant,
  type GrantMode,
  type GrantRequest,
  type GrantState,
  grantState,
} from '../keys/grants.js';
export {
  type Approval,
  type Credential,
  type CredentialKind,
  type Handle,
  Keys,
  type ProxyDecision,
} from '../keys/keys.js';
