// MemoryStore with openClusterState is what a browser page uses of `gpualloc/store`: the modules they
// reach (statically, type-only imports aside) import no Node built-in, no `pg`, no `koffi`, and use
// no Node global (`Buffer`, `process`, `require`, `__dirname`), so a bundle of them loads in a
// browser (where a reference to `Buffer` would be `Buffer is not defined`).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Every local module `entries` reach through static, non-type imports, and the bare specifiers they import. */
function graph(entries: string[]): { files: Map<string, string>; bare: Set<string> } {
  const files = new Map<string, string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    const text = readFileSync(file, 'utf8');
    files.set(file, text);
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  };
  for (const e of entries) visit(join(root, e));
  return { files, bare };
}

/** The code of a module without its comments (line and block), so prose naming "process" does not count. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Node globals a browser lacks, as used in code. */
const NODE_GLOBALS = /\b(?:Buffer\s*[.(]|process\s*\.\s*[a-zA-Z]|require\s*\(|__dirname|__filename|global\s*\.)/;

describe('MemoryStore in a browser', () => {
  it('memory.ts and stored-state.ts reach no Node built-in, pg or koffi, and no module that uses a Node global', () => {
    const { files, bare } = graph(['src/store/memory.ts', 'src/store/stored-state.ts']);
    // The walk follows the graph: the cluster state and the shared helpers are in it.
    expect([...files.keys()].map((f) => relative(root, f))).toEqual(expect.arrayContaining(['src/store/memory.ts', 'src/store/stored-state.ts', 'src/cluster/state.ts', 'src/shared/dispose.ts']));
    expect([...bare].filter((s) => s.startsWith('node:') || s === 'pg' || s === 'koffi' || s === 'fs' || s === 'path')).toEqual([]);
    const offenders = [...files].filter(([, text]) => NODE_GLOBALS.test(code(text))).map(([f, text]) => `${relative(root, f)}: ${code(text).match(NODE_GLOBALS)![0]}`);
    expect(offenders).toEqual([]);
  });

  it('the check sees a Node global where there is one (file-lock.ts uses process)', () => {
    const { files } = graph(['src/store/file-lock.ts']);
    expect(NODE_GLOBALS.test(code(files.get(join(root, 'src/store/file-lock.ts'))!))).toBe(true);
  });
});
