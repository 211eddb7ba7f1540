// Key lists are checked against their types at build time: keysOf<T>() refuses a list that misses a
// key of T or names one T lacks, and KeyShapeOf<T> does the same for a nested key shape. Compiled
// here with the TypeScript compiler, as the build compiles them: every case is a module of its own
// next to src/shared/validate.ts, all of them in one program (one load of the compiler's libraries).
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { keysOf } from '../../src/shared/validate.js';
import { ROOT } from '../support/cli.js';

const CASES = {
  exact: "export const K = keysOf<Gpu>()(['index', 'memoryTotal', 'memoryUsed']);\nexport const S = { index: null, memoryTotal: null, memoryUsed: null } satisfies KeyShapeOf<Gpu>;",
  missingList: "export const K = keysOf<Gpu>()(['index', 'memoryTotal']);",
  missingShape: 'export const S = { index: null, memoryTotal: null } satisfies KeyShapeOf<Gpu>;',
  extraList: "export const K = keysOf<Gpu>()(['index', 'memoryTotal', 'memoryUsed', 'memorytotal']);",
  extraShape: 'export const S = { index: null, memoryTotal: null, memoryUsed: null, uuid: null } satisfies KeyShapeOf<Gpu>;',
} as const;

/** The compiler's errors for each case, compiled as modules next to src/shared/validate.ts. */
function compile(cases: Readonly<Record<string, string>>): Map<string, string[]> {
  const fileOf = (name: string) => join(ROOT, 'src', 'shared', `__keys_of_check_${name}__.ts`);
  const sources = new Map(
    Object.entries(cases).map(([name, body]) => [
      fileOf(name),
      `import { keysOf, type KeyShapeOf } from './validate.js';\ntype Gpu = { index: number; memoryTotal: number; memoryUsed?: number };\n${body}\n`,
    ]),
  );
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
  host.getSourceFile = (name, language, onError, create) => {
    const source = sources.get(name);
    return source === undefined ? read(name, language, onError, create) : ts.createSourceFile(name, source, language);
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => sources.has(name) || exists(name);
  const program = ts.createProgram([...sources.keys()], options, host);
  return new Map(Object.keys(cases).map((name) => [name, ts.getPreEmitDiagnostics(program, program.getSourceFile(fileOf(name))).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))]));
}

let errors: Map<string, string[]>;
const errorsOf = (name: keyof typeof CASES): string[] => errors.get(name) ?? [];

describe('key lists checked against their types', () => {
  beforeAll(() => {
    errors = compile(CASES);
  }, 30_000);

  it('an exact list compiles, and keeps its keys at run time', () => {
    expect(errorsOf('exact')).toEqual([]);
    expect(keysOf<{ a: number; b?: string }>()(['a', 'b'])).toEqual(['a', 'b']);
  });

  it('a missing key (an optional one too) fails to compile, naming it', () => {
    expect(errorsOf('missingList').length).toBeGreaterThan(0);
    expect(errorsOf('missingList').join('\n')).toMatch(/memoryUsed/);
    expect(errorsOf('missingShape').join('\n')).toMatch(/memoryUsed/);
  });

  it('a key the type lacks fails to compile', () => {
    expect(errorsOf('extraList').join('\n')).toMatch(/memorytotal/);
    expect(errorsOf('extraShape').join('\n')).toMatch(/uuid/);
  });
});
