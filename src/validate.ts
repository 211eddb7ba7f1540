// Input checks shared by every capability. Each failure names the field and shows the value.
import { AllocationError, type AllocationErrorCode } from './errors.js';
import { LIMITS } from './limits.js';

/** Renders any value for an error message: bounded length, safe on cycles, symbols and lone surrogates. */
export function describeValue(value: unknown, max = 80): string {
  let text: string;
  try {
    if (typeof value === 'string') text = JSON.stringify(value);
    else if (typeof value === 'number') text = Object.is(value, -0) ? '-0' : String(value);
    else if (typeof value === 'bigint') text = `${value}n`;
    else if (typeof value === 'symbol' || typeof value === 'function') text = typeof value;
    else if (value === undefined) text = 'undefined';
    else if (Array.isArray(value)) text = `an array of ${value.length}`;
    else if (value === null) text = 'null';
    else {
      const seen = new WeakSet<object>();
      text = JSON.stringify(value, (_k, v: unknown) => {
        if (typeof v === 'bigint') return `${v}n`;
        if (v !== null && typeof v === 'object') {
          if (seen.has(v)) return '[cycle]';
          seen.add(v);
        }
        return v;
      }) ?? String(value);
    }
  } catch {
    try {
      text = Object.prototype.toString.call(value);
    } catch {
      text = 'an unreadable object'; // a proxy whose traps throw
    }
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Throws AllocationError(code) saying `field: expected …, got …`. */
export function fail(code: AllocationErrorCode, field: string, expected: string, value: unknown, details?: Record<string, unknown>): never {
  throw new AllocationError(code, `${field}: expected ${expected}, got ${describeValue(value)}`, { field, details });
}

/** A plain object (not null, not an array). */
export function requireObject(field: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('INVALID_ARGUMENT', field, 'an object', value);
  return value as Record<string, unknown>;
}

/** An array of at most `max` items. */
export function requireArray(field: string, value: unknown, max: number): unknown[] {
  if (!Array.isArray(value)) fail('INVALID_ARGUMENT', field, 'an array', value);
  if (value.length > max) fail('LIMIT_EXCEEDED', field, `at most ${max} items`, value);
  return value;
}

/** An integer in [min, max]; rejects NaN, ±Infinity, fractions, -0 only when min > -0 matters (it is treated as 0). */
export function requireInteger(field: string, value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER, code: AllocationErrorCode = 'INVALID_ARGUMENT'): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(code, field, min >= 0 ? 'a non-negative integer' : 'an integer', value);
  if (value < min || value > max) fail(value > max && max >= 1e6 ? 'LIMIT_EXCEEDED' : code, field, `an integer in [${min}, ${max}]`, value);
  return value === 0 ? 0 : value;
}

/** A string of at most `maxLength` code units. */
export function requireString(field: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string') fail('INVALID_ARGUMENT', field, 'a string', value);
  if (value.length > maxLength) fail('LIMIT_EXCEEDED', field, `a string of at most ${maxLength} characters`, value);
  return value;
}

/** One of a fixed set of names; unknown names get `code` (UNKNOWN_POLICY for policies). */
export function requireOneOf<T extends string>(field: string, value: unknown, options: readonly T[], code: AllocationErrorCode = 'INVALID_ARGUMENT'): T {
  if (typeof value !== 'string' || !(options as readonly string[]).includes(value)) fail(code, field, `one of ${options.map((o) => `'${o}'`).join(', ')}`, value);
  return value as T;
}

/** A boolean. */
export function requireBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail('INVALID_ARGUMENT', field, 'a boolean', value);
  return value;
}

/** Own enumerable string keys of a record, safe for keys such as `__proto__` (never walks the prototype). */
export function ownKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value);
}

/** Reads an own property only (never an inherited one such as `constructor`). */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

