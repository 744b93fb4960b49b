import { readFileSync } from 'node:fs';

/** The package's version, read from the package.json beside the built CLI. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
