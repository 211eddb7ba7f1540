// Key lists are checked against their types at build time: keysOf<T>() refuses a list that misses a
// key of T or names one T lacks, and KeyShapeOf<T> does the same for a nested key shape. Compiled
// here with the TypeScript compiler, as the build compiles them.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { keysOf } from '../../src/shared/validate.js';
import { ROOT } from '../support/cli.js';

/** The compiler's errors for `body`, compiled as a module next to src/shared/validate.ts. */
function errorsOf(body: string): string[] {
  const file = join(ROOT, 'src', 'shared', '__keys_of_check__.ts');
  const source = `import { keysOf, type KeyShapeOf } from './validate.js';\ntype Gpu = { index: number; memoryTotal: number; memoryUsed?: number };\n${body}\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError, create) => (name === file ? ts.createSourceFile(name, source, language) : read(name, language, onError, create));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('key lists checked against their types', () => {
  it('an exact list compiles, and keeps its keys at run time', () => {
    expect(
      errorsOf("export const K = keysOf<Gpu>()(['index', 'memoryTotal', 'memoryUsed']);\nexport const S = { index: null, memoryTotal: null, memoryUsed: null } satisfies KeyShapeOf<Gpu>;"),
    ).toEqual([]);
    expect(keysOf<{ a: number; b?: string }>()(['a', 'b'])).toEqual(['a', 'b']);
  }, 30_000);

  it('a missing key (an optional one too) fails to compile, naming it', () => {
    const errors = errorsOf("export const K = keysOf<Gpu>()(['index', 'memoryTotal']);");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/memoryUsed/);
    expect(errorsOf('export const S = { index: null, memoryTotal: null } satisfies KeyShapeOf<Gpu>;').join('\n')).toMatch(/memoryUsed/);
  }, 30_000);

  it('a key the type lacks fails to compile', () => {
    expect(errorsOf("export const K = keysOf<Gpu>()(['index', 'memoryTotal', 'memoryUsed', 'memorytotal']);").join('\n')).toMatch(/memorytotal/);
    expect(errorsOf('export const S = { index: null, memoryTotal: null, memoryUsed: null, uuid: null } satisfies KeyShapeOf<Gpu>;').join('\n')).toMatch(/uuid/);
  }, 30_000);
});
