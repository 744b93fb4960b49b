// Generated from the contract by `npm run wire` (scripts/wire.mjs); test/contract.test.ts checks it. Do not edit.
import type { Contract } from './index.js';
import type { WireOp } from './wire-of.js';

export const WIRE: { readonly [K in keyof Contract]: WireOp } = {
  whoami: {
    name: 'whoami',
    feature: 'identity',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'whoami',
    http: {
      method: 'GET',
      path: '/v1/whoami',
    },
  },
  createToken: {
    name: 'createToken',
    feature: 'identity',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/tokens',
    },
  },
  revokeToken: {
    name: 'revokeToken',
    feature: 'identity',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/tokens/{token}/revoke',
    },
  },
  createSession: {
    name: 'createSession',
    feature: 'log',
    effect: 'write',
    runs: 'anywhere',
    mcp: 'session_create',
    http: {
      method: 'POST',
      path: '/v1/sessions',
    },
  },
  listSessions: {
    name: 'listSessions',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'session_list',
    http: {
      method: 'GET',
      path: '/v1/sessions',
    },
  },
  getSession: {
    name: 'getSession',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}',
    },
  },
  append: {
    name: 'append',
    feature: 'log',
    effect: 'write',
    runs: 'anywhere',
    mcp: 'event_append',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/events',
    },
  },
  readBranch: {
    name: 'readBranch',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'branch_read',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}/branches/{branch}/events',
    },
    pathDefaults: {
      branch: 'main',
    },
  },
  getEvent: {
    name: 'getEvent',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'event_get',
    http: {
      method: 'GET',
      path: '/v1/events/{event}',
    },
  },
  fork: {
    name: 'fork',
    feature: 'log',
    effect: 'write',
    runs: 'anywhere',
    mcp: 'session_fork',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches',
    },
  },
  rewind: {
    name: 'rewind',
    feature: 'log',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/rewind',
    },
  },
  moveHead: {
    name: 'moveHead',
    feature: 'log',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/move',
    },
  },
  readPath: {
    name: 'readPath',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'event_path',
    http: {
      method: 'GET',
      path: '/v1/events/{to}/path',
    },
  },
  listBranches: {
    name: 'listBranches',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'branch_list',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}/branches',
    },
  },
  branchHistory: {
    name: 'branchHistory',
    feature: 'log',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'branch_history',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}/branches/{branch}/history',
    },
  },
  verifyAudit: {
    name: 'verifyAudit',
    feature: 'audit',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/verify',
    },
  },
  auditCheckpoint: {
    name: 'auditCheckpoint',
    feature: 'audit',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/checkpoint',
    },
  },
  auditProof: {
    name: 'auditProof',
    feature: 'audit',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/proof',
    },
  },
  auditConsistency: {
    name: 'auditConsistency',
    feature: 'audit',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/consistency',
    },
  },
  auditKey: {
    name: 'auditKey',
    feature: 'audit',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/key',
    },
  },
  listCredentials: {
    name: 'listCredentials',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/credentials',
    },
  },
  addCredential: {
    name: 'addCredential',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials',
    },
  },
  rotateCredential: {
    name: 'rotateCredential',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials/{name}/rotate',
    },
  },
  deleteCredential: {
    name: 'deleteCredential',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials/{name}/delete',
    },
  },
  addGrant: {
    name: 'addGrant',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants',
    },
  },
  listApprovals: {
    name: 'listApprovals',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/approvals',
    },
  },
  getApproval: {
    name: 'getApproval',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/approvals/{approval}',
    },
  },
  approve: {
    name: 'approve',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/approvals/{approval}/approve',
    },
  },
  deny: {
    name: 'deny',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/approvals/{approval}/deny',
    },
  },
  getGrant: {
    name: 'getGrant',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/grants/{grant}',
    },
  },
  checkGrant: {
    name: 'checkGrant',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants/check',
    },
  },
  listGrants: {
    name: 'listGrants',
    feature: 'keys',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/grants',
    },
  },
  revokeGrant: {
    name: 'revokeGrant',
    feature: 'keys',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants/{grant}/revoke',
    },
  },
  deskMissing: {
    name: 'deskMissing',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/objects/missing',
    },
  },
  deskReadObjects: {
    name: 'deskReadObjects',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/objects/read',
      answer: 'bytes',
    },
  },
  deskPutPack: {
    name: 'deskPutPack',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'PUT',
      path: '/v1/desk/packs/{digest}',
      body: 'bytes',
    },
  },
  deskDiscardPacks: {
    name: 'deskDiscardPacks',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/packs/discard',
    },
  },
  deskCommit: {
    name: 'deskCommit',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/snapshots',
    },
  },
  getWorkspace: {
    name: 'getWorkspace',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}',
    },
  },
  workspaceHead: {
    name: 'workspaceHead',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}/head',
    },
  },
  listWorkspaces: {
    name: 'listWorkspaces',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces',
    },
  },
  attachedAt: {
    name: 'attachedAt',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/workspaces/attached',
    },
  },
  listSnapshots: {
    name: 'listSnapshots',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}/snapshots',
    },
  },
  getSnapshot: {
    name: 'getSnapshot',
    feature: 'desk',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/snapshots/{snapshot}',
    },
  },
  deskFork: {
    name: 'deskFork',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/forks',
    },
  },
  detachWorkspace: {
    name: 'detachWorkspace',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/workspaces/{workspace}/detach',
    },
  },
  deskRefused: {
    name: 'deskRefused',
    feature: 'desk',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/workspaces/{workspace}/refusals',
    },
  },
  listSteps: {
    name: 'listSteps',
    feature: 'steps',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'step_list',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}/branches/{branch}/steps',
    },
    pathDefaults: {
      branch: 'main',
    },
  },
  recordStep: {
    name: 'recordStep',
    feature: 'steps',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/steps',
    },
    pathDefaults: {
      branch: 'main',
    },
  },
  resolveStep: {
    name: 'resolveStep',
    feature: 'steps',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/steps/resolve',
    },
    pathDefaults: {
      branch: 'main',
    },
  },
  remember: {
    name: 'remember',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    mcp: 'memory_remember',
    http: {
      method: 'POST',
      path: '/v1/memory',
    },
  },
  rememberMany: {
    name: 'rememberMany',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/batch',
    },
  },
  recall: {
    name: 'recall',
    feature: 'memory',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'memory_recall',
    http: {
      method: 'POST',
      path: '/v1/memory/recall',
    },
  },
  listMemory: {
    name: 'listMemory',
    feature: 'memory',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/list',
    },
  },
  getMemory: {
    name: 'getMemory',
    feature: 'memory',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/memory/{record}',
    },
  },
  memoryHistory: {
    name: 'memoryHistory',
    feature: 'memory',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/memory/{record}/history',
    },
  },
  quarantineMemory: {
    name: 'quarantineMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/{record}/quarantine',
    },
  },
  promoteMemory: {
    name: 'promoteMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/{record}/promote',
    },
  },
  carryMemory: {
    name: 'carryMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{from}/memory/carry',
    },
  },
  dropBranchMemory: {
    name: 'dropBranchMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/memory/drop',
    },
  },
  reindexMemory: {
    name: 'reindexMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/reindex',
    },
  },
  forgetMemory: {
    name: 'forgetMemory',
    feature: 'memory',
    effect: 'write',
    runs: 'anywhere',
    mcp: 'memory_forget',
    http: {
      method: 'POST',
      path: '/v1/memory/{record}/forget',
    },
  },
  recordCheckpoint: {
    name: 'recordCheckpoint',
    feature: 'unit',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/checkpoints',
    },
  },
  keepBranch: {
    name: 'keepBranch',
    feature: 'unit',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/keep',
    },
  },
  abandonBranch: {
    name: 'abandonBranch',
    feature: 'unit',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/abandon',
    },
  },
  attachWorkspace: {
    name: 'attachWorkspace',
    feature: 'unit',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_attach',
  },
  listCheckpoints: {
    name: 'listCheckpoints',
    feature: 'unit',
    effect: 'read',
    runs: 'anywhere',
    mcp: 'workspace_checkpoints',
    http: {
      method: 'GET',
      path: '/v1/checkpoints',
    },
  },
  checkpoint: {
    name: 'checkpoint',
    feature: 'unit',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_checkpoint',
  },
  restore: {
    name: 'restore',
    feature: 'unit',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_restore',
  },
  forkUnit: {
    name: 'forkUnit',
    feature: 'unit',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_fork',
  },
  status: {
    name: 'status',
    feature: 'unit',
    effect: 'read',
    runs: 'caller',
    mcp: 'workspace_status',
  },
  publishArtifact: {
    name: 'publishArtifact',
    feature: 'artifacts',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/artifacts',
      body: 'stream',
    },
  },
  publishWorkspaceFile: {
    name: 'publishWorkspaceFile',
    feature: 'artifacts',
    effect: 'write',
    runs: 'caller',
    mcp: 'artifact_publish',
  },
  getArtifact: {
    name: 'getArtifact',
    feature: 'artifacts',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/artifacts/{artifact}',
    },
  },
  readArtifact: {
    name: 'readArtifact',
    feature: 'artifacts',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/artifacts/{artifact}/content',
      answer: 'content',
    },
  },
  listArtifacts: {
    name: 'listArtifacts',
    feature: 'artifacts',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/artifacts',
    },
  },
  artifactLineage: {
    name: 'artifactLineage',
    feature: 'artifacts',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/artifacts/{artifact}/lineage',
    },
  },
  removeArtifact: {
    name: 'removeArtifact',
    feature: 'artifacts',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/artifacts/{artifact}/remove',
    },
  },
  sweepArtifacts: {
    name: 'sweepArtifacts',
    feature: 'artifacts',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/artifacts/sweep',
    },
  },
  artifactQuota: {
    name: 'artifactQuota',
    feature: 'artifacts',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/artifact-quota',
    },
  },
  setArtifactQuota: {
    name: 'setArtifactQuota',
    feature: 'artifacts',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'PUT',
      path: '/v1/artifact-quota',
    },
  },
  erase: {
    name: 'erase',
    feature: 'erasure',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/erasures',
    },
  },
  sweepBranches: {
    name: 'sweepBranches',
    feature: 'retention',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/retention/branches/sweep',
    },
  },
  setRedactionPolicy: {
    name: 'setRedactionPolicy',
    feature: 'redaction',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'PUT',
      path: '/v1/redaction-policy',
    },
  },
  getRedactionPolicy: {
    name: 'getRedactionPolicy',
    feature: 'redaction',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/redaction-policy',
    },
  },
};
