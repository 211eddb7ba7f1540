// readInput's reuse path (the same object read again: its earlier copy back after one compare) against
// the compare it replaced (Object.keys and keyed reads at every level): on random data and random
// in-place edits, the earlier copy comes back exactly when the old compare said "same", and whatever
// comes back reads as a fresh copy would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSnapshot, readInput } from '../src/validate.js';
import { AllocationError } from '../src/errors.js';
import { LIMITS } from '../src/limits.js';
import { topologyFor } from '../src/topology.js';
import { deepFreeze } from '../bench/inputs.js';
import { canon } from './fuzz/canon.js';

/** The compare readInput used before its tape (commit cf3b161), as the oracle. */
function oldSameData(value: unknown, copy: unknown, depth: number): boolean {
  if (copy === null || typeof copy !== 'object') return Object.is(value, copy);
  if (value === null || typeof value !== 'object' || depth >= LIMITS.maxDepth) return false;
  if (ArrayBuffer.isView(copy) || copy instanceof ArrayBuffer) return value === copy;
  if (Array.isArray(copy)) {
    if (!Array.isArray(value) || value.length !== copy.length) return false;
    for (let k = 0; k < copy.length; k++) if (!oldSameData(value[k], copy[k], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
  const keys = Object.keys(value);
  const copyKeys = Object.keys(copy);
  if (keys.length !== copyKeys.length) return false;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (key !== copyKeys[k] || !oldSameData((value as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

const SHARED_VIEW = new Int32Array([1, 2, 3]);
/** An ArrayBuffer with own enumerable keys (passes through a copy as it is, never as a record). */
const KEYED_BUFFER = Object.assign(new ArrayBuffer(8), { 0: 1, 1: 2 });
const INHERITED = { b: 1, pcie: 'PIX' }; // enumerable fields an object may inherit

const primitive = fc.oneof(
  fc.constantFrom<unknown>(0, -0, NaN, 1, -1, 2.5, Infinity, '', 'a', 'b', 'PIX', 'SYS', true, false, null, undefined, 10n, SHARED_VIEW, KEYED_BUFFER),
  fc.integer({ min: -3, max: 20 }),
);
const key = fc.constantFrom('a', 'b', 'pcie', 'nvlink', 'gpus', 'links', '0', '1', '__proto__', 'x');

/** Random plain-ish data: plain objects (mostly), arrays, null-prototype objects, objects inheriting fields. */
const data = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitive,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).chain((entries) =>
      fc.constantFrom('plain', 'plain', 'plain', 'null', 'inherit', 'frozen', 'shallow').map((kind) => {
        const o: Record<string, unknown> = kind === 'null' ? Object.create(null) : kind === 'inherit' ? Object.create(INHERITED) : {};
        for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        // Frozen all the way down, as immutable-state callers hold data (read once, then by identity);
        // or frozen itself only, so that edits still reach what lies below it.
        return kind === 'frozen' ? deepFreeze(o) : kind === 'shallow' ? Object.freeze(o) : o;
      }),
    ),
  ),
})).value;

type Edit = { path: number[]; op: 'set' | 'delete' | 'add' | 'push' | 'proto' | 'none'; key: string; value: unknown };
const edit: fc.Arbitrary<Edit> = fc.record({
  path: fc.array(fc.nat(), { maxLength: 4 }),
  op: fc.constantFrom('set', 'delete', 'add', 'push', 'proto', 'none'),
  key: key,
  value: fc.oneof(primitive, data),
});

/** A typed array or an ArrayBuffer: shared constants of the generator (SHARED_VIEW, KEYED_BUFFER) that edits leave alone. */
function isBuffer(v: object): boolean {
  return ArrayBuffer.isView(v) || v instanceof ArrayBuffer;
}

/** Applies `e` in place somewhere inside `root` (objects picked along `path` by child index; frozen objects and buffers are left as they are). */
function applyEdit(root: unknown, e: Edit): void {
  let target = root;
  for (const step of e.path) {
    if (target === null || typeof target !== 'object' || isBuffer(target)) break;
    const children = Object.keys(target).map((k) => (target as Record<string, unknown>)[k]).filter((c) => c !== null && typeof c === 'object' && !isBuffer(c));
    if (children.length === 0) break;
    target = children[step % children.length];
  }
  if (target === null || typeof target !== 'object' || isBuffer(target) || Object.isFrozen(target)) return;
  const t = target as Record<string, unknown>;
  const keys = Object.keys(t);
  const existing = keys.length > 0 ? keys[e.key.length % keys.length] : e.key;
  switch (e.op) {
    case 'set':
      Object.defineProperty(t, existing, { value: e.value, enumerable: true, writable: true, configurable: true });
      break;
    case 'delete':
      if (Array.isArray(t)) t.pop();
      else delete t[existing];
      break;
    case 'add':
      if (!Array.isArray(t)) Object.defineProperty(t, e.key, { value: e.value, enumerable: true, writable: true, configurable: true });
      break;
    case 'push':
      if (Array.isArray(t)) t.push(e.value);
      break;
    case 'proto':
      // A deleted own field that the new prototype supplies, enumerable: for-in would list it.
      if (!Array.isArray(t)) {
        delete t.b;
        Object.setPrototypeOf(t, INHERITED);
      }
      break;
    case 'none':
      break;
  }
}

/** What readInput gives (a copy or an error message). */
function outcome(fn: () => unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    if (!(error instanceof AllocationError)) throw error;
    return { ok: false, message: error.message };
  }
}

describe('readInput reuse: the tape compare', () => {
  it('hands back the earlier copy exactly when the old compare says unchanged, and always reads as a fresh copy', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(data, { maxLength: 4 }), fc.dictionary(key, data, { maxKeys: 5 })), fc.array(edit, { maxLength: 3 }), (value, edits) => {
        const first = outcome(() => readInput('request', value, false, true));
        const fresh0 = outcome(() => readInput('request', value, false, false));
        expect(first.ok).toBe(fresh0.ok);
        if (!first.ok || !fresh0.ok) return;
        expect(canon(first.value)).toBe(canon(fresh0.value));
        for (const e of edits) applyEdit(value, e);
        const expectSame = oldSameData(value, first.value, 0);
        const again = outcome(() => readInput('request', value, false, true));
        const fresh = outcome(() => readInput('request', value, false, false));
        expect(again.ok).toBe(fresh.ok);
        if (!again.ok || !fresh.ok) {
          if (!again.ok && !fresh.ok) expect(again.message).toBe(fresh.message);
          return;
        }
        // Only copies that hold objects are kept for reuse (a flat one costs no more to copy than to compare).
        expect(again.value === first.value).toBe(expectSame && isSnapshot(first.value));
        expect(canon(again.value)).toBe(canon(fresh.value));
      }),
      { numRuns: 600 },
    );
  });

  it('an enumerable field inherited from Object.prototype is not taken for an own one', () => {
    const value = { links: [{ a: 0, b: 1 }, { a: 1, b: 2 }], gpus: 3 };
    const first = readInput('topology', value, true, true);
    expect(readInput('topology', value, true, true)).toBe(first);
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true, writable: true });
    try {
      expect(readInput('topology', value, true, true)).toBe(first);
      delete (value.links[1] as Record<string, unknown>).b;
      const second = readInput('topology', value, true, true) as typeof value;
      expect(second).not.toBe(first);
      expect(Object.keys(second.links[1])).toEqual(['a']);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });

  it('an object never matches an array, a typed array or an ArrayBuffer with the same keys', () => {
    const holder: Record<string, unknown> = { list: [{ 0: 1, 1: 2 }, {}], one: { 0: 1, 1: 2 }, none: {} };
    const first = readInput('request', holder, false, true) as typeof holder;
    expect(readInput('request', holder, false, true)).toBe(first);
    const swaps: Array<[string, (h: Record<string, unknown>) => void]> = [
      ['typed array in an array', (h) => ((h.list as unknown[])[0] = new Int32Array([1, 2]))],
      ['array in an array', (h) => ((h.list as unknown[])[0] = [1, 2])],
      ['ArrayBuffer for {} in an array', (h) => ((h.list as unknown[])[1] = new ArrayBuffer(8))],
      ['typed array', (h) => (h.one = new Int32Array([1, 2]))],
      ['array', (h) => (h.one = [1, 2])],
      ['ArrayBuffer for {}', (h) => (h.none = new ArrayBuffer(8))],
      // An ArrayBuffer can have own enumerable keys too: still never a record.
      ['ArrayBuffer with the same keys', (h) => (h.one = Object.assign(new ArrayBuffer(8), { 0: 1, 1: 2 }))],
      ['ArrayBuffer with the same keys in an array', (h) => ((h.list as unknown[])[0] = Object.assign(new ArrayBuffer(8), { 0: 1, 1: 2 }))],
    ];
    for (const [what, swap] of swaps) {
      const value = { list: [{ 0: 1, 1: 2 }, {}], one: { 0: 1, 1: 2 }, none: {} } as Record<string, unknown>;
      const before = readInput('request', value, false, true);
      swap(value);
      const after = readInput('request', value, false, true);
      expect(after, what).not.toBe(before);
      expect(canon(after), what).toBe(canon(readInput('request', value, false, false)));
    }
  });

  it('an own field deleted and inherited instead is a change', () => {
    const link: Record<string, unknown> = { a: 0, b: 1, pcie: 'PIX' };
    const value = { gpus: 2, links: [link] };
    const first = readInput('topology', value, true, true);
    delete link.pcie;
    Object.setPrototypeOf(link, { pcie: 'PIX' });
    const second = readInput('topology', value, true, true) as { links: Array<Record<string, unknown>> };
    expect(second).not.toBe(first);
    expect(Object.keys(second.links[0])).toEqual(['a', 'b']);
  });

  it('reads each getter once per compare, and a getter that throws on the compare names the reused object', () => {
    let reads = 0;
    let boom = false;
    const link = { a: 0, get b() { reads++; if (boom) throw new Error('boom'); return 1; } };
    const value = { gpus: 2, links: [link] };
    readInput('topology', value, true, true);
    expect(reads).toBe(1);
    const copy = readInput('topology', value, true, true);
    expect(reads).toBe(2);
    expect(readInput('topology', value, true, true)).toBe(copy);
    boom = true;
    expect(() => readInput('topology', value, true, true)).toThrow(/^topology: reading the value threw \(Error: boom\)/);
  });

  it('records holding lists of primitives (slots with their GPUs): every in-place edit of a list is seen, each item read once', () => {
    const slots = (): Array<Record<string, unknown>> => [
      { id: 'a', gpus: [0, 1], memoryPerGpu: 5 },
      { id: 'b', gpus: [2], memoryPerGpu: 7, stale: true },
    ];
    type Slots = ReturnType<typeof slots>;
    const edits: Array<[string, (s: Slots) => void]> = [
      ['an item set', (s) => ((s[0].gpus as unknown[])[1] = 3)],
      ['an item pushed', (s) => (s[1].gpus as unknown[]).push(3)],
      ['an item popped', (s) => (s[0].gpus as unknown[]).pop()],
      ['0 made -0', (s) => ((s[0].gpus as unknown[])[0] = -0)],
      ['an item made NaN', (s) => ((s[1].gpus as unknown[])[0] = NaN)],
      ['an item made an object', (s) => ((s[1].gpus as unknown[])[0] = { 0: 2 })],
      ['an item made a list', (s) => ((s[1].gpus as unknown[])[0] = [2])],
      ['the list made an object', (s) => (s[1].gpus = { 0: 2, length: 1 })],
      ['the list made a typed array', (s) => (s[1].gpus = new Int32Array([2]))],
      ['the list made a string', (s) => (s[1].gpus = '2')],
      ['a hole', (s) => delete (s[0].gpus as unknown[])[1]],
    ];
    for (const [what, edit] of edits) {
      const value = { slots: slots() };
      const first = readInput('request', value, false, true);
      expect(readInput('request', value, false, true), what).toBe(first);
      edit(value.slots);
      const after = readInput('request', value, false, true);
      expect(after, what).not.toBe(first);
      expect(canon(after), what).toBe(canon(readInput('request', value, false, false)));
      // The edited value is the one kept for the next compare.
      expect(readInput('request', value, false, true), what).toBe(after);
    }
    // An equal list in a new array is no change.
    const value = { slots: slots() };
    const first = readInput('request', value, false, true);
    value.slots[0].gpus = [0, 1];
    expect(readInput('request', value, false, true)).toBe(first);
    // Getters on list items run once per compare.
    let reads = 0;
    const gpus = [0, 1];
    Object.defineProperty(gpus, 1, { get: () => (reads++, 1), enumerable: true });
    const withGetter = { slots: [{ id: 'a', gpus, memoryPerGpu: 5 }] };
    const copy = readInput('request', withGetter, false, true);
    expect(reads).toBe(1);
    expect(readInput('request', withGetter, false, true)).toBe(copy);
    expect(reads).toBe(2);
  });

  it('a request copied again for one changed field keeps its unchanged parts, empty lists included, and reads them once each', () => {
    let linkReads = 0;
    const link = { a: 0, b: 1 };
    Object.defineProperty(link, 'nvlink', { get: () => (linkReads++, 2), enumerable: true });
    const request = { memory: 1, gpus: [{ index: 0 }, { index: 1 }], slots: [] as unknown[], options: {}, topology: { gpus: 2, links: [link] } };
    const first = readInput('request', request, false, true) as typeof request;
    expect(isSnapshot(first.slots) && isSnapshot(first.options)).toBe(true);
    for (let k = 2; k < 6; k++) {
      request.memory = k;
      const reads = linkReads;
      const again = readInput('request', request, false, true) as typeof request;
      expect(again).not.toBe(first);
      expect(again.memory).toBe(k);
      // The same copies of every unchanged part: the identity caches behind them (validated
      // topology, planPlacement's node) keep hitting while another field changes on every call.
      expect(again.gpus).toBe(first.gpus);
      expect(again.slots).toBe(first.slots);
      expect(again.options).toBe(first.options);
      expect(again.topology).toBe(first.topology);
      // One compare of the link per call (the root's compare refers to the topology's record, which
      // the copy then takes as it is), not one per level.
      expect(linkReads - reads).toBe(1);
    }
  });

  it('freezes its copies and marks them (isSnapshot); topologyFor finds a marked copy by identity', () => {
    const value = { gpus: 3, links: [{ a: 0, b: 1, nvlink: 2 }, { a: 1, b: 2, pcie: 'PIX' }] };
    const request = { topology: value, size: 1 };
    const copy = readInput('request', request, false, true) as { topology: typeof value };
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.topology) && Object.isFrozen(copy.topology.links) && Object.isFrozen(copy.topology.links[0])).toBe(true);
    expect(isSnapshot(copy)).toBe(true);
    expect(isSnapshot(copy.topology)).toBe(true);
    expect(isSnapshot(value)).toBe(false);
    expect(isSnapshot(readInput('request', request, false, false))).toBe(false);
    const entry = topologyFor(copy.topology);
    expect(topologyFor(copy.topology)).toBe(entry);
    expect(topologyFor(value)).toBe(entry);
    value.links[0].nvlink = 4;
    const changed = readInput('request', request, false, true) as { topology: typeof value };
    expect(changed).not.toBe(copy);
    expect(topologyFor(changed.topology)).not.toBe(entry);
    expect(topologyFor(changed.topology).matrix[1]).toBe(400);
  });
});
