// The house's shape, read from the code's own imports with TypeScript's pre-processor (value and
// type imports alike): no import cycles in src/, and only the engine and the kernel wiring reach the
// two Kernels implementations (src/wasm, src/baseline).
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cyclesOf } from '../support/cycles.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Files of src/ that `file` imports (static imports, re-exports and dynamic imports of relative paths). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out: string[] = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), ref.fileName);
    const target = [base.replace(/\.js$/, '.ts'), base + '.ts', join(base, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile());
    if (target?.startsWith(SRC)) out.push(target);
  }
  return out;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (p: string): string => relative(ROOT, p).split('\\').join('/');

describe('the house', () => {
  it('has no import cycles in src/ (type imports included)', () => {
    expect(cyclesOf(graph).map((c) => c.map(rel).join(' <-> '))).toEqual([]);
  });

  it('the cycle finder finds a cycle of two and one of three, and none in a chain', () => {
    expect(cyclesOf(new Map([['a', ['b']], ['b', ['a']], ['c', ['a']]]))).toEqual([['a', 'b']]);
    expect(cyclesOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).toEqual([]);
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
    const names = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:function|const|let|class|type|interface|enum)\s+(_\w+)/g)].map((m) => `${rel(f)}: ${m[1]}`));
    expect(names).toEqual([]);
  });
});
