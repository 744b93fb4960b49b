import { A as invalidArgument, _ as UsageError, a as ignoreClosedPipe, f as fromEnv, g as Output, m as EXIT, p as storeDir } from "./front-BpLyP2oj.js";
import { _ as commandName, d as stringFlag, f as wantsJson, g as mainHelp, h as groupHelp, i as findCommand, m as commandHelp, n as checkArity, s as parseCommandLine } from "./args-Br0IqddQ.js";
import { t as cliVersion } from "./version-BhXxgZo_.js";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
// dist/cli/manifest.js
const MANIFEST = [
	{
		target: "store",
		names: ["init"],
		args: [],
		flags: [],
		summary: "create the store (if missing) and its local tenant and principal",
		example: "cairn init",
		file: "store"
	},
	{
		target: "store",
		names: ["serve"],
		args: [],
		flags: [
			{
				name: "host",
				type: "string",
				value: "HOST",
				help: "address to listen on (default 127.0.0.1)"
			},
			{
				name: "port",
				type: "string",
				value: "PORT",
				help: "port to listen on; 0 picks a free one (default 7070)"
			},
			{
				name: "headers-timeout-ms",
				type: "string",
				value: "MS",
				help: "close a connection whose request headers take longer (default 10000)"
			},
			{
				name: "request-timeout-ms",
				type: "string",
				value: "MS",
				help: "close a connection whose whole request takes longer (default 60000)"
			},
			{
				name: "cors-origin",
				type: "string",
				value: "URL",
				multiple: true,
				help: "let browser pages of this origin call the API, e.g. http://localhost:5173 (repeatable; default none)"
			},
			{
				name: "master-key-file",
				type: "string",
				value: "FILE",
				help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
			}
		],
		summary: "serve the store over HTTP until SIGINT/SIGTERM; prints the URL and a fresh token",
		example: "cairn serve --port 7411",
		file: "store"
	},
	{
		target: "store",
		names: ["tenant", "create"],
		args: ["NAME"],
		flags: [],
		summary: "create a tenant in the local store and print its first admin token (shown once)",
		example: "cairn tenant create acme",
		file: "store"
	},
	{
		target: "store",
		names: ["doctor"],
		args: [],
		flags: [{
			name: "fix",
			type: "boolean",
			help: "take group's and others' access away (the folder and its folders 0700, its files 0600)"
		}],
		summary: "check that only its owner may read the store (exit 1 when others may); --fix closes it",
		example: "cairn doctor --fix",
		file: "doctor"
	},
	{
		target: "fabric",
		names: ["whoami"],
		args: [],
		flags: [],
		summary: "show the tenant and principal the command acts as",
		example: "cairn whoami --url http://127.0.0.1:7411 --token-file ~/.cairn-token",
		operation: "whoami",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["token", "create"],
		args: [],
		flags: [
			{
				name: "principal",
				type: "string",
				help: "mint for this existing principal (pr_…); default a new one",
				value: "PRINCIPAL"
			},
			{
				name: "kind",
				type: "string",
				help: "the new principal’s kind; default agent; one of user, agent, service",
				value: "KIND"
			},
			{
				name: "name",
				type: "string",
				help: "the new principal’s name; default agent",
				value: "NAME"
			},
			{
				name: "role",
				type: "string",
				help: "the new principal’s role; default member; one of admin, member",
				value: "ROLE"
			},
			{
				name: "label",
				type: "string",
				help: "a note to tell tokens apart",
				value: "LABEL"
			}
		],
		summary: "mint a bearer token (printed once: Cairn keeps only its hash)",
		example: "cairn token create --kind agent --name worker --label ci",
		operation: "createToken",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["token", "revoke"],
		args: ["TOKEN"],
		flags: [],
		summary: "revoke a token at once (members: their own; admins: any in the tenant)",
		example: "cairn token revoke tk_…",
		operation: "revokeToken",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["session", "new"],
		args: [],
		flags: [{
			name: "title",
			type: "string",
			help: "a title a person will recognise the session by",
			value: "TITLE"
		}, {
			name: "meta",
			type: "string",
			help: "free JSON about the session (your harness, the task); not searched",
			value: "JSON"
		}],
		summary: "create a session (with an empty main branch)",
		example: "cairn session new --title \"fix the flaky test\" --meta '{\"ticket\":\"CX-12\"}'",
		operation: "createSession",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["session", "ls"],
		args: [],
		flags: [{
			name: "limit",
			type: "string",
			help: "how many sessions at most; default 100",
			value: "N"
		}, {
			name: "after",
			type: "string",
			help: "the last session of the previous page: the page after it",
			value: "SESSION"
		}],
		summary: "list sessions, oldest first",
		example: "cairn session ls --limit 20",
		operation: "listSessions",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["session", "show"],
		args: ["SESSION"],
		flags: [],
		summary: "show a session and its branches",
		example: "cairn session show ss_…",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["log", "append"],
		args: ["SESSION"],
		flags: [
			{
				name: "kind",
				type: "string",
				value: "K",
				help: "event kind, e.g. message or tool.call",
				required: true
			},
			{
				name: "payload",
				type: "string",
				value: "JSON",
				help: "the payload as JSON; \"-\" reads it from stdin"
			},
			{
				name: "payload-file",
				type: "string",
				value: "F",
				help: "read the JSON payload from file F"
			},
			{
				name: "branch",
				type: "string",
				value: "B",
				help: "branch to append to (default main)"
			},
			{
				name: "actor",
				type: "string",
				value: "A",
				help: "who or what produced the event"
			},
			{
				name: "key",
				type: "string",
				value: "KEY",
				help: "idempotency key: a retry with the same key appends once"
			}
		],
		summary: "append one event to a branch head (durable when the command returns)",
		example: "cairn log append ss_… --kind tool.call --payload '{\"tool\":\"grep\"}' --key call-7",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["log", "show"],
		args: ["SESSION"],
		flags: [
			{
				name: "branch",
				type: "string",
				help: "the branch to read; default main",
				value: "BRANCH"
			},
			{
				name: "from",
				type: "string",
				help: "the first sequence number to return (1: the root); default 1",
				value: "N"
			},
			{
				name: "limit",
				type: "string",
				help: "how many events at most; default 1000",
				value: "N"
			}
		],
		summary: "show the events of a branch, root to head: seq, id, kind, actor, payload",
		example: "cairn log show ss_… --branch main --from 1 --limit 50",
		operation: "readBranch",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["event", "show"],
		args: ["EVENT"],
		flags: [],
		summary: "show one event: session, branch, seq, kind, actor, payload",
		example: "cairn event show ev_…",
		operation: "getEvent",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["log", "path"],
		args: ["EVENT"],
		flags: [{
			name: "from",
			type: "string",
			help: "the first sequence number to return (1: the root); default 1",
			value: "N"
		}, {
			name: "limit",
			type: "string",
			help: "how many events at most; default 1000",
			value: "N"
		}],
		summary: "show the path from the root to an event, whatever branch heads point at",
		example: "cairn log path ev_… --limit 50",
		operation: "readPath",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["branch", "fork"],
		args: ["SESSION"],
		flags: [
			{
				name: "at",
				type: "string",
				help: "the event to fork at",
				value: "EVENT"
			},
			{
				name: "from",
				type: "string",
				help: "a branch whose head to fork at, instead of at; default main",
				value: "FROM"
			},
			{
				name: "name",
				type: "string",
				help: "the new branch's name; default a generated one",
				value: "NAME"
			}
		],
		summary: "start a new branch at an event; nothing is copied",
		example: "cairn branch fork ss_… --at ev_… --name try-b",
		operation: "fork",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["branch", "rewind"],
		args: ["SESSION", "BRANCH"],
		flags: [{
			name: "to",
			type: "string",
			help: "an event on the branch’s path to move the head back to",
			value: "EVENT",
			required: true
		}],
		summary: "move a branch head back to an event on its path (the old head stays readable)",
		example: "cairn branch rewind ss_… main --to ev_…",
		operation: "rewind",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["branch", "move"],
		args: ["SESSION", "BRANCH"],
		flags: [{
			name: "to",
			type: "string",
			help: "any event of the session to move the head to",
			value: "EVENT",
			required: true
		}, {
			name: "if-head",
			type: "string",
			help: "move only while the head is still this event (else CONFLICT)",
			value: "EVENT"
		}],
		summary: "move a branch head to any event of its session: back, forward or onto another line (recorded)",
		example: "cairn branch move ss_… main --to ev_… --if-head ev_…",
		operation: "moveHead",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["branch", "ls"],
		args: ["SESSION"],
		flags: [],
		summary: "list the branches of a session: name, head seq, head event, fork point",
		example: "cairn branch ls ss_…",
		operation: "listBranches",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["branch", "history"],
		args: ["SESSION", "BRANCH"],
		flags: [],
		summary: "show how a branch head moved (create, fork, rewind, move), oldest first",
		example: "cairn branch history ss_… main",
		operation: "branchHistory",
		file: "fabric"
	},
	{
		target: "fabric",
		names: ["audit", "verify"],
		args: [],
		flags: [],
		summary: "verify audit chains (every tenant of a local store; your tenant over --url); exit code 1 when one is broken",
		example: "cairn audit verify",
		file: "fabric"
	},
	{
		target: "desk",
		names: ["ws", "attach"],
		args: ["DIR"],
		flags: [
			{
				name: "session",
				type: "string",
				value: "S",
				help: "bind to this session (default: a new one)"
			},
			{
				name: "branch",
				type: "string",
				value: "B",
				help: "bind to this branch (default main)"
			},
			{
				name: "secrets",
				type: "string",
				value: "POLICY",
				help: "exclude (default) leaves credential files out; fail refuses the checkpoint (the store config may make fail the rule)"
			}
		],
		summary: "bind a directory to a session branch and take its first snapshot",
		example: "cairn ws attach . --session ss_…",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "checkpoint"],
		args: [],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "force",
				type: "boolean",
				help: "record a snapshot even if nothing changed"
			},
			{
				name: "secrets",
				type: "string",
				value: "POLICY",
				help: "exclude (default) leaves credential files out; fail refuses the checkpoint (the store config may make fail the rule)"
			}
		],
		summary: "snapshot the workspace directory (only what changed is read and stored)",
		example: "cairn ws checkpoint",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "ls"],
		args: [],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "list the snapshots of this workspace (id or directory)"
		}],
		summary: "list workspaces, or with --ws the snapshots of one",
		example: "cairn ws ls",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "restore"],
		args: ["SNAPSHOT"],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "preview",
				type: "boolean",
				help: "list what would change and the events after the snapshot; change nothing"
			},
			{
				name: "path",
				type: "string",
				value: "P",
				help: "restore only this path (and what is below it)"
			}
		],
		summary: "restore a snapshot (checkpoints the current state first, so it can be undone)",
		example: "cairn ws restore sn_… --preview",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "diff"],
		args: ["SNAPSHOT"],
		flags: [
			{
				name: "to",
				type: "string",
				value: "SNAPSHOT",
				help: "compare with this snapshot (default: the live directory)"
			},
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "path",
				type: "string",
				value: "P",
				help: "only this path and what is below it"
			},
			{
				name: "stat",
				type: "boolean",
				help: "paths only, no patches"
			}
		],
		summary: "differences between two snapshots, or a snapshot and the live directory",
		example: "cairn ws diff sn_… --stat",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "fork"],
		args: ["DIR"],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "branch",
				type: "string",
				value: "B",
				help: "name of the new branch (default: generated)"
			},
			{
				name: "driver",
				type: "string",
				value: "D",
				help: "copy or overlay (default: overlay where this process may mount)"
			}
		],
		summary: "checkpoint a workspace and fork it into DIR on a new branch",
		example: "cairn ws fork ../try-b --branch try-b",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "merge"],
		args: ["FROM"],
		flags: [{
			name: "into",
			type: "string",
			value: "WS",
			help: "workspace to merge into (default: the current directory)"
		}],
		summary: "three-way merge of workspace FROM into another; conflicts are written with markers",
		example: "cairn ws merge ../try-b",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "detach"],
		args: [],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "workspace id or attached directory (default: the current directory)"
		}, {
			name: "discard",
			type: "boolean",
			help: "also delete a fork’s directory (never an attached one)"
		}],
		summary: "stop tracking a workspace",
		example: "cairn ws detach",
		file: "desk"
	},
	{
		target: "desk",
		names: ["ws", "verify"],
		args: [],
		flags: [],
		summary: "re-hash every object reachable from every snapshot; report the first corrupt or missing one",
		example: "cairn ws verify",
		file: "desk"
	},
	{
		target: "desk",
		names: ["gc"],
		args: [],
		flags: [{
			name: "keep-last",
			type: "string",
			value: "N",
			help: "retention: keep the newest N snapshots per workspace"
		}, {
			name: "grace-ms",
			type: "string",
			value: "MS",
			help: "delete packs abandoned mid-write only after this long (default 3600000)"
		}],
		summary: "remove desk objects no snapshot references (safe while checkpoints run)",
		example: "cairn gc --keep-last 20",
		file: "desk"
	},
	{
		target: "desk",
		names: ["checkpoint"],
		args: [],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "label",
				type: "string",
				value: "L",
				help: "a label for people"
			},
			{
				name: "check",
				type: "string",
				value: "CMD",
				multiple: true,
				help: "a shell command whose success accepts the checkpoint (repeatable)"
			}
		],
		summary: "checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence (git revision, checks)",
		example: "cairn checkpoint --label \"tests pass\" --check \"npm test\"",
		file: "unit"
	},
	{
		target: "desk",
		names: ["restore"],
		args: ["CHECKPOINT"],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "preview",
				type: "boolean",
				help: "list events, files and steps after the checkpoint; change nothing"
			},
			{
				name: "allow-unaccepted",
				type: "boolean",
				help: "restore a checkpoint whose checks failed"
			}
		],
		summary: "restore the unit to any checkpoint of its session (checkpoints first; the log head moves there and the workspace follows, as a new operation that prints its undo)",
		example: "cairn restore ev_… --preview",
		file: "unit"
	},
	{
		target: "desk",
		names: ["fork"],
		args: ["CHECKPOINT"],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "branches",
				type: "string",
				value: "N",
				help: "how many branches (default 1)"
			},
			{
				name: "name",
				type: "string",
				value: "B",
				multiple: true,
				help: "name a branch (repeatable; instead of --branches)"
			},
			{
				name: "dir",
				type: "string",
				value: "DIR",
				help: "where the branches’ workspaces go (default: beside the workspace)"
			},
			{
				name: "driver",
				type: "string",
				value: "D",
				help: "copy or overlay (default: by capability)"
			},
			{
				name: "allow-unaccepted",
				type: "boolean",
				help: "fork a checkpoint whose checks failed"
			},
			{
				name: "grant",
				type: "string",
				value: "B:CRED:MODE[:each-write]",
				multiple: true,
				help: "give named branch B a grant narrowing this branch’s grant on CRED (repeatable); none by default"
			}
		],
		summary: "fork the unit at a checkpoint into branches, each with its own log branch, workspace and stated grants (none unless --grant)",
		example: "cairn fork ev_… --branches 3",
		file: "unit"
	},
	{
		target: "desk",
		names: ["exec"],
		args: [],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "branch",
				type: "string",
				value: "B",
				help: "run in branch B’s workspace with CAIRN_PROXY_URL and CAIRN_HANDLE set (a proxy runs for the command)"
			},
			{
				name: "env-cred",
				type: "string",
				value: "NAME",
				multiple: true,
				help: "inject env credential NAME into this one command (needs --branch and a grant on it)"
			},
			{
				name: "proxy",
				type: "string",
				value: "URL",
				help: "use a running `cairn proxy` instead of starting one"
			},
			{
				name: "master-key-file",
				type: "string",
				value: "FILE",
				help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
			}
		],
		summary: "run a command in the workspace as a recorded step, then checkpoint if it changed anything",
		rest: "CMD…",
		example: "cairn exec -- npm test",
		file: "unit"
	},
	{
		target: "desk",
		names: ["step", "ls"],
		args: [],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "workspace id or attached directory (default: the current directory)"
		}],
		summary: "list the recorded steps of the workspace’s branch",
		example: "cairn step ls",
		file: "unit"
	},
	{
		target: "desk",
		names: ["step", "resolve"],
		args: ["POSITION"],
		flags: [
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory (default: the current directory)"
			},
			{
				name: "result",
				type: "string",
				value: "JSON",
				help: "the step happened, with this result"
			},
			{
				name: "error",
				type: "string",
				value: "MSG",
				help: "the step failed"
			},
			{
				name: "rerun",
				type: "boolean",
				help: "run it again with the same key"
			}
		],
		summary: "resolve a step in doubt (escalate policy): it happened, it failed, or run it again",
		example: "cairn step resolve 4 --result '{\"sent\":true}'",
		file: "unit"
	},
	{
		target: "desk",
		names: ["status"],
		args: [],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "workspace id or attached directory (default: the current directory)"
		}],
		summary: "where the layers disagree: workspace changes outside any recorded step, steps in doubt, grants that ended",
		example: "cairn status",
		file: "unit"
	},
	{
		target: "desk",
		names: ["keep"],
		args: ["BRANCH"],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "workspace id or attached directory (default: the current directory)"
		}],
		summary: "mark a fork’s winner (of the session of --ws)",
		example: "cairn keep try-b",
		file: "unit"
	},
	{
		target: "desk",
		names: ["abandon"],
		args: ["BRANCH"],
		flags: [{
			name: "ws",
			type: "string",
			value: "WS",
			help: "workspace id or attached directory (default: the current directory)"
		}, {
			name: "ttl-ms",
			type: "string",
			value: "MS",
			help: "keep its workspace this long before gc reclaims it (default 7 days)"
		}],
		summary: "mark a fork abandoned: gc reclaims its workspace after the TTL",
		example: "cairn abandon try-c --ttl-ms 86400000",
		file: "unit"
	},
	{
		target: "fabric",
		names: ["memory", "add"],
		args: ["TEXT"],
		flags: [
			{
				name: "scope",
				type: "string",
				help: "where it belongs: at least one of user, agent, project, session; KIND one of user, agent, project, session; repeatable",
				value: "KIND:VALUE",
				required: true,
				multiple: true
			},
			{
				name: "kind",
				type: "string",
				help: "fact, episode (what happened), procedure (how to do something) or pinned (always relevant); one of fact, episode, procedure, pinned; default fact",
				value: "KIND"
			},
			{
				name: "data",
				type: "string",
				help: "structured detail, any JSON; not searched",
				value: "JSON"
			},
			{
				name: "tag",
				type: "string",
				help: "labels to filter recall by; repeatable",
				value: "TAG",
				multiple: true
			},
			{
				name: "source",
				type: "string",
				help: "where the text came from; one of person, agent, tool, import; default agent",
				value: "SOURCE"
			},
			{
				name: "derived-from",
				type: "string",
				help: "records (mr_…) or log events (ev_…) it was made from: its trust is no higher than theirs; repeatable",
				value: "DERIVED_FROM",
				multiple: true
			},
			{
				name: "branch",
				type: "string",
				help: "the session's branch it is written on (with a session scope); default main",
				value: "BRANCH"
			},
			{
				name: "valid-from",
				type: "string",
				help: "when it became true in the world; default now",
				value: "N"
			},
			{
				name: "valid-to",
				type: "string",
				help: "when it stopped being true in the world (ms since the epoch)",
				value: "N"
			},
			{
				name: "supersedes",
				type: "string",
				help: "a record this one replaces: a new version of it",
				value: "MEMORY"
			}
		],
		summary: "remember TEXT in a scope; credentials are refused",
		example: "cairn memory add \"the build needs Node 20\" --scope project:cairn --tag build",
		operation: "remember",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "recall"],
		args: ["QUERY"],
		flags: [
			{
				name: "scope",
				type: "string",
				help: "where it belongs: at least one of user, agent, project, session; KIND one of user, agent, project, session; repeatable",
				value: "KIND:VALUE",
				required: true,
				multiple: true
			},
			{
				name: "branch",
				type: "string",
				help: "with a session scope: the branch whose view to search; default main",
				value: "BRANCH"
			},
			{
				name: "k",
				type: "string",
				help: "how many records at most; default 10",
				value: "N"
			},
			{
				name: "kind",
				type: "string",
				help: "only records of these kinds; one of fact, episode, procedure, pinned; repeatable",
				value: "KIND",
				multiple: true
			},
			{
				name: "tag",
				type: "string",
				help: "only records with all of these tags; repeatable",
				value: "TAG",
				multiple: true
			},
			{
				name: "as-of",
				type: "string",
				help: "what was recorded by then (record time)",
				value: "N"
			},
			{
				name: "min-trust",
				type: "string",
				help: "the lowest trust tier returned: quarantined records only when asked for; one of trusted, untrusted, quarantined; default untrusted",
				value: "MIN_TRUST"
			},
			{
				name: "mode",
				type: "string",
				help: "text (full text), vector, hybrid (both, fused by rank), auto: hybrid where vectors are on, else text; one of auto, text, vector, hybrid; default auto",
				value: "MODE"
			}
		],
		summary: "recall records of a scope ranked by how well they match QUERY",
		example: "cairn memory recall \"which Node version\" --scope project:cairn --k 3",
		operation: "recall",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "ls"],
		args: [],
		flags: [
			{
				name: "scope",
				type: "string",
				help: "where it belongs: at least one of user, agent, project, session; KIND one of user, agent, project, session; repeatable",
				value: "KIND:VALUE",
				required: true,
				multiple: true
			},
			{
				name: "branch",
				type: "string",
				help: "with a session scope: the branch whose view to list; default main",
				value: "BRANCH"
			},
			{
				name: "limit",
				type: "string",
				help: "how many records at most; default 100",
				value: "N"
			},
			{
				name: "min-trust",
				type: "string",
				help: "the lowest trust tier returned: quarantined records only when asked for; one of trusted, untrusted, quarantined; default untrusted",
				value: "MIN_TRUST"
			}
		],
		summary: "the current records of a scope, newest first",
		example: "cairn memory ls --scope user:alice --limit 20",
		operation: "listMemory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "get"],
		args: ["RECORD"],
		flags: [],
		summary: "show a record’s newest version and its provenance",
		example: "cairn memory get mr_…",
		operation: "getMemory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "history"],
		args: ["RECORD"],
		flags: [],
		summary: "every version of a record, oldest first",
		example: "cairn memory history mr_…",
		operation: "memoryHistory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "quarantine"],
		args: ["RECORD"],
		flags: [],
		summary: "hide a record from recall (unless asked for quarantined ones)",
		example: "cairn memory quarantine mr_…",
		operation: "quarantineMemory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "promote"],
		args: ["RECORD"],
		flags: [],
		summary: "mark a record trusted (a person: a user principal)",
		example: "cairn memory promote mr_…",
		operation: "promoteMemory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "reindex"],
		args: [],
		flags: [{
			name: "limit",
			type: "string",
			help: "how many records to embed in this call; default 200",
			value: "N"
		}],
		summary: "embed records that have no vector yet (with the store’s embedding function)",
		example: "cairn memory reindex --limit 500",
		operation: "reindexMemory",
		file: "memory"
	},
	{
		target: "fabric",
		names: ["memory", "forget"],
		args: ["RECORD"],
		flags: [{
			name: "derived",
			type: "boolean",
			help: "also everything made from it, transitively; default false"
		}, {
			name: "preview",
			type: "boolean",
			help: "list what would go; remove nothing; default false"
		}],
		summary: "forget a record — every version and index entry — and with --derived what was made from it",
		example: "cairn memory forget mr_… --derived --preview",
		operation: "forgetMemory",
		file: "memory"
	},
	{
		target: "store",
		names: ["watch"],
		args: [],
		flags: [],
		summary: "keep the store open and its workspaces watched until SIGINT/SIGTERM; workspace commands on this store then run here, without a scan",
		example: "cairn watch",
		file: "watch"
	},
	{
		target: "store",
		names: ["demo"],
		args: [],
		flags: [],
		summary: "a worked example in a temporary folder: fork three ways and keep the passing branch; then fork an invoice task with read, sandbox and approved-live grants",
		example: "cairn demo",
		file: "demo"
	},
	{
		target: "store",
		names: ["cred", "keygen"],
		args: [],
		flags: [{
			name: "out",
			type: "string",
			value: "FILE",
			help: "write the key to FILE (mode 0600) instead of stdout"
		}],
		summary: "make a new vault master key (keep it apart from the store)",
		example: "cairn cred keygen --out ~/.cairn-master-key",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["cred", "add"],
		args: ["NAME"],
		flags: [
			{
				name: "kind",
				type: "string",
				value: "K",
				required: true,
				help: "bearer, basic (user:password), header or env"
			},
			{
				name: "upstream",
				type: "string",
				value: "URL",
				help: "base URL the proxy forwards to (not for env)"
			},
			{
				name: "header",
				type: "string",
				value: "H",
				help: "header name (kind header) or variable name (kind env)"
			},
			{
				name: "sandbox-upstream",
				type: "string",
				value: "URL",
				help: "the test account’s base URL; stdin then holds two lines: live value, sandbox value"
			},
			{
				name: "allow-header",
				type: "string",
				value: "H",
				multiple: true,
				help: "a header the proxy lets through both ways beyond its defaults (repeatable; never routing overrides)"
			},
			{
				name: "max-body-bytes",
				type: "string",
				value: "N",
				help: "the largest request body the proxy takes for this credential (default 8 MiB)"
			},
			{
				name: "master-key-file",
				type: "string",
				value: "FILE",
				help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
			}
		],
		summary: "add a credential to the vault; its value is read from stdin (never the command line)",
		example: "printf '%s' \"$GITHUB_TOKEN\" | cairn cred add github --kind bearer --upstream https://api.github.com",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["cred", "rotate"],
		args: ["NAME"],
		flags: [{
			name: "sandbox",
			type: "boolean",
			help: "replace the sandbox value instead of the live one"
		}, {
			name: "master-key-file",
			type: "string",
			value: "FILE",
			help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
		}],
		summary: "replace a credential’s value (from stdin) under a fresh data key; grants stay",
		example: "printf '%s' \"$NEW_TOKEN\" | cairn cred rotate github",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["cred", "rm"],
		args: ["NAME"],
		flags: [],
		summary: "delete a credential: its sealed values are erased and every grant on it revoked",
		example: "cairn cred rm github",
		operation: "deleteCredential",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["cred", "ls"],
		args: [],
		flags: [],
		summary: "list credentials (names, kinds, upstreams; never values)",
		example: "cairn cred ls",
		operation: "listCredentials",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["grant", "add"],
		args: [],
		flags: [
			{
				name: "session",
				type: "string",
				value: "S",
				help: "session (default: that of --ws or the current directory)"
			},
			{
				name: "ws",
				type: "string",
				value: "WS",
				help: "workspace id or attached directory"
			},
			{
				name: "branch",
				type: "string",
				value: "B",
				required: true,
				help: "the branch the grant is bound to"
			},
			{
				name: "cred",
				type: "string",
				value: "NAME",
				required: true,
				help: "the credential"
			},
			{
				name: "mode",
				type: "string",
				value: "M",
				required: true,
				help: "read, sandbox or live"
			},
			{
				name: "approval",
				type: "string",
				value: "A",
				help: "none or each-write (a person approves every write)"
			},
			{
				name: "parent",
				type: "string",
				value: "GRANT",
				help: "narrow this grant (else a root grant: admin)"
			},
			{
				name: "host",
				type: "string",
				value: "H",
				multiple: true,
				help: "allowed upstream host[:port] (repeatable)"
			},
			{
				name: "method",
				type: "string",
				value: "M",
				multiple: true,
				help: "allowed HTTP method (repeatable)"
			},
			{
				name: "path",
				type: "string",
				value: "P",
				multiple: true,
				help: "allowed path prefix (repeatable)"
			},
			{
				name: "ttl-ms",
				type: "string",
				value: "MS",
				help: "the grant expires after this long"
			},
			{
				name: "max-uses",
				type: "string",
				value: "N",
				help: "the grant ends after N requests"
			}
		],
		summary: "grant a branch use of a credential: read, sandbox, or live (optionally each write approved)",
		example: "cairn grant add --ws . --cred github --mode read --host api.github.com --ttl-ms 3600000",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["grant", "ls"],
		args: [],
		flags: [{
			name: "session",
			type: "string",
			help: "only grants of this session",
			value: "SESSION"
		}, {
			name: "branch",
			type: "string",
			help: "only grants of branches of this name",
			value: "BRANCH"
		}],
		summary: "list grants with their state (active, revoked, expired, exhausted)",
		example: "cairn grant ls --session ss_… --branch main",
		operation: "listGrants",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["grant", "show"],
		args: ["GRANT"],
		flags: [],
		summary: "show a grant: what it allows, on whose behalf, until when",
		example: "cairn grant show gr_…",
		operation: "getGrant",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["grant", "revoke"],
		args: ["GRANT"],
		flags: [{
			name: "reason",
			type: "string",
			help: "why, for the audit log",
			value: "REASON"
		}],
		summary: "revoke a grant and every grant narrowed from it",
		example: "cairn grant revoke gr_… --reason \"task done\"",
		operation: "revokeGrant",
		file: "keys"
	},
	{
		target: "store",
		names: ["proxy"],
		args: [],
		flags: [
			{
				name: "host",
				type: "string",
				value: "H",
				help: "address to listen on (default 127.0.0.1)"
			},
			{
				name: "port",
				type: "string",
				value: "P",
				help: "port (default 7071; 0 picks one)"
			},
			{
				name: "approval-timeout-ms",
				type: "string",
				value: "MS",
				help: "how long a write waits for a person (default 5 min)"
			},
			{
				name: "max-spool-bytes",
				type: "string",
				value: "N",
				help: "request bodies held at once, all branches together (default 256 MiB); past it a body is refused (503, rule spool_full)"
			},
			{
				name: "master-key-file",
				type: "string",
				value: "FILE",
				help: "the vault master key (env CAIRN_MASTER_KEY_FILE, or CAIRN_MASTER_KEY with the key itself)"
			}
		],
		summary: "run the egress proxy: branches call /<credential>/<path> with their handle; secrets are injected here",
		example: "cairn proxy --port 7071 --master-key-file ~/.cairn-master-key",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["approvals", "ls"],
		args: [],
		flags: [{
			name: "state",
			type: "string",
			help: "which approvals: those in this state, or all; one of pending, approved, denied, expired, used, all; default pending",
			value: "STATE"
		}],
		summary: "writes waiting for a person: branch, credential, method, URL, redacted body preview",
		example: "cairn approvals ls --state all",
		operation: "listApprovals",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["approvals", "show"],
		args: ["APPROVAL"],
		flags: [],
		summary: "show one held write: method, URL, body digest and redacted preview",
		example: "cairn approvals show ap_…",
		operation: "getApproval",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["approve"],
		args: ["APPROVAL"],
		flags: [{
			name: "note",
			type: "string",
			help: "a note for the audit log",
			value: "NOTE"
		}],
		summary: "let exactly one held write through (once; the proxy sends it)",
		example: "cairn approve ap_… --note \"checked the amount\"",
		operation: "approve",
		file: "keys"
	},
	{
		target: "fabric",
		names: ["deny"],
		args: ["APPROVAL"],
		flags: [{
			name: "note",
			type: "string",
			help: "a note for the audit log",
			value: "NOTE"
		}],
		summary: "refuse one held write: the agent gets 403, nothing is sent",
		example: "cairn deny ap_… --note \"wrong customer\"",
		operation: "deny",
		file: "keys"
	},
	{
		target: "desk",
		names: ["mcp"],
		args: [],
		flags: [{
			name: "port",
			type: "string",
			value: "P",
			help: "serve streamable HTTP on 127.0.0.1:P (0 picks one) instead of stdio; prints the URL on stderr"
		}],
		summary: "serve the agent tools over MCP: stdio (default) or streamable HTTP on loopback",
		example: "cairn mcp",
		file: "mcp"
	}
];
// dist/cli/main.js
/**
* The `cairn` command line. Loaded by every call, so it loads little itself:
* `--version` needs nothing more, and the commands (with the library behind
* them) are loaded once a command line asks for one.
*/
function processWorld() {
	ignoreClosedPipe(process.stdout);
	ignoreClosedPipe(process.stderr);
	return {
		stdout: process.stdout,
		stderr: process.stderr,
		stdin: process.stdin,
		env: process.env,
		cwd: process.cwd()
	};
}
/** Runs one `cairn …` command line and returns its exit code; it never throws. */
async function main(argv, world = processWorld()) {
	const out = new Output(wantsJson(argv), world, world.env.CAIRN_DEBUG === "1");
	try {
		return await dispatch(argv, world, out);
	} catch (error) {
		return out.fail(error);
	}
}
function hasHelpFlag(args) {
	return args.includes("--help") || args.includes("-h");
}
async function dispatch(argv, world, out) {
	if (argv[0] === "--version" || argv[0] === "-V" || argv[0] === "version") {
		const version = cliVersion();
		out.result({
			version,
			node: process.versions.node
		}, `cairn ${version}`);
		return EXIT.ok;
	}
	if (argv[0] === "help") return showHelp(argv.slice(1), out, MANIFEST);
	const lookup = findCommand(argv, MANIFEST);
	if (lookup.kind === "none") {
		if (hasHelpFlag(lookup.rest)) return showHelp([], out, MANIFEST);
		throw new UsageError("missing command: run `cairn help` to list the commands");
	}
	if (lookup.kind === "group") {
		if (hasHelpFlag(lookup.rest)) return showHelp([lookup.group], out, MANIFEST);
		throw new UsageError(`"cairn ${lookup.group}" needs a subcommand: run \`cairn help ${lookup.group}\` to list them`);
	}
	const { values, positionals } = parseCommandLine(lookup.command, lookup.rest);
	if (values.help) {
		out.text(commandHelp(lookup.command), "help");
		return EXIT.ok;
	}
	checkArity(lookup.command, values, positionals);
	const { COMMAND_FILES } = await import("./commands-D68HefC9.js");
	const wanted = lookup.command.names.join(" ");
	const file = COMMAND_FILES[lookup.command.file];
	const command = (await file()).find((c) => c.names.join(" ") === wanted);
	const call = {
		values,
		positionals,
		out,
		env: world.env,
		stdin: world.stdin,
		cwd: world.cwd,
		...world.shared ? { shared: world.shared } : {}
	};
	command.check?.(call);
	return (command.target === "store" ? await runOnStore(command, call, world.cwd) : command.target === "desk" ? await runOnDesk(command, call, world.cwd) : await runOnFabric(command, call, world.cwd)) ?? EXIT.ok;
}
function showHelp(words, out, COMMANDS) {
	const names = words.filter((w) => !w.startsWith("-"));
	if (names.length === 0) {
		out.text(mainHelp(COMMANDS), "help");
		return EXIT.ok;
	}
	const command = COMMANDS.find((c) => c.names.join(" ") === names.join(" "));
	if (command) {
		out.text(commandHelp(command), "help");
		return EXIT.ok;
	}
	if (names.length === 1 && COMMANDS.some((c) => c.names[0] === names[0])) {
		out.text(groupHelp(names[0], COMMANDS), "help");
		return EXIT.ok;
	}
	throw new UsageError(`no command "cairn ${names.join(" ")}": run \`cairn help\` to list the commands`);
}
/**
* A store named by --store or $CAIRN_STORE must exist (a typo is not a new
* store); the default one is made on first use, so the first command works.
* A store folder other users may enter is warned of (`cairn doctor` reports it itself).
*/
async function checkStore(store, command, out) {
	const creates = command.target !== "fabric" && command.createsStore;
	if (store.chosen && !creates) (await import("./store-commands-CycJ5P-a.js").then((n) => n.i)).requireStore(store.dir);
	if (!(command.target === "store" && command.reportsPermissions)) {
		const warning = (await import("./store-folder-D53airw-.js").then((n) => n.o)).storeExposure(store.dir);
		if (warning !== void 0) out.problem(warning);
	}
	return store.dir;
}
async function runOnStore(command, call, cwd) {
	if ([
		"url",
		"token",
		"token-file"
	].some((flag) => stringFlag(call.values, flag) !== void 0)) throw new UsageError(`${commandName(command)} works on a local store only: drop --url/--token and pass --store DIR`);
	const dir = await checkStore(storeDir(call.values, call.env, cwd), command, call.out);
	return command.run(dir, call);
}
/** Flags beat environment variables; a --store flag beats $CAIRN_URL, a --url flag beats $CAIRN_STORE. */
function resolveTarget(call, cwd) {
	const urlFlag = stringFlag(call.values, "url");
	const storeFlag = stringFlag(call.values, "store");
	const tokenFlag = stringFlag(call.values, "token");
	const tokenFile = stringFlag(call.values, "token-file");
	if (urlFlag !== void 0 && storeFlag !== void 0) throw new UsageError("pass either --url or --store, not both");
	if (tokenFlag !== void 0 && tokenFile !== void 0) throw new UsageError("pass either --token or --token-file, not both");
	const url = urlFlag ?? (storeFlag === void 0 ? fromEnv(call.env, "CAIRN_URL") : void 0);
	if (url === void 0) {
		if (tokenFlag !== void 0 || tokenFile !== void 0) throw new UsageError("--token goes with --url (or $CAIRN_URL): a local store needs no token");
		return {
			kind: "local",
			store: storeDir(call.values, call.env, cwd)
		};
	}
	const envFile = fromEnv(call.env, "CAIRN_TOKEN_FILE");
	const token = tokenFlag ?? (tokenFile !== void 0 ? readTokenFile(cwd, tokenFile, "--token-file") : void 0) ?? fromEnv(call.env, "CAIRN_TOKEN") ?? (envFile !== void 0 ? readTokenFile(cwd, envFile, "$CAIRN_TOKEN_FILE") : void 0);
	if (token === void 0) throw new UsageError(`${url} needs a token: pass --token-file FILE (or --token), or set $CAIRN_TOKEN_FILE or $CAIRN_TOKEN (\`cairn serve\` prints one; \`cairn token create\` mints more)`);
	return {
		kind: "remote",
		url,
		token
	};
}
/** A bearer token kept in a file: its text without surrounding whitespace (a trailing newline). */
function readTokenFile(cwd, file, source) {
	const path = resolve(cwd, file);
	let text;
	try {
		text = readFileSync(path, "utf8").trim();
	} catch (error) {
		throw invalidArgument(`could not read the token file ${path} given by ${source} (${error.code ?? String(error)}): check the path`, { field: "token-file" });
	}
	if (text === "") throw invalidArgument(`the token file ${path} given by ${source} is empty: write the token into it`, { field: "token-file" });
	return text;
}
/** A server's own master key seals values: a local one given with --url is a mistake, refused. */
function refuseLocalMasterKey(call) {
	if (stringFlag(call.values, "master-key-file") !== void 0) throw new UsageError("through a server its own master key seals values (`cairn serve --master-key-file`): drop --master-key-file");
}
/** A workspace command: the directory is here; the store is local or, with --url (or $CAIRN_URL), a server's. */
async function runOnDesk(command, call, cwd) {
	const target = resolveTarget(call, cwd);
	if (target.kind === "remote") {
		refuseLocalMasterKey(call);
		return command.run(target, call);
	}
	return command.run({
		kind: "local",
		dir: await checkStore(target.store, command, call.out)
	}, call);
}
async function runOnFabric(command, call, cwd) {
	const target = resolveTarget(call, cwd);
	let fabric;
	if (target.kind === "remote") {
		refuseLocalMasterKey(call);
		const { connect } = await import("./connect-BFVtoxiD.js");
		fabric = connect({
			url: target.url,
			token: target.token
		});
	} else {
		const dir = await checkStore(target.store, command, call.out);
		if (command.runLocal) return command.runLocal(dir, call);
		const [{ openConfiguredFabric }, { masterKeyOf }] = await Promise.all([import("./store-commands-CycJ5P-a.js").then((n) => n.i), import("./master-key-2kLtwb5Y.js").then((n) => n.r)]);
		fabric = await openConfiguredFabric(dir, masterKeyOf(call));
	}
	try {
		return await command.run(fabric, call);
	} finally {
		await fabric.close();
	}
}
export { main };
