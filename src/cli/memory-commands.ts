/**
 * `cairn memory …`: the table's memory operations from the command line, on
 * a local store or a server (`--url`). Flags map to the operations' fields;
 * the operations validate them (scope names, kinds, k, ids).
 */
import { invalidArgument } from '../errors.js';
import type { MemoryRecord } from '../memory/schema.js';
import { defined, listFlag, stringFlag, wholeNumberFlag } from './args.js';
import type { FabricCommand, FlagSpec } from './command.js';
import { EXIT, isoTime, table } from './output.js';

const SCOPE_FLAG: FlagSpec = {
  name: 'scope',
  type: 'string',
  value: 'KIND:NAME',
  multiple: true,
  help: 'user:NAME, agent:NAME, project:NAME or session:ID (repeatable, one of each kind)',
};
const BRANCH_FLAG: FlagSpec = {
  name: 'branch',
  type: 'string',
  value: 'B',
  help: "the session's branch (with a session scope; default main)",
};

/** Recall and list alike: quarantined records only when asked for. */
const MIN_TRUST_FLAG: FlagSpec = {
  name: 'min-trust',
  type: 'string',
  value: 'T',
  help: 'untrusted (default), trusted, or quarantined to see those too',
};

/** `--scope user:alice --scope session:ss_…` as the operations' scope object. */
function scopeOf(values: Record<string, unknown>): Record<string, string> {
  const scope: Record<string, string> = {};
  for (const text of listFlag(values as never, 'scope')) {
    const colon = text.indexOf(':');
    const kind = colon < 0 ? '' : text.slice(0, colon);
    if (colon < 0)
      throw invalidArgument(`--scope ${text}: write KIND:NAME, e.g. user:alice`, { scope: text });
    if (kind in scope)
      throw invalidArgument(`--scope names ${kind} twice: give one of each kind`, { scope: text });
    scope[kind] = text.slice(colon + 1);
  }
  return scope;
}

function recordLines(r: MemoryRecord): string[] {
  return [
    `${r.id} v${r.version} ${r.kind} [${r.provenance.trust}, from ${r.provenance.source}] ${isoTime(r.recordedAt)}`,
    `  ${r.text}`,
  ];
}

const add: FabricCommand = {
  target: 'fabric',
  names: ['memory', 'add'],
  args: ['TEXT'],
  flags: [
    SCOPE_FLAG,
    { name: 'kind', type: 'string', value: 'K', help: 'fact (default), episode, procedure or pinned' },
    { name: 'source', type: 'string', value: 'S', help: 'person, agent (default), tool or import' },
    {
      name: 'derived-from',
      type: 'string',
      value: 'ID',
      multiple: true,
      help: 'a record or event it was made from',
    },
    { name: 'tag', type: 'string', value: 'T', multiple: true, help: 'a tag (repeatable)' },
    { name: 'supersedes', type: 'string', value: 'ID', help: 'write a new version of this record' },
    BRANCH_FLAG,
  ],
  summary: 'remember TEXT in a scope; credentials are refused',
  async run(fabric, { values, positionals, out }) {
    const record = await fabric.remember(
      defined({
        scope: scopeOf(values),
        text: positionals[0]!,
        kind: stringFlag(values, 'kind'),
        source: stringFlag(values, 'source'),
        derivedFrom: listFlag(values, 'derived-from'),
        tags: listFlag(values, 'tag'),
        supersedes: stringFlag(values, 'supersedes'),
        branch: stringFlag(values, 'branch'),
      }) as never,
    );
    out.result(record, recordLines(record));
    return EXIT.ok;
  },
};

