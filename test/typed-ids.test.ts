import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Ids are typed by kind (src/ids.ts): swapped arguments must not compile.
describe('typed ids', () => {
  it('a swapped workspace, snapshot or session id does not compile; ids Cairn returns flow back in', () => {
    const file = fileURLToPath(new URL('./types/swapped-ids.ts', import.meta.url));
    const config = ts.readConfigFile(
      fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
      ts.sys.readFile,
    );
    const options = ts.parseJsonConfigFileContent(
      config.config,
      ts.sys,
      fileURLToPath(new URL('..', import.meta.url)),
    );
    const program = ts.createProgram([file], { ...options.options, noEmit: true, rootDir: undefined });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.fileName.split('/').pop()}:${d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : '?'} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      );
    // An unused @ts-expect-error (a swap that compiled) is reported as an error here.
    expect(problems).toEqual([]);
  }, 120_000);
});
