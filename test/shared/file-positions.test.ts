// jsonPosition finds every key and array item of any JSON document, however it is spaced (property
// test), so file errors point at the right line and column.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PathSegment } from '../../src/shared/errors.js';
import { jsonPosition, positionAt } from '../../src/shared/file-positions.js';

/** Every path into a value, with the value there. */
function paths(value: unknown, prefix: PathSegment[] = []): Array<{ path: PathSegment[]; value: unknown }> {
  const out: Array<{ path: PathSegment[]; value: unknown }> = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push({ path: [...prefix, i], value: v }, ...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push({ path: [...prefix, k], value: v }, ...paths(v, [...prefix, k]));
  }
  return out;
}

/** The character offset of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) at = text.indexOf('\n', at) + 1;
  return at + column - 1;
}

describe('jsonPosition', () => {
  it('points at the key (or the item) of every path, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        for (const { path, value: at } of paths(value)) {
          const pos = jsonPosition(text, path);
          expect(pos, JSON.stringify(path)).toBeDefined();
          const rest = text.slice(offsetOf(text, pos!.line, pos!.column));
          const last = path[path.length - 1];
          const expected = typeof last === 'number' ? JSON.stringify(at, null, indent) : JSON.stringify(last);
          // Keys: the quoted key starts there; items: the item's own text.
          expect(rest.startsWith(typeof last === 'number' ? expected.slice(0, 1) : expected), `${JSON.stringify(path)} in ${text}`).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('positionAt counts lines and columns from 1', () => {
    expect(positionAt('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(positionAt('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
