// readInput's compiled record compares (Shape in src/validate.ts): a list of flat records of one kind
// (GPUs, slots) is compared by a function compiled for its keys. Each test runs with compiled compares
// and again with them turned off (the tape loop), and every answer is checked against a fresh copy.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { _recordShapes, readInput } from '../src/validate.js';
import { ROOT } from './cli-helpers.js';
import { canon } from './fuzz/canon.js';

type Slot = Record<string, unknown>;

/** A request holding a list of slot-like records, as planPlacement gets it. */
function request(): { slots: Slot[]; memory: number } {
  const slots: Slot[] = [];
  for (let k = 0; k < 6; k++) slots.push({ id: `slot-${k}`, model: k % 2 === 0 ? 'a' : 'b', gpus: [k, (k + 1) % 6], memoryPerGpu: k * 2 ** 30, lastActivity: 1e12 + k, stale: k % 3 === 0 });
  return { slots, memory: 2 ** 34 };
}

/** An in-place edit of a request that was read before: whether its copy may come back, and the edit. */
type Edit = { name: string; same: boolean; apply: (r: { slots: Slot[] }) => void };

const INHERITS = { stale: true };

const EDITS: Edit[] = [
  { name: 'nothing', same: true, apply: () => undefined },
  { name: 'a value set to what it was', same: true, apply: (r) => (r.slots[2].id = `slot-${2}`) },
  { name: 'a string value', same: false, apply: (r) => (r.slots[3].model = 'c') },
  { name: 'a number value', same: false, apply: (r) => (r.slots[5].memoryPerGpu = 1) },
  { name: 'a boolean value', same: false, apply: (r) => (r.slots[1].stale = true) },
  { name: '0 to -0 (a value)', same: false, apply: (r) => (r.slots[0].memoryPerGpu = -0) },
  { name: '0 to -0 (a list item)', same: false, apply: (r) => ((r.slots[0].gpus as number[])[0] = -0) },
  { name: 'a zero to false', same: false, apply: (r) => (r.slots[0].memoryPerGpu = false) },
  { name: 'a zero to the string "0"', same: false, apply: (r) => (r.slots[0].memoryPerGpu = '0') },
  { name: 'a list item', same: false, apply: (r) => ((r.slots[4].gpus as number[])[1] = 3) },
  { name: 'a list grown', same: false, apply: (r) => (r.slots[4].gpus as number[]).push(2) },
  { name: 'a list swapped for an object with its items', same: false, apply: (r) => (r.slots[4].gpus = { 0: 4, 1: 5, length: 2 }) },
  { name: 'a value swapped for an equal list', same: false, apply: (r) => (r.slots[4].model = ['a']) },
  { name: 'a key added', same: false, apply: (r) => (r.slots[2].extra = 1) },
  { name: 'a key added with undefined', same: false, apply: (r) => (r.slots[2].extra = undefined) },
  { name: 'a key deleted', same: false, apply: (r) => delete r.slots[2].model },
  { name: 'the last key deleted', same: false, apply: (r) => delete r.slots[2].stale },
  {
    name: 'keys reordered',
    same: false,
    apply: (r) => {
      const { model } = r.slots[1];
      delete r.slots[1].model;
      r.slots[1].model = model;
    },
  },
  {
    name: 'the last own key deleted and inherited with its value',
    same: false,
    apply: (r) => {
      delete r.slots[0].stale;
      Object.setPrototypeOf(r.slots[0], INHERITS);
    },
  },
  { name: 'an enumerable key inherited after the own ones', same: true, apply: (r) => Object.setPrototypeOf(r.slots[1], { inherited: 1 }) },
  { name: 'a key made non-enumerable', same: false, apply: (r) => Object.defineProperty(r.slots[5], 'id', { enumerable: false }) },
  { name: 'a value behind a getter that gives it', same: true, apply: (r) => Object.defineProperty(r.slots[3], 'model', { get: () => 'b', enumerable: true }) },
  { name: 'a record swapped for an equal copy', same: true, apply: (r) => (r.slots[3] = { ...r.slots[3], gpus: [...(r.slots[3].gpus as number[])] }) },
  { name: 'a record swapped for an array', same: false, apply: (r) => (r.slots[3] = Object.assign([], r.slots[3])) },
  // A copy passes typed arrays and ArrayBuffers through as they are: one holding a record's fields is not that record.
  { name: 'a record swapped for an empty typed array with its fields', same: false, apply: (r) => (r.slots[3] = Object.assign(new Uint8Array(0), r.slots[3]) as unknown as Slot) },
  { name: 'a record swapped for an ArrayBuffer with its fields', same: false, apply: (r) => (r.slots[3] = Object.assign(new ArrayBuffer(0), r.slots[3]) as unknown as Slot) },
  { name: 'a record swapped for null', same: false, apply: (r) => (r.slots[3] = null as unknown as Slot) },
  { name: 'a record removed', same: false, apply: (r) => r.slots.pop() },
  // The request itself: a record with a list of records in it (a mixed shape, see shapeOf).
  { name: 'a top-level number', same: false, apply: (r) => ((r as { memory: number }).memory = 1) },
  { name: 'a top-level number set to what it was', same: true, apply: (r) => ((r as { memory: number }).memory = 2 ** 34) },
  { name: 'a top-level key added', same: false, apply: (r) => ((r as Record<string, unknown>).extra = [1]) },
  { name: 'a top-level key deleted', same: false, apply: (r) => delete (r as Partial<{ memory: number }>).memory },
  {
    name: 'top-level keys reordered',
    same: false,
    apply: (r) => {
      const { slots } = r;
      delete (r as Partial<typeof r>).slots;
      r.slots = slots;
    },
  },
  { name: 'the list swapped for an equal copy', same: true, apply: (r) => (r.slots = r.slots.map((s) => ({ ...s, gpus: [...(s.gpus as number[])] }))) },
  { name: 'the list swapped for a record with its items', same: false, apply: (r) => (r.slots = { ...r.slots } as unknown as Slot[]) },
  { name: 'the list swapped for a list of numbers', same: false, apply: (r) => (r.slots = [6, 7] as unknown as Slot[]) },
];

