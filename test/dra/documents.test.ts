// Reading kubectl's output: JSON or a YAML stream, Lists opened, errors at FILE:LINE:COL.
import { describe, expect, it } from 'vitest';
import { objectsOf, readDocuments } from '../../src/dra/testing.js';
import { AllocationError } from '../../src/shared/errors.js';

describe('readDocuments', () => {
  it('reads one JSON value and finds a key again by its path', async () => {
    const text = '{\n  "kind": "List",\n  "items": [\n    { "kind": "Node", "metadata": { "name": "a" } }\n  ]\n}\n';
    const docs = await readDocuments(text, 'dump.json');
    expect(docs.format).toBe('json');
    expect(docs.values).toHaveLength(1);
    expect(docs.positionOf(0, ['items', 0, 'metadata', 'name'])).toEqual({ line: 4, column: 37 });
  });

  it('reads every document of a YAML stream, skipping empty ones, with positions per document', async () => {
    const text = '---\nkind: Node\nmetadata:\n  name: a\n---\n---\nkind: Pod\nmetadata:\n  name: p\n';
    const docs = await readDocuments(text, 'dump.yaml');
    expect(docs.format).toBe('yaml');
    expect(docs.values.map((v) => (v as { kind: string }).kind)).toEqual(['Node', 'Pod']);
    expect(docs.positionOf(1, ['metadata', 'name'])).toEqual({ line: 9, column: 9 });
  });

  it('says where a YAML syntax error is', async () => {
    let caught: unknown;
    try {
      await readDocuments('kind: Node\nmetadata:\n  name: [a\n', 'bad.yaml');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AllocationError);
    expect((caught as AllocationError).message).toMatch(/^bad\.yaml:\d+:\d+: not valid YAML/);
  });

  it('refuses a duplicate key as the API server would', async () => {
    await expect(readDocuments('kind: Node\nkind: Pod\n', 'dup.yaml')).rejects.toThrow(/dup\.yaml:2:1: not valid YAML.*[Mm]ap keys must be unique/);
  });

  it('refuses an alias bomb instead of expanding it', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 9; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      );
    const started = Date.now();
    await expect(readDocuments(lines.join('\n'), 'bomb.yaml')).rejects.toThrow(AllocationError);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('says JSON errors with the line and column', async () => {
    await expect(readDocuments('{\n  "kind": \n}', 'x.json')).rejects.toThrow(/^x\.json(:\d+:\d+)?: not valid JSON/);
  });

  it('turns a JSON value nested too deeply for the parser into LIMIT_EXCEEDED, never a RangeError', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    try {
      const docs = await readDocuments(deep, 'deep.json');
      expect(docs.values).toHaveLength(1);
    } catch (error) {
      expect(error).toBeInstanceOf(AllocationError);
      expect((error as AllocationError).code).toBe('LIMIT_EXCEEDED');
    }
  });
});

describe('objectsOf', () => {
  it("opens kind: List, typed Lists and arrays, keeping each item's path and the typed List's kind", () => {
    const placed = objectsOf([
      { kind: 'List', items: [{ kind: 'Node' }, { kind: 'Pod' }] },
      { kind: 'ResourceSliceList', items: [{ metadata: { name: 's' } }] },
      [{ kind: 'DeviceClass' }],
      { kind: 'Node' },
    ]);
    expect(placed.map((p) => [p.doc, p.path, p.listKind])).toEqual([
      [0, ['items', 0], undefined],
      [0, ['items', 1], undefined],
      [1, ['items', 0], 'ResourceSlice'],
      [2, [0], undefined],
      [3, [], undefined],
    ]);
  });
});
