// The rooms of src/, read from the code's own imports (value and type alike, with TypeScript's
// pre-processor). A room is a folder; a folder with an index.ts has that file as its one front, and
// this holds at every depth (src/dra/<sub>/ as much as src/fleet/):
//   - an import that enters a room with a front from outside it names the front, never a file
//     behind it (the two backends, src/wasm and src/baseline, implement every room's kernel
//     contract, so their kernel-type and layout imports are not bypasses);
//   - no cycle between the rooms side by side in one folder (files at that level count as rooms of
//     one file);
//   - no folder holds more than 20 modules side by side (its index.ts not counted);
//   - a capability imports its own kernel interface, never the composed src/kernels.ts.
import { relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf } from '../support/cycles.js';
import { importsOf, SRC, sourceFiles } from '../support/source-imports.js';

const MAX_MODULES = 20;
/** Folders (relative to src/) whose files implement the rooms' kernel contracts. */
const BACKENDS = ['wasm', 'baseline'];

/** The house as data: files and their imports as paths relative to src/ ('fleet/index.ts'), and the folders with a front. */
type House = { imports: Map<string, string[]>; fronts: Set<string> };

const posix = (p: string): string => p.split(sep).join('/');

function readHouse(): House {
  const imports = new Map<string, string[]>();
  const fronts = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const rel = posix(relative(SRC, file));
    if (rel.endsWith('/index.ts')) fronts.add(rel.slice(0, -'/index.ts'.length));
    imports.set(
      rel,
      importsOf(file).map((target) => posix(relative(SRC, target))),
    );
  }
  return { imports, fronts };
}

