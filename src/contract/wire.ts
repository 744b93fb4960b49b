// Generated from the contract by `npm run wire` (scripts/wire.mjs); test/contract.test.ts checks it. Do not edit.
import type { Contract } from './index.js';
import type { WireOp } from './wire-of.js';

export const WIRE: { readonly [K in keyof Contract]: WireOp } = {
  whoami: {
    name: 'whoami',
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
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/tokens',
    },
  },
  revokeToken: {
    name: 'revokeToken',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/tokens/{token}/revoke',
    },
  },
  createSession: {
    name: 'createSession',
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
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/sessions/{session}',
    },
  },
  append: {
    name: 'append',
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
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/rewind',
    },
  },
  moveHead: {
    name: 'moveHead',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/move',
    },
  },
  readPath: {
    name: 'readPath',
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
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/audit/verify',
    },
  },
  listCredentials: {
    name: 'listCredentials',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/credentials',
    },
  },
  addCredential: {
    name: 'addCredential',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials',
    },
  },
  rotateCredential: {
    name: 'rotateCredential',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials/{name}/rotate',
    },
  },
  deleteCredential: {
    name: 'deleteCredential',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/credentials/{name}/delete',
    },
  },
  addGrant: {
    name: 'addGrant',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants',
    },
  },
  listApprovals: {
    name: 'listApprovals',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/approvals',
    },
  },
  getApproval: {
    name: 'getApproval',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/approvals/{approval}',
    },
  },
  approve: {
    name: 'approve',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/approvals/{approval}/approve',
    },
  },
  deny: {
    name: 'deny',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/approvals/{approval}/deny',
    },
  },
  getGrant: {
    name: 'getGrant',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/grants/{grant}',
    },
  },
  checkGrant: {
    name: 'checkGrant',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants/check',
    },
  },
  listGrants: {
    name: 'listGrants',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/grants',
    },
  },
  revokeGrant: {
    name: 'revokeGrant',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/grants/{grant}/revoke',
    },
  },
  deskMissing: {
    name: 'deskMissing',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/objects/missing',
    },
  },
  deskReadObjects: {
    name: 'deskReadObjects',
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
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/packs/discard',
    },
  },
  deskCommit: {
    name: 'deskCommit',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/snapshots',
    },
  },
  getWorkspace: {
    name: 'getWorkspace',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}',
    },
  },
  workspaceHead: {
    name: 'workspaceHead',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}/head',
    },
  },
  listWorkspaces: {
    name: 'listWorkspaces',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces',
    },
  },
  attachedAt: {
    name: 'attachedAt',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/workspaces/attached',
    },
  },
  listSnapshots: {
    name: 'listSnapshots',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/workspaces/{workspace}/snapshots',
    },
  },
  getSnapshot: {
    name: 'getSnapshot',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/snapshots/{snapshot}',
    },
  },
  deskFork: {
    name: 'deskFork',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/desk/forks',
    },
  },
  detachWorkspace: {
    name: 'detachWorkspace',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/workspaces/{workspace}/detach',
    },
  },
  deskRefused: {
    name: 'deskRefused',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/workspaces/{workspace}/refusals',
    },
  },
  listSteps: {
    name: 'listSteps',
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
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/batch',
    },
  },
  recall: {
    name: 'recall',
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
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/list',
    },
  },
  getMemory: {
    name: 'getMemory',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/memory/{record}',
    },
  },
  memoryHistory: {
    name: 'memoryHistory',
    effect: 'read',
    runs: 'anywhere',
    http: {
      method: 'GET',
      path: '/v1/memory/{record}/history',
    },
  },
  quarantineMemory: {
    name: 'quarantineMemory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/{record}/quarantine',
    },
  },
  promoteMemory: {
    name: 'promoteMemory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/{record}/promote',
    },
  },
  carryMemory: {
    name: 'carryMemory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{from}/memory/carry',
    },
  },
  dropBranchMemory: {
    name: 'dropBranchMemory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/memory/drop',
    },
  },
  reindexMemory: {
    name: 'reindexMemory',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/memory/reindex',
    },
  },
  forgetMemory: {
    name: 'forgetMemory',
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
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/checkpoints',
    },
  },
  keepBranch: {
    name: 'keepBranch',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/keep',
    },
  },
  abandonBranch: {
    name: 'abandonBranch',
    effect: 'write',
    runs: 'anywhere',
    http: {
      method: 'POST',
      path: '/v1/sessions/{session}/branches/{branch}/unit/abandon',
    },
  },
  attachWorkspace: {
    name: 'attachWorkspace',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_attach',
  },
  listCheckpoints: {
    name: 'listCheckpoints',
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
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_checkpoint',
  },
  restore: {
    name: 'restore',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_restore',
  },
  forkUnit: {
    name: 'forkUnit',
    effect: 'write',
    runs: 'caller',
    mcp: 'workspace_fork',
  },
  status: {
    name: 'status',
    effect: 'read',
    runs: 'caller',
    mcp: 'workspace_status',
  },
};
