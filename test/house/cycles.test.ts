// The house's shape, read from the code's own imports with TypeScript's pre-processor (value and
// type imports alike): no import cycles in src/, and only the engine and the kernel wiring reach the
// two Kernels implementations (src/wasm, src/baseline).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf } from '../support/cycles.js';
import { importsOf, SRC, sourceFiles } from '../support/source-imports.js';

const ROOT = join(import.meta.dirname, '..', '..');

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (p: string): string => relative(ROOT, p).split('\\').join('/');

describe('the house', () => {
  it('has no import cycles in src/ (type imports included)', () => {
    expect(cyclesOf(graph).map((c) => c.map(rel).join(' <-> '))).toEqual([]);
  });

  it('the cycle finder finds a cycle of two and one of three, and none in a chain', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('only the engine and the kernel wiring import src/wasm or src/baseline', () => {
    const breaches: string[] = [];
    for (const [file, targets] of graph) {
      const from = rel(file);
      if (/^src\/(wasm|baseline)\//.test(from) || from === 'src/engine.ts' || from === 'src/kernels.ts') continue;
      for (const t of targets) if (/^src\/(wasm|baseline)\//.test(rel(t))) breaches.push(`${from} -> ${rel(t)}`);
    }
    expect(breaches).toEqual([]);
  });

  it('no file of src/ exports a name that starts with an underscore', () => {
    const names = files.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:function|const|let|class|type|interface|enum)\s+(_\w+)/g)].map((m) => `${rel(f)}: ${m[1]}`),
    );
    expect(names).toEqual([]);
  });
});