/** Reads `r` with reuse (twice: the tape is built on the first compare), edits it, and checks the third read. */
function check(edit: Edit): void {
  const r = request();
  const first = readInput('request', r, false, true);
  expect(readInput('request', r, false, true)).toBe(first);
  edit.apply(r);
  const again = readInput('request', r, false, true);
  expect(canon(again)).toBe(canon(readInput('request', r, false, false)));
  expect(again === first, edit.name).toBe(edit.same);
  // Read once more: a copy made after the edit comes back while nothing else changes.
  expect(readInput('request', r, false, true)).toBe(again);
}

describe.each([
  ['compiled record compares', true],
  ['the tape loop (compiled compares off)', false],
])('readInput reuse with %s', (_label, compile) => {
  afterAll(() => {
    _recordShapes(null);
  });

  it.each(EDITS.map((e) => [e.name, e] as const))('in-place edit: %s', (_name, edit) => {
    _recordShapes(compile);
    check(edit);
  });

  it('compiles one shape per kind of record, and only when compiling is on', () => {
    _recordShapes(compile);
    const before = _recordShapes();
    // Keys of this half's own (the other half must not have compiled them already).
    const k = (name: string): string => `${name}-${compile ? 'on' : 'off'}`;
    const kinds = { [k('list')]: [{ [k('a')]: 1, [k('b')]: 'x' }, { [k('a')]: 2, [k('b')]: 'y' }], [k('other')]: [{ [k('c')]: [1, 2] }] };
    readInput('request', kinds, false, true);
    readInput('request', kinds, false, true);
    // The two kinds of list item, and the record holding the lists (a mixed shape).
    expect(_recordShapes() - before).toBe(compile ? 3 : 0);
  });

  it('keys that need escaping compile to the same compare', () => {
    _recordShapes(compile);
    const keys = ['a"b', 'back\\slash', 'line\u2028sep', "'); throw new Error('x'); ('", '}; return 0; {', '\ud800', ''];
    const record = (v: number): Record<string, unknown> => Object.fromEntries(keys.map((k, j) => [k, v + j]));
    const value = { list: [record(0), record(10)] };
    const first = readInput('request', value, false, true);
    expect(readInput('request', value, false, true)).toBe(first);
    value.list[1]['\ud800'] = -1;
    const again = readInput('request', value, false, true) as typeof value;
    expect(again).not.toBe(first);
    expect(again.list[1]['\ud800']).toBe(-1);
  });

  it('-0 read before and 0 now (a value, a list item) are a change; -0 again is not', () => {
    _recordShapes(compile);
    const value = { list: [{ a: -0, b: [-0, 1] }, { a: 1, b: [2] }] };
    const first = readInput('request', value, false, true);
    expect(readInput('request', value, false, true)).toBe(first);
    value.list[0].a = 0;
    const second = readInput('request', value, false, true) as typeof value;
    expect(second).not.toBe(first);
    expect(Object.is(second.list[0].a, 0)).toBe(true);
    value.list[0].b[0] = 0;
    const third = readInput('request', value, false, true) as typeof value;
    expect(third).not.toBe(second);
    expect(Object.is(third.list[0].b[0], 0)).toBe(true);
    value.list[0].a = -0;
    value.list[0].b[0] = -0;
    const fourth = readInput('request', value, false, true) as typeof value;
    expect(Object.is(fourth.list[0].a, -0) && Object.is(fourth.list[0].b[0], -0)).toBe(true);
    expect(readInput('request', value, false, true)).toBe(fourth);
  });

  it('records holding NaN are read again as copies would be (NaN equals itself here)', () => {
    _recordShapes(compile);
    const value = { list: [{ a: NaN, b: [1, NaN] }, { a: 1, b: [2] }] };
    const first = readInput('request', value, false, true);
    expect(readInput('request', value, false, true)).toBe(first);
    value.list[0].a = 0;
    expect(readInput('request', value, false, true)).not.toBe(first);
  });

  it('reads each field once per compare, in key order, keys before values', () => {
    _recordShapes(compile);
    const reads: string[] = [];
    const record = (tag: string): Record<string, unknown> => ({
      get a() {
        reads.push(`${tag}.a`);
        return 1;
      },
      get b() {
        reads.push(`${tag}.b`);
        return [2, 3];
      },
    });
    const value = { list: [record('x'), record('y')] };
    const first = readInput('request', value, false, true);
    expect(reads).toEqual(['x.a', 'x.b', 'y.a', 'y.b']);
    reads.length = 0;
    expect(readInput('request', value, false, true)).toBe(first);
    expect(reads).toEqual(['x.a', 'x.b', 'y.a', 'y.b']);
  });
});

describe('readInput where the runtime forbids compiling code', () => {
  it('compiles nothing, and still hands back the earlier copy exactly while nothing changed (the built engine in node --disallow-code-generation-from-strings)', () => {
    const validate = pathToFileURL(join(ROOT, 'dist', 'src', 'validate.js')).href;
    const script = `
      const { _recordShapes, readInput } = await import(${JSON.stringify(validate)});
      const r = { slots: [{ id: 'a', gpus: [0, 1], stale: true }, { id: 'b', gpus: [2], stale: false }] };
      const first = readInput('request', r, false, true);
      const same = readInput('request', r, false, true) === first;
      r.slots[1].gpus[0] = 3;
      const again = readInput('request', r, false, true);
      console.log(JSON.stringify({ same, changed: again !== first, gpus: again.slots[1].gpus, shapes: _recordShapes() }));
    `;
    const run = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ same: true, changed: true, gpus: [3], shapes: 0 });
  });
});
