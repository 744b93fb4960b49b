import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The modules a source file loads when it runs (static imports, `import type`
 * left out), transitively: sources as paths relative to the repository,
 * packages and builtins by their specifier.
 */
export function importGraph(entry: string, root = ROOT): string[] {
  const seen = new Set<string>();
  const stack = [resolve(root, entry)];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      if (!spec.startsWith('.')) stack.push(spec);
      else {
        const path = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        stack.push(existsSync(path) ? path : path.replace(/\.ts$/, '/index.ts'));
      }
    }
  }
  return [...seen].map((f) => (f.startsWith('/') ? relative(root, f) : f));
}
