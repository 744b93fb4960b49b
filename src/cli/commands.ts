import type { Command } from './command.js';
import { demo } from './demo.js';
import { DESK_COMMANDS } from './desk-commands.js';
import { DOCTOR_COMMANDS } from './doctor-command.js';
import { FABRIC_COMMANDS } from './fabric-commands.js';
import { KEYS_COMMANDS } from './keys-commands.js';
import { MCP_COMMANDS } from './mcp-commands.js';
import { MEMORY_COMMANDS } from './memory-commands.js';
import { STORE_COMMANDS } from './store-commands.js';
import { UNIT_COMMANDS } from './unit-commands.js';
import { WATCH_COMMANDS } from './watch-command.js';

/** Every command, in the order `cairn help` lists them. */
export const COMMANDS: Command[] = [
  ...STORE_COMMANDS,
  ...DOCTOR_COMMANDS,
  ...FABRIC_COMMANDS,
  ...DESK_COMMANDS,
  ...UNIT_COMMANDS,
  ...MEMORY_COMMANDS,
  ...WATCH_COMMANDS,
  demo,
  ...KEYS_COMMANDS,
  ...MCP_COMMANDS,
];
