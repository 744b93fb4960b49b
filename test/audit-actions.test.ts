/** The audit's actions are a closed list, and docs/design/audit-chain.md names exactly that list. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../src/audit/actions.js';

const DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'design', 'audit-chain.md'), 'utf8');

describe('audit actions', () => {
  it('are named once each, and the design note lists exactly them', () => {
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    const section = DOC.slice(DOC.indexOf('## Actions'), DOC.indexOf('\n## ', DOC.indexOf('## Actions') + 1));
    const listed = [...section.matchAll(/^\| `([a-z.-]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...AUDIT_ACTIONS]);
  });
});