const recall: FabricCommand = {
  target: 'fabric',
  names: ['memory', 'recall'],
  args: ['QUERY'],
  flags: [
    SCOPE_FLAG,
    BRANCH_FLAG,
    { name: 'k', type: 'string', value: 'N', help: 'at most N records (1 to 100, default 10)' },
    { name: 'kind', type: 'string', value: 'K', multiple: true, help: 'only these kinds (repeatable)' },
    {
      name: 'tag',
      type: 'string',
      value: 'T',
      multiple: true,
      help: 'only records with every one of these tags',
    },
    MIN_TRUST_FLAG,
    {
      name: 'mode',
      type: 'string',
      value: 'M',
      help: 'text, vector, hybrid or auto (default: hybrid where vectors are on, else text)',
    },
    {
      name: 'as-of',
      type: 'string',
      value: 'MS',
      help: 'what was recorded by then (milliseconds since the epoch)',
    },
  ],
  summary: 'recall records of a scope ranked by how well they match QUERY',
  async run(fabric, { values, positionals, out }) {
    const kinds = listFlag(values, 'kind');
    const tags = listFlag(values, 'tag');
    const answer = await fabric.recall(
      defined({
        query: positionals[0]!,
        scope: scopeOf(values),
        branch: stringFlag(values, 'branch'),
        k: wholeNumberFlag(values, 'k'),
        kinds: kinds.length > 0 ? kinds : undefined,
        tags: tags.length > 0 ? tags : undefined,
        minTrust: stringFlag(values, 'min-trust'),
        asOf: wholeNumberFlag(values, 'as-of'),
        mode: stringFlag(values, 'mode'),
      }) as never,
    );
    const lines = answer.items.flatMap((r) => {
      const [head = '', ...rest] = recordLines(r);
      return [`${r.score.toFixed(3)}  ${head}`, ...rest];
    });
    out.result(answer, lines.length > 0 ? lines : ['nothing recalled']);
    return EXIT.ok;
  },
};

const list: FabricCommand = {
  target: 'fabric',
  names: ['memory', 'ls'],
  args: [],
  flags: [
    SCOPE_FLAG,
    BRANCH_FLAG,
    { name: 'limit', type: 'string', value: 'N', help: 'at most N (default 100)' },
    MIN_TRUST_FLAG,
  ],
  summary: 'the current records of a scope, newest first',
  async run(fabric, { values, out }) {
    const answer = await fabric.listMemory(
      defined({
        scope: scopeOf(values),
        branch: stringFlag(values, 'branch'),
        limit: wholeNumberFlag(values, 'limit'),
        minTrust: stringFlag(values, 'min-trust'),
      }) as never,
    );
    const lines = table(
      answer.items.map((r) => [r.id, `v${r.version}`, r.kind, r.provenance.trust, r.text.slice(0, 60)]),
    );
    out.result(answer, lines.length > 0 ? lines : ['no records']);
    return EXIT.ok;
  },
};

/** A command on one record by id: get, history, quarantine, promote. */
function onRecord(
  name: string,
  summary: string,
  call: (
    fabric: Parameters<FabricCommand['run']>[0],
    record: string,
  ) => Promise<MemoryRecord | { items: MemoryRecord[] }>,
): FabricCommand {
  return {
    target: 'fabric',
    names: ['memory', name],
    args: ['ID'],
    flags: [],
    summary,
    async run(fabric, { positionals, out }) {
      const answer = await call(fabric, positionals[0]!);
      out.result(answer, 'items' in answer ? answer.items.flatMap(recordLines) : recordLines(answer));
      return EXIT.ok;
    },
  };
}

const forget: FabricCommand = {
  target: 'fabric',
  names: ['memory', 'forget'],
  args: ['ID'],
  flags: [
    { name: 'derived', type: 'boolean', help: 'also everything made from it, transitively' },
    { name: 'preview', type: 'boolean', help: 'list what would go; remove nothing' },
  ],
  summary: 'forget a record — every version and index entry — and with --derived what was made from it',
  async run(fabric, { values, positionals, out }) {
    const answer = await fabric.forgetMemory({
      record: positionals[0]!,
      derived: values.derived === true,
      preview: values.preview === true,
    });
    out.result(answer, [
      `${answer.preview ? 'would forget' : 'forgot'} ${answer.records.length} record(s), ${answer.versions} version(s), ${answer.indexEntries} index entr${answer.indexEntries === 1 ? 'y' : 'ies'}:`,
      ...answer.records.map((r) => `  ${r}`),
    ]);
    return EXIT.ok;
  },
};

export const MEMORY_COMMANDS: FabricCommand[] = [
  add,
  recall,
  list,
  onRecord('get', 'show a record’s newest version and its provenance', (f, record) =>
    f.getMemory({ record }),
  ),
  onRecord('history', 'every version of a record, oldest first', (f, record) => f.memoryHistory({ record })),
  onRecord('quarantine', 'hide a record from recall (unless asked for quarantined ones)', (f, record) =>
    f.quarantineMemory({ record }),
  ),
  onRecord('promote', 'mark a record trusted (a person: a user principal)', (f, record) =>
    f.promoteMemory({ record }),
  ),
  forget,
];
