// The browser page imports the package's main entry: its static import graph must not reach the
// PostgreSQL client, Node's built-ins, src/store (file-lock.ts included) or src/cli. The stores live
// behind `gpualloc/store`, whose static graph reaches no package and no Node built-in either: its
// MemoryStore runs in a browser, and pg, koffi and node:fs are imported on first use only.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Bare module specifiers statically imported (types excluded) from `entry` and every local module it reaches. */
function staticImports(entry: string, seen = new Set<string>()): Set<string> {
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  };
  visit(join(root, entry));
  return bare;
}

describe('store modules and the browser', () => {
  it('src/index.ts reaches neither pg, node: modules, src/store nor src/cli statically; gpualloc/store reaches no package and no built-in', () => {
    const files = new Set<string>();
    const main = [...staticImports('src/index.ts', files)];
    expect(files.size).toBeGreaterThan(10);
    expect([...files].filter((f) => f.includes(join('src', 'store')) || f.includes(join('src', 'cli')))).toEqual([]);
    expect(main.filter((s) => s === 'pg' || s.startsWith('node:') || s === 'koffi')).toEqual([]);
    expect(main).toContain('@assemblyscript/loader'); // the walk does follow the graph
    const storeFiles = new Set<string>();
    const store = [...staticImports('src/store/index.ts', storeFiles)];
    expect([...storeFiles].some((f) => f.endsWith(join('store', 'postgres.ts')))).toBe(true); // the walk reaches PostgresStore's module
    expect(store.filter((s) => s === 'pg' || s.startsWith('node:') || s === 'koffi')).toEqual([]);
  });
});