/** A dictionary with no prototype, so IDs such as `__proto__` are ordinary keys. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Sets a key on a result object as an own, enumerable data property (safe for `__proto__`). */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy made by readInput with `reuse`, and its tape: the copy flattened in reading order, built on
 * the first comparison (see tapeOf). Every object of such a copy is frozen: the engine never changes
 * a copy it may hand out again, and topologyFor may trust one by identity (isSnapshot).
 */
type Reused = { copy: object; tape: unknown[] | null };

/** Copies made by readInput with `reuse`, by the caller's object (see sameData). */
const reused = new WeakMap<object, Reused>();
/** The same records by their copy: a tape refers to a child's record instead of repeating its data (SUB_MARK). */
const reusedOf = new WeakMap<object, Reused>();

/** Frozen copies made by readInput with `reuse` (each with everything below it). */
const snapshots = new WeakSet<object>();

/**
 * True for a copy readInput made with `reuse`: it and everything reachable from it are frozen
 * (typed arrays and ArrayBuffers excepted, which pass through uncopied), so equal identity means equal data.
 */
export function isSnapshot(value: unknown): boolean {
  return value !== null && typeof value === 'object' && snapshots.has(value);
}

/**
 * Caller objects read with `reuse` that are frozen all the way down with plain data properties (see
 * frozenData): their data cannot change, so the copy made of one stands without comparing it again.
 * frozenSource maps such a copy back to the caller's object, and a snapshot the caller passed in (taken
 * as it is) to itself: a tape compares either by identity, without reading it.
 */
const deepFrozen = new WeakSet<object>();
const frozenSource = new WeakMap<object, object>();

/**
 * True when `v` is frozen, every own enumerable property (every item of an array) is a data property
 * (no getter could answer differently next time), and every object among the values is itself
 * deeply frozen data or an engine snapshot. A proxy answers these for its target (the invariants of
 * frozen targets hold); a trap that throws makes the answer false.
 */
