import { readFileSync } from "node:fs";
// dist/cli/version.js
/** The package's version, read from the package.json beside the built CLI. */
function cliVersion() {
	return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
}
export { cliVersion as t };