/** The folders of a path, outermost first: 'dra/cel/x.ts' → ['dra', 'dra/cel']. */
function foldersOf(file: string): string[] {
  const parts = file.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Imports that enter a room with a front other than through it: 'from -> to'. */
function bypasses(house: House, backends: readonly string[] = BACKENDS): string[] {
  const out: string[] = [];
  const inBackend = (f: string): boolean => backends.some((b) => f.startsWith(`${b}/`));
  for (const [from, targets] of house.imports) {
    if (inBackend(from)) continue;
    const mine = new Set(foldersOf(from));
    for (const to of targets) {
      if (inBackend(to)) continue;
      // The first folder with a front that `to` lies in and `from` does not: `to` must be its front.
      const entered = foldersOf(to).find((d) => !mine.has(d) && house.fronts.has(d));
      if (entered !== undefined && to !== `${entered}/index.ts`) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** Cycles between the rooms side by side in one folder: 'dir: a <-> b' ('.' for src/ itself). */
function roomCycles(house: House): string[] {
  // For each folder, the graph of its children (sub-folders and files) over the imports between them.
  const graphs = new Map<string, Map<string, Set<string>>>();
  const childOf = (dir: string, file: string): string => {
    const rest = dir === '' ? file : file.slice(dir.length + 1);
    return rest.split('/')[0]!;
  };
  for (const [from, targets] of house.imports) {
    for (const to of targets) {
      const a = from.split('/');
      const b = to.split('/');
      let k = 0;
      while (k < a.length - 1 && k < b.length - 1 && a[k] === b[k]) k++;
      const dir = a.slice(0, k).join('/');
      const x = childOf(dir, from);
      const y = childOf(dir, to);
      if (x === y) continue;
      const g = graphs.get(dir) ?? new Map<string, Set<string>>();
      graphs.set(dir, g);
      if (!g.has(x)) g.set(x, new Set());
      g.get(x)!.add(y);
    }
  }
  const out: string[] = [];
  for (const [dir, g] of graphs) {
    const graph = new Map([...g].map(([k, v]) => [k, [...v]]));
    for (const c of cyclesOf(graph)) out.push(`${dir === '' ? '.' : dir}: ${c.join(' <-> ')}`);
  }
  return out.sort();
}

/** Folders holding more than `max` modules side by side (index.ts not counted): 'dir (n)'. */
function flatHeaps(files: readonly string[], max = MAX_MODULES): string[] {
  const count = new Map<string, number>();
  for (const f of files) {
    if (f === 'index.ts' || f.endsWith('/index.ts')) continue;
    const dir = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.';
    count.set(dir, (count.get(dir) ?? 0) + 1);
  }
  return [...count]
    .filter(([, n]) => n > max)
    .map(([d, n]) => `${d === '.' ? 'src' : `src/${d}`} (${n})`)
    .sort();
}

const house = readHouse();

describe('the rooms of src/', () => {
  it('every import into a room with a front goes through that front (sub-rooms included)', () => {
    expect(bypasses(house)).toEqual([]);
  });

  it('no two rooms side by side import each other, directly or round a cycle', () => {
    expect(roomCycles(house)).toEqual([]);
  });

  it(`no folder of src/ holds more than ${MAX_MODULES} modules side by side`, () => {
    expect(flatHeaps([...house.imports.keys()])).toEqual([]);
  });

  it('no room imports src/kernels.ts: each capability takes its own kernel interface (only the backends compose them)', () => {
    const inRoom = (f: string): boolean => f.includes('/') && !BACKENDS.some((b) => f.startsWith(`${b}/`));
    const composed = [...house.imports].filter(([from, targets]) => inRoom(from) && targets.includes('kernels.ts')).map(([from]) => from);
    expect(composed).toEqual([]);
  });
});

describe('the room rules catch what they are for', () => {
  const made = (imports: Record<string, string[]>): House => ({
    imports: new Map(Object.entries(imports)),
    fronts: new Set(
      Object.keys(imports)
        .filter((f) => f.endsWith('/index.ts'))
        .map((f) => f.slice(0, -'/index.ts'.length)),
    ),
  });

  it('a bypass into a room, into a sub-room from a sibling sub-room, and from outside into a sub-room', () => {
    const h = made({
      'index.ts': ['fleet/index.ts', 'dra/index.ts'],
      'cli/run.ts': ['fleet/scheduler.ts', 'store/x.ts'],
      'fleet/index.ts': ['fleet/scheduler.ts'],
      'fleet/scheduler.ts': [],
      'store/x.ts': [],
      'dra/index.ts': ['dra/cel/index.ts', 'dra/allocator/index.ts'],
      'dra/types.ts': [],
      'dra/cel/index.ts': ['dra/cel/parse.ts'],
      'dra/cel/parse.ts': ['dra/types.ts'],
      'dra/allocator/index.ts': ['dra/allocator/scored.ts'],
      'dra/allocator/scored.ts': ['dra/cel/parse.ts', 'dra/cel/index.ts', 'dra/types.ts'],
      'engine.ts': ['dra/cel/index.ts', 'wasm/core.ts'],
      'wasm/index.ts': ['wasm/core.ts'],
      'wasm/core.ts': [],
      'wasm/fleet.ts': ['fleet/scheduler.ts'],
    });
    // store/ has no front, so any file of it may be imported; the backends may read kernel contracts.
    expect(bypasses(h)).toEqual(['cli/run.ts -> fleet/scheduler.ts', 'dra/allocator/scored.ts -> dra/cel/parse.ts', 'engine.ts -> dra/cel/index.ts']);
  });

  it('a cycle between two rooms, between two sub-rooms, and none along a chain', () => {
    const h = made({
      'cluster/state.ts': ['fleet/index.ts'],
      'fleet/index.ts': ['fleet/sim.ts'],
      'fleet/sim.ts': ['cluster/state.ts'],
      'dra/a/x.ts': ['dra/b/y.ts'],
      'dra/b/y.ts': ['dra/c/z.ts'],
      'dra/c/z.ts': ['dra/a/w.ts'],
      'dra/a/w.ts': [],
      'models/m.ts': ['hardware/h.ts'],
      'hardware/h.ts': ['shared/s.ts'],
      'shared/s.ts': [],
    });
    expect(roomCycles(h)).toEqual(['.: cluster <-> fleet', 'dra: a <-> b <-> c']);
  });

  it('a folder of 21 modules, and none for 20 beside an index.ts', () => {
    const files = (dir: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${dir}/m${i}.ts`);
    expect(flatHeaps([...files('dra', 21), ...files('fleet', 20), 'fleet/index.ts'])).toEqual(['src/dra (21)']);
  });
});