function frozenData(v: object): boolean {
  try {
    if (!Object.isFrozen(v)) return false;
    const keys = Array.isArray(v) ? null : Object.keys(v);
    const count = keys === null ? (v as unknown[]).length : keys.length;
    for (let k = 0; k < count; k++) {
      const d = Object.getOwnPropertyDescriptor(v, keys === null ? k : keys[k]);
      if (d === undefined || !('value' in d)) return false;
      const x: unknown = d.value;
      if (x !== null && typeof x === 'object' && !deepFrozen.has(x) && !snapshots.has(x)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Freezes plain data the engine built (objects, arrays and primitives only, no cycles) and everything
 * below it, and makes it a snapshot: readInput with `reuse` takes it as it is, by identity, wherever it
 * appears in a request, instead of reading it again on every call (validateTopology's result is one).
 */
export function makeSnapshot<T extends object>(value: T): T {
  const freeze = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
    for (const key of Object.keys(v)) freeze((v as Record<string, unknown>)[key]);
    Object.freeze(v);
  };
  freeze(value);
  snapshots.add(value);
  return value;
}

// Tape marks: the only objects a tape holds, apart from the value after OPAQUE_MARK.
const ARRAY_MARK = Object.freeze({ mark: 'array' });
/** An array whose items are all primitives (say, a slot's GPU indices): compared in one flat loop. */
const PRIMS_MARK = Object.freeze({ mark: 'prims' });
const OBJECT_MARK = Object.freeze({ mark: 'object' });
const OPAQUE_MARK = Object.freeze({ mark: 'opaque' });
/**
 * A flat record compared by a function compiled for its keys (see Shape), followed by that shape,
 * then its values in key order: a primitive as itself, a list of primitives as its length and items.
 */
const SHAPE_MARK = Object.freeze({ mark: 'shape' });
/** A list of flat records of one shape: its length, the shape, then each record's values (as after SHAPE_MARK). */
const SHAPES_MARK = Object.freeze({ mark: 'shapes' });
/**
 * A child copy with a record of its own (reusedOf), followed by that record: compared through the
 * child's own tape (sameData), so a parent's tape holds only what sits between it and such children,
 * and a parent copied again (one field changed) rebuilds a short tape, not the whole tree's.
 */
const SUB_MARK = Object.freeze({ mark: 'sub' });

/**
 * The compare of one kind of record, compiled: its keys in order, and for each whether the value is
 * a primitive, a list of primitives, or (a mixed record, such as a request) anything else, which
 * sameAt compares. `same(o, tape, pos, depth)` is sameAt's object loop for such a record whose values
 * start at `tape[pos]`: the position after them, or -1 at the first difference.
 * It lists the keys with for-in (own enumerable string keys in order, up to the first inherited
 * one), then reads each value once, in key order, as a copy does (the keys first, then the values).
 * A compiled body reads each field by its name, so V8 gives every read a cache of its own: 20 slots
 * read again take 0.67 µs against 0.97 in a flat-record loop and 1.4 in sameAt's object loop, which
 * a record without a shape goes through. Values compare as SameValue: `!==`, then for a number
 * that is 0 the sign (1 / x), a check that reads no compare feedback, so a zero in one list does not
 * make every other value's `!==` generic (a DGX-2 request read again after an 8-GPU one with a slot on
 * GPU 0 took 0.1 µs longer when zeros were marks in the tape); a record holding NaN has no shape
 * (see shapeOf).
 */
type Shape = {
  /** The record against its values from `tape[pos]`; `depth`: the nesting of its values (for kind 'o'). */
  same: (o: object, tape: unknown[], pos: number, depth: number) => number;
  /**
   * sameAt's SHAPES_MARK loop, compiled with the record compare inlined: the records `list[0..length-1]`
   * (each a record-like object, see isRecordLike) against their values from `tape[pos]`. One call per
   * list instead of one per record through a call site that sees every shape: the 16 GPUs and 20
   * slots of a DGX-2 request read again in 0.95 µs instead of 1.11.
   */
  list: (list: readonly unknown[], tape: unknown[], pos: number, length: number) => number;
  keys: readonly string[];
  /** Per key: 'p' a primitive, 'l' a list of primitives, 'o' anything else (its own tape, compared by sameAt). */
  kinds: string;
  lists: boolean;
};

/** Compiled shapes by signature (at most MAX_SHAPES; records of further kinds keep the tape loop). */
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 256;
/** Most keys of a record compiled into a shape. */
const MAX_SHAPE_KEYS = 32;
/** Whether this runtime compiles code from strings (a Content-Security-Policy without 'unsafe-eval' forbids it); undefined until asked. */
let canCompile: boolean | undefined;
/** The last shape found, with its keys and kinds: the next record of a list almost always has the same. */
let lastShape: { keys: string[]; kinds: string; shape: Shape } | null = null;

/**
 * The shape of a record copy with these own `keys` (at least one, at most MAX_SHAPE_KEYS), or null
 * where the tape loop stays: a key `__proto__` (a read by that name would not find an own field), a
 * NaN value or item (`!==` never matches it), too many kinds seen, or a runtime that does not
 * compile code from strings. Keys enter the compiled text only as JSON string literals. A value
 * other than a primitive or a list of primitives (see isPrimsCopy) is kind 'o' when `mixed` (a
 * request holding lists of records: its own fields compiled, each such value compared by sameAt),
 * else the record has no shape.
 */
function shapeOf(copy: Record<string, unknown>, keys: string[], mixed = false): Shape | null {
  const n = keys.length;
  if (n === 0 || n > MAX_SHAPE_KEYS || canCompile === false) return null;
  let kinds = '';
  for (let k = 0; k < n; k++) {
    if (keys[k] === '__proto__') return null;
    const v = copy[keys[k]];
    if (isPrimitive(v)) {
      if (v !== v) return null;
      kinds += 'p';
    } else if (isPrimsCopy(v)) {
      const items = v as unknown[];
      for (let q = 0; q < items.length; q++) if (items[q] !== items[q]) return null;
      kinds += 'l';
    } else if (mixed) kinds += 'o';
    else return null;
  }
  const last = lastShape;
  if (last !== null && last.kinds === kinds && last.keys.length === n) {
    let k = 0;
    while (k < n && last.keys[k] === keys[k]) k++;
    if (k === n) return last.shape;
  }
  const signature = kinds + JSON.stringify(keys);
  let shape = shapes.get(signature);
  if (shape === undefined) {
    if (shapes.size >= MAX_SHAPES || signature.length > 4096) return null;
    if (canCompile === undefined) {
      try {
        canCompile = new Function('return 1')() === 1;
      } catch {
        canCompile = false;
      }
    }
    if (!canCompile) return null;
    shape = compileShape(keys.slice(), kinds);
    shapes.set(signature, shape);
  }
  lastShape = { keys: keys.slice(), kinds, shape };
  return shape;
}

/** Compiles the shape of records with `keys` whose values are, per `kinds`, primitives ('p'), lists of them ('l') or anything else ('o'). */
function compileShape(keys: string[], kinds: string): Shape {
  const n = keys.length;
  // for-in lists own keys first: when the last key matched is own, so are those before it, and the
  // first key after it is either another own one (a change) or the first inherited one (the end).
  // One case per position with the key as a literal: 2-4% faster than reading a key list.
  let cases = '';
  for (let k = 0; k < n; k++) cases += `    case ${k}: if (key !== ${JSON.stringify(keys[k])}${k === n - 1 ? ' || !h.call(o, key)' : ''}) return -1; break;\n`;
  let body = `let i = 0;
keys: for (const key in o) {
  switch (i++) {
${cases}    default: if (!h.call(o, key)) break keys; return -1;
  }
}
if (i < ${n}) return -1;
let x, v, c, y, w;
`;
  for (let k = 0; k < n; k++) {
    const read = `o[${JSON.stringify(keys[k])}]`;
    if (kinds[k] === 'p') body += `x = ${read}; v = t[p++];
if (x !== v || (typeof x === 'number' && x === 0 && 1 / x !== 1 / v)) return -1;
`;
    else if (kinds[k] === 'o') body += `x = ${read};
if ((p = S(x, t, p, d)) < 0) return -1;
`;
    else body += `x = ${read}; c = t[p++];
if (!Array.isArray(x) || x.length !== c) return -1;
for (let q = 0; q < c; q++, p++) { y = x[q]; w = t[p]; if (y !== w || (typeof y === 'number' && y === 0 && 1 / y !== 1 / w)) return -1; }
`;
  }
  // The list loop checks each item as sameAt does (isRecordLike, inlined), then runs the same body.
  const source = `return [function sameShape(o, t, p, d) {
${body}return p;
}, function sameShapes(a, t, p, length) {
for (let j = 0; j < length; j++) {
const o = a[j];
if (o === null || typeof o !== 'object' || Array.isArray(o) || ArrayBuffer.isView(o) || o instanceof ArrayBuffer) return -1;
${body}}
return p;
}];`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- keys enter only as JSON string literals
  const make = new Function('h', 'S', source) as (h: typeof hasOwn, S: typeof sameAt) => [Shape['same'], Shape['list']];
  const [same, list] = make(hasOwn, sameAt);
  return { same, list, keys, kinds, lists: kinds.includes('l') };
}

/**
 * Test hook: `compile` false turns compiled record compares off (new tapes keep the tape loop), true
 * turns them on, null asks the runtime again; returns how many shapes are compiled.
 */
export function _recordShapes(compile?: boolean | null): number {
  if (compile !== undefined) {
    canCompile = compile ?? undefined;
    lastShape = null;
  }
  return shapes.size;
}

/** A primitive (what a tape holds as itself). */
function isPrimitive(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/** A copied array that tapeOf writes as PRIMS_MARK (every item a primitive, not compared by identity). */
function isPrimsCopy(v: unknown): boolean {
  return Array.isArray(v) && !frozenSource.has(v) && v.every(isPrimitive);
}

/** The shape of a copied flat record (see shapeOf, which judges the values), or null (not such a record, or no shape for it). */
function recordShape(copy: unknown): Shape | null {
  if (copy === null || typeof copy !== 'object' || !isRecordLike(copy) || frozenSource.has(copy)) return null;
  return shapeOf(copy as Record<string, unknown>, Object.keys(copy));
}

/** The one shape of every item of a copied list of flat records (see SHAPES_MARK), or null. */
function listShape(items: unknown[]): Shape | null {
  if (items.length === 0) return null;
  const shape = recordShape(items[0]);
  if (shape === null) return null;
  for (let k = 1; k < items.length; k++) if (recordShape(items[k]) !== shape) return null;
  return shape;
}

/** A shaped record's values in key order (see SHAPE_MARK). */
function shapeValues(record: Record<string, unknown>, shape: Shape, tape: unknown[]): void {
  const { keys, kinds } = shape;
  for (let k = 0; k < keys.length; k++) {
    const v = record[keys[k]];
    if (kinds[k] === 'o') tapeOf(v, tape, null);
    else if (kinds[k] === 'l') {
      const items = v as unknown[];
      tape.push(items.length);
      for (let q = 0; q < items.length; q++) tape.push(items[q]);
    } else tape.push(v);
  }
}

/**
 * Flattens a copy (plain data readInput made) in the order sameAt reads it: a primitive is itself;
 * an array is ARRAY_MARK (PRIMS_MARK when every item is a primitive), its length, then its items; an
 * object is OBJECT_MARK, its key count, then each key and its value; a typed array, an ArrayBuffer or a snapshot the caller passed
 * in (see makeSnapshot) is OPAQUE_MARK and the object itself (compared by identity); so is the copy
 * of a deeply frozen caller object (see frozenData), as that object. A child copy other than a flat
 * record (its values all primitives or lists of them) that has a record of its own is SUB_MARK and
 * that record (`self`, the copy being flattened, is written out). A flat record with a compiled shape (see Shape) is SHAPE_MARK, the shape and its
 * values; a list of such records, all of one shape, is SHAPES_MARK, its length, the shape and each
 * record's values.
 */
function tapeOf(copy: unknown, tape: unknown[], self: Reused | null): unknown[] {
  if (copy === null || typeof copy !== 'object') tape.push(copy);
  else if (ArrayBuffer.isView(copy) || copy instanceof ArrayBuffer) tape.push(OPAQUE_MARK, copy);
  else if (frozenSource.has(copy)) tape.push(OPAQUE_MARK, frozenSource.get(copy));
  else if (Array.isArray(copy) && copy.every(isPrimitive)) tape.push(PRIMS_MARK, copy.length, ...copy);
  else {
    const keys = Array.isArray(copy) ? null : Object.keys(copy);
    const leaf = keys !== null && keys.every((key) => isPrimitive((copy as Record<string, unknown>)[key]) || isPrimsCopy((copy as Record<string, unknown>)[key]));
    const sub = leaf ? undefined : reusedOf.get(copy);
    if (sub !== undefined && sub !== self) tape.push(SUB_MARK, sub);
    else if (keys === null) {
      const items = copy as unknown[];
      const shape = listShape(items);
      if (shape !== null) {
        tape.push(SHAPES_MARK, items.length, shape);
        for (let k = 0; k < items.length; k++) shapeValues(items[k] as Record<string, unknown>, shape, tape);
        return tape;
      }
      tape.push(ARRAY_MARK, items.length);
      for (let k = 0; k < items.length; k++) tapeOf(items[k], tape, null);
    } else {
      // A record whose values are not all primitives or lists of them (a request) gets a mixed shape.
      const shape = shapeOf(copy as Record<string, unknown>, keys, !leaf);
      if (shape !== null) {
        tape.push(SHAPE_MARK, shape);
        shapeValues(copy as Record<string, unknown>, shape, tape);
        return tape;
      }
      tape.push(OBJECT_MARK, keys.length);
      for (const key of keys) {
        tape.push(key);
        tapeOf((copy as Record<string, unknown>)[key], tape, null);
      }
    }
  }
  return tape;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The PRIMS_MARK array of `length` items whose first item is at tape[pos], against `value`: the
 * position after it, or -1 at the first difference (an array of the same length and items, read
 * 0..length-1 once each, as a copy would).
 */
function samePrimsAt(value: unknown, tape: unknown[], pos: number, length: number): number {
  if (!Array.isArray(value) || value.length !== length) return -1;
  for (let k = 0; k < length; k++, pos++) if (!Object.is(value[k], tape[pos])) return -1;
  return pos;
}

/** An object that a copy would make a record of (not an array, a typed array or an ArrayBuffer, which pass as they are). */
function isRecordLike(v: object): boolean {
  return !Array.isArray(v) && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer);
}

/**
 * Whether `value` still holds the data whose tape starts at `tape[pos]` (`value` at nesting `depth`):
 * the position after that data, or -1 at the first difference. Reads what a copy would read, each
 * getter once: array items 0..length-1; an object's own enumerable string keys in order, with their
 * values. Objects are listed with for-in, which gives exactly Object.keys' list without an array per
 * object: own enumerable keys first, in Object.keys' order, then inherited ones, where the first key
 * that is not own ends the list. Arrays, typed arrays and ArrayBuffers only ever match their own
 * kind, as a copy would make them.
 */
function sameAt(value: unknown, tape: unknown[], pos: number, depth: number): number {
  const t = tape[pos];
  if (t === null || typeof t !== 'object') return Object.is(value, t) ? pos + 1 : -1;
  if (value === null || typeof value !== 'object' || depth >= MAX_INPUT_DEPTH) return -1;
  if (t === OPAQUE_MARK) return value === tape[pos + 1] ? pos + 2 : -1;
  if (t === SUB_MARK) return sameData(value, tape[pos + 1] as Reused, depth) ? pos + 2 : -1;
  if (t === PRIMS_MARK) return samePrimsAt(value, tape, pos + 2, tape[pos + 1] as number);
  if (t === SHAPES_MARK) {
    const length = tape[pos + 1] as number;
    const shape = tape[pos + 2] as Shape;
    // Its records sit one level deeper, their lists two: past the nesting limit a copy would fail.
    if (!Array.isArray(value) || value.length !== length || depth + (shape.lists ? 2 : 1) >= MAX_INPUT_DEPTH) return -1;
    return shape.list(value, tape, pos + 3, length);
  }
  if (t === ARRAY_MARK) {
    if (!Array.isArray(value)) return -1;
    const length = tape[pos + 1] as number;
    if (value.length !== length) return -1;
    pos += 2;
    for (let k = 0; k < length; k++) {
      const c = tape[pos];
      const item: unknown = value[k];
      if (c === null || typeof c !== 'object') {
        if (!Object.is(item, c)) return -1;
        pos++;
      } else if ((pos = sameAt(item, tape, pos, depth + 1)) < 0) return -1;
    }
    return pos;
  }
  // OBJECT_MARK or SHAPE_MARK: a copied object.
  if (!isRecordLike(value)) return -1;
  if (t === SHAPE_MARK) {
    const shape = tape[pos + 1] as Shape;
    // Its lists sit one level deeper: past the nesting limit a copy would fail, so it is not the same.
    return shape.lists && depth + 1 >= MAX_INPUT_DEPTH ? -1 : shape.same(value, tape, pos + 2, depth + 1);
  }
  const count = tape[pos + 1] as number;
  pos += 2;
  let seen = 0;
  for (const key in value) {
    if (!hasOwn.call(value, key)) break;
    if (seen === count || key !== tape[pos]) return -1;
    seen++;
    const c = tape[pos + 1];
    const item: unknown = (value as Record<string, unknown>)[key];
    if (c === null || typeof c !== 'object') {
      if (!Object.is(item, c)) return -1;
      pos += 2;
    } else if ((pos = sameAt(item, tape, pos + 1, depth + 1)) < 0) return -1;
  }
  return seen === count ? pos : -1;
}

/**
 * Whether a caller's value still holds exactly the data of an earlier copy: the copy's shape bounds
 * the walk (a cycle added since cannot loop), each getter runs once, and any difference says no.
 */
function sameData(value: object, earlier: Reused, depth: number): boolean {
  const tape = earlier.tape ?? (earlier.tape = tapeOf(earlier.copy, [], earlier));
  return sameAt(value, tape, 0, depth) === tape.length;
}

/** Most levels of nesting read from a caller's input (LIMITS.maxDepth). */
const MAX_INPUT_DEPTH = LIMITS.maxDepth;

/** The copy of every empty array and every object without keys read with `reuse` (frozen snapshots). */
const EMPTY_ARRAY: readonly unknown[] = makeSnapshot([]);
const EMPTY_OBJECT: Readonly<Record<string, unknown>> = makeSnapshot({});

/**
 * Reads a caller's input once into plain data the engine owns: arrays and plain objects are copied
 * (own enumerable string keys, each getter invoked exactly once; any other object is read the same
 * way, into a plain object), typed arrays, ArrayBuffers and primitives pass through. Whatever the caller's getters, proxies or toJSON do, validation then sees
 * one consistent value that the caller can neither change underneath nor have mutated. A getter or
 * proxy trap that throws, a cycle, nesting deeper than 64 levels or an array over LIMITS.maxIds
 * items becomes AllocationError naming the path (children named without `field.` when `prefix` is
 * false, as a request's fields are); objects shared by several fields stay shared. With `reuse`,
 * the copies are frozen, and an object read before whose data is unchanged (same keys and values,
 * each getter read once) gives back the same copy (see sameData). An object the caller froze all the
 * way down (plain data properties only, see frozenData) gives back its copy without being compared,
 * and the engine's own snapshots are taken as they are.
 */
export function readInput(field: string, value: unknown, prefix = true, reuse = false): unknown {
  // The hot case of `reuse` (the same request again, unchanged): its copy, without setting up a read.
  let compared: object | null = null;
  if (reuse && value !== null && typeof value === 'object') {
    if (snapshots.has(value)) return value;
    try {
      if (!(ArrayBuffer.isView(value) || value instanceof ArrayBuffer)) {
        const copy = earlierCopy(value, 0);
        if (copy !== undefined) return copy;
        if (reused.has(value)) compared = value; // changed: copied below, without comparing again
      }
    } catch (error) {
      throw readError(field, error);
    }
  }
  return readFresh(field, value, prefix, reuse, compared);
}

/**
 * The copy readInput made of `v` before, when `v` (at nesting `depth`) still holds the same data:
 * the same copy again, so the identity caches behind it (validated topology, the pair-score matrix
 * loaded in the core, planPlacement's node) still hit. sameData reads each getter once, like a copy
 * would; a deeply frozen object's copy has the tape [OPAQUE_MARK, object], one identity compare.
 */
function earlierCopy(v: object, depth: number): object | undefined {
  const earlier = reused.get(v);
  return earlier !== undefined && sameData(v, earlier, depth) ? earlier.copy : undefined;
}

/** The AllocationError for a getter, proxy trap or revoked proxy that threw while reading at `path`. */
function readError(path: string, error: unknown): AllocationError {
  if (error instanceof AllocationError) return error;
  // A getter, a proxy trap or a revoked proxy threw (or the input is too deep for the stack).
  let why: string;
  try {
    why = error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error);
  } catch {
    why = 'an unreadable error';
  }
  const at = path.slice(0, 200);
  return new AllocationError('INVALID_ARGUMENT', `${at}: reading the value threw (${why.slice(0, 200)})`, { field: at, cause: error });
}

/** readInput's copy; `compared` is the root when readInput already found it changed since its last copy. */
function readFresh(field: string, value: unknown, prefix: boolean, reuse: boolean, compared: object | null): unknown {
  const copies = new Map<object, unknown>();
  const open = new Set<object>();
  // The path of the value being read, as keys; rendered only for an error message (hot path: no strings).
  const keys: Array<string | number> = [];
  const pathOf = (): string => {
    let path = field;
    keys.forEach((key, k) => {
      const bare = k === 0 && !prefix;
      if (typeof key === 'number') path = `${bare ? '' : path}[${key}]`;
      else path = bare ? key : `${path}.${key}`;
    });
    return path;
  };
  // A leaf (an object or array holding primitives only) cannot take part in a cycle and costs no
  // more to copy twice than to look up: it enters `open` / `copies` only at its first child that is
  // an object (`entered`).
  const read = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return v;
    if (reuse && snapshots.has(v)) {
      // Frozen data the engine made (an earlier copy, validateTopology's result): nothing can change it.
      frozenSource.set(v, v);
      return v;
    }
    const done = copies.get(v);
    if (done !== undefined) return done;
    if (open.has(v)) fail('INVALID_ARGUMENT', pathOf(), 'plain data (the value refers back to itself)', '[cycle]');
    if (depth >= MAX_INPUT_DEPTH) fail('INVALID_ARGUMENT', pathOf(), `at most ${MAX_INPUT_DEPTH} levels of nesting`, '[deeper]');
    if (reuse && v !== compared) {
      const copy = earlierCopy(v, depth);
      if (copy !== undefined) return copy;
    }
    let copy: unknown;
    let entered = false;
    const child = (item: unknown): unknown => {
      if (item === null || typeof item !== 'object') return item;
      if (!entered) {
        open.add(v);
        entered = true;
      }
      return read(item, depth + 1);
    };
    if (Array.isArray(v)) {
      const length = v.length;
      if (length > LIMITS.maxIds) fail('LIMIT_EXCEEDED', pathOf(), `at most ${LIMITS.maxIds} items`, `an array of ${length}`);
      // Every empty array read with `reuse` is one snapshot, so copies that hold one keep their identity.
      if (length === 0 && reuse) return EMPTY_ARRAY;
      const out = new Array<unknown>(length);
      for (let k = 0; k < length; k++) {
        keys.push(k);
        out[k] = child(v[k]);
        keys.pop();
      }
      copy = out;
    } else {
      // Any other object is read as a record of its own enumerable keys (a Map or a class instance
      // becomes a plain object, which validation then judges like any other), so no inherited getter runs later.
      const own = Object.keys(v);
      if (own.length > LIMITS.maxIds) fail('LIMIT_EXCEEDED', pathOf(), `an object of at most ${LIMITS.maxIds} keys`, `${own.length} keys`);
      if (own.length === 0 && reuse) return EMPTY_OBJECT;
      const out: Record<string, unknown> = {};
      for (const key of own) {
        keys.push(key);
        const item = child((v as Record<string, unknown>)[key]);
        keys.pop();
        // Plain assignment is several times faster than defineProperty; only `__proto__` needs the latter.
        if (key === '__proto__') setOwn(out, key, item);
        else out[key] = item;
      }
      copy = out;
    }
    if (reuse) {
      Object.freeze(copy); // it may be handed out again: nothing may change it (see Reused)
      if (frozenData(v)) {
        deepFrozen.add(v);
        frozenSource.set(copy as object, v);
      }
    }
    if (entered) {
      open.delete(v);
      copies.set(v, copy);
      if (reuse) {
        const record: Reused = { copy: copy as object, tape: null };
        reused.set(v, record);
        reusedOf.set(copy as object, record);
        snapshots.add(copy as object);
      }
    }
    return copy;
  };
  try {
    return read(value, 0);
  } catch (error) {
    throw readError(error instanceof AllocationError ? '' : pathOf(), error);
  }
}
