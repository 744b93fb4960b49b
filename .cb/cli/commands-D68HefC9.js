// dist/cli/commands.js
/**
* The files of commands, in the order `cairn help` lists them. Each is loaded
* only when one of its commands is to run: the manifest (manifest.ts) names
* every command's file, so a command line loads one file and what it needs.
*/
const COMMAND_FILES = {
	store: async () => (await import("./store-commands-CycJ5P-a.js").then((n) => n.i)).STORE_COMMANDS,
	doctor: async () => (await import("./doctor-command-DxShSYT7.js")).DOCTOR_COMMANDS,
	fabric: async () => (await import("./fabric-commands-B9lTW79V.js")).FABRIC_COMMANDS,
	desk: async () => (await import("./desk-commands-DbZvD6FU.js")).DESK_COMMANDS,
	unit: async () => (await import("./unit-commands-BSSfuxOX.js")).UNIT_COMMANDS,
	memory: async () => (await import("./memory-commands-QuNsuOpU.js")).MEMORY_COMMANDS,
	watch: async () => (await import("./watch-command-Bb2P5Bm8.js")).WATCH_COMMANDS,
	demo: async () => [(await import("./demo-Bvaak_WQ.js")).demo],
	keys: async () => (await import("./keys-commands-LvytkKTt.js")).KEYS_COMMANDS,
	mcp: async () => (await import("./mcp-commands-Cgh6oYvg.js")).MCP_COMMANDS
};
export { COMMAND_FILES };
