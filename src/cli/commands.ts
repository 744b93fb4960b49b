import type { Command } from './command.js';

/**
 * The files of commands, in the order `cairn help` lists them. Each is loaded
 * only when one of its commands is to run: the manifest (manifest.ts) names
 * every command's file, so a command line loads one file and what it needs.
 */
export const COMMAND_FILES = {
  store: async (): Promise<Command[]> => (await import('./store-commands.js')).STORE_COMMANDS,
  doctor: async (): Promise<Command[]> => (await import('./doctor-command.js')).DOCTOR_COMMANDS,
  fabric: async (): Promise<Command[]> => (await import('./fabric-commands.js')).FABRIC_COMMANDS,
  audit: async (): Promise<Command[]> => (await import('../audit/cli.js')).AUDIT_COMMANDS,
  desk: async (): Promise<Command[]> => (await import('./desk-commands.js')).DESK_COMMANDS,
  gc: async (): Promise<Command[]> => [(await import('./gc-command.js')).GC_COMMAND],
  unit: async (): Promise<Command[]> => (await import('./unit-commands.js')).UNIT_COMMANDS,
  memory: async (): Promise<Command[]> => (await import('./memory-commands.js')).MEMORY_COMMANDS,
  watch: async (): Promise<Command[]> => (await import('./watch-command.js')).WATCH_COMMANDS,
  demo: async (): Promise<Command[]> => [(await import('./demo.js')).demo],
  keys: async (): Promise<Command[]> => (await import('./keys-commands.js')).KEYS_COMMANDS,
  mcp: async (): Promise<Command[]> => (await import('./mcp-commands.js')).MCP_COMMANDS,
  artifacts: async (): Promise<Command[]> => (await import('../artifacts/cli.js')).ARTIFACT_COMMANDS,
  erasure: async (): Promise<Command[]> => (await import('../erasure/cli.js')).ERASURE_COMMANDS,
  redaction: async (): Promise<Command[]> => (await import('../redaction/cli.js')).REDACTION_COMMANDS,
};
export type CommandFile = keyof typeof COMMAND_FILES;

/** Every command with the file it is in, in help's order: what the manifest is made from (`npm run wire`). */
export async function allCommands(): Promise<Command[]> {
  const all: Command[] = [];
  for (const [file, load] of Object.entries(COMMAND_FILES) as [CommandFile, () => Promise<Command[]>][])
    for (const command of await load()) all.push({ ...command, file });
  return all;
}
