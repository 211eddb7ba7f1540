// The dra room's sub-rooms, read from the code's own imports (value and type imports alike): every
// folder of src/dra is a sub-room with a front (index.ts); a sub-room reaches another only through
// that front and never back up to the room's own front (src/dra/index.ts) or its testing entry;
// the sub-rooms form no cycle; the rest of src/ enters the room through src/dra/index.ts alone.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, SRC, sourceFiles } from '../support/source-imports.js';

const DRA = join(SRC, 'dra');

/** The sub-room a file of src/dra sits in (`objects`, `cel`, …), or undefined for the room's own files. */
function subRoomOf(file: string): string | undefined {
  const rel = relative(DRA, file);
  return rel.includes('/') ? rel.split('/')[0] : undefined;
}

/** A cycle of the graph as a path (`a -> b -> a`), or undefined when there is none (depth-first search). */
function cycleOf(graph: Map<string, string[]>): string | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (v: string): string | undefined => {
    if (path.includes(v)) return [...path.slice(path.indexOf(v)), v].join(' -> ');
    if (done.has(v)) return undefined;
    path.push(v);
    for (const w of graph.get(v) ?? []) {
      const found = visit(w);
      if (found !== undefined) return found;
    }
    path.pop();
    done.add(v);
    return undefined;
  };
  for (const v of graph.keys()) {
    const found = visit(v);
    if (found !== undefined) return found;
  }
  return undefined;
}

const files = sourceFiles(SRC);
const draFiles = files.filter((f) => f.startsWith(`${DRA}/`));

describe('the dra room in sub-rooms', () => {
  it('has only sub-rooms with a front beside its own front and testing entry', () => {
    const top = readdirSync(DRA);
    const subRooms = top.filter((name) => statSync(join(DRA, name)).isDirectory());
    expect(subRooms.length).toBeGreaterThanOrEqual(4);
    expect(subRooms.filter((name) => !existsSync(join(DRA, name, 'index.ts')))).toEqual([]);
    expect(top.filter((name) => !subRooms.includes(name)).sort()).toEqual(['index.ts', 'testing.ts']);
  });

  it('reaches another sub-room only through its front, and never back up to the room front or testing entry', () => {
    const breaches: string[] = [];
    for (const file of draFiles) {
      const from = subRoomOf(file);
      if (from === undefined) continue;
      for (const target of importsOf(file)) {
        if (!target.startsWith(`${DRA}/`)) continue;
        const to = subRoomOf(target);
        if (to === undefined || (to !== from && target !== join(DRA, to, 'index.ts'))) breaches.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('has no cycle between sub-rooms', () => {
    const graph = new Map<string, string[]>();
    for (const file of draFiles) {
      const from = subRoomOf(file);
      if (from === undefined) continue;
      const edges = graph.get(from) ?? [];
      for (const target of importsOf(file)) {
        const to = target.startsWith(`${DRA}/`) ? subRoomOf(target) : undefined;
        if (to !== undefined && to !== from && !edges.includes(to)) edges.push(to);
      }
      graph.set(from, edges);
    }
    expect(graph.size).toBeGreaterThanOrEqual(4);
    expect(cycleOf(graph)).toBeUndefined();
    expect(
      cycleOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toBe('a -> b -> a');
  });

  it('is entered from the rest of src/ through src/dra/index.ts alone', () => {
    const entries: string[] = [];
    for (const file of files.filter((f) => !f.startsWith(`${DRA}/`))) {
      for (const target of importsOf(file)) if (target.startsWith(`${DRA}/`) && target !== join(DRA, 'index.ts')) entries.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
    expect(entries).toEqual([]);
  });

  it('keeps each sub-room within 20 modules', () => {
    const crowded = readdirSync(DRA)
      .filter((name) => statSync(join(DRA, name)).isDirectory())
      .filter((name) => readdirSync(join(DRA, name)).filter((f) => f.endsWith('.ts') && f !== 'index.ts').length > 20);
    expect(crowded).toEqual([]);
  });
});
