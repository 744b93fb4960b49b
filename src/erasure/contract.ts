/** The erasure cascade's operation (contract/spec.ts; docs/design/erasure.md). */
import { spec } from '../contract/spec.js';
import * as shape from './shapes.js';

export const ERASURE_CONTRACT = {
  erase: spec({
    name: 'erase',
    summary:
      'Erase everything a user, an agent or a session owns, in every store, with a signed receipt; preview counts it',
    effect: 'write',
    callers: 'person-admin',
    access: 'erasure',
    runs: 'anywhere',
    input: shape.EraseInput,
    output: shape.Erasure,
    // The erased principal's tokens stop working at once, on this server too (its auth cache).
    invalidatesAuth: true,
    http: { method: 'POST', path: '/v1/erasures' },
    cli: {
      command: ['erase'],
      summary:
        'erase everything of --subject (user:pr_…, agent:pr_…, session:ss_…) in every store; --preview counts it',
      example: 'cairn erase --subject user:pr_… --preview',
    },
  }),
};
