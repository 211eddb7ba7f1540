// Input checks shared by every capability, the one validation vocabulary: `require*` for values,
// `rejectUnknownKeys` / `findUnknownKey` for keys, `keysOf` / `KeyShapeOf` for key lists checked
// against their types at build time. Each failure names the field and shows the value.
import { AllocationError, type AllocationErrorCode, formatPath, type PathSegment, parsePath } from './errors.js';
import { LIMITS } from './limits.js';
import { closestName } from './suggest.js';

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
      text =
        JSON.stringify(value, (_k, v: unknown) => {
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

/**
 * A field inside a named input: the input (`ResourceSlice/slice-1`, `request`), said first as the
 * error's origin, and the field's path in it as messages write it (`spec.devices[2].name`; '' for
 * the input itself).
 */
export interface Located {
  readonly origin: string;
  readonly path: string;
}

/** Longest origin or path an error says in full (names and keys taken from an input may be huge). */
const MAX_NAME = 2000;

/** `text`, cut to MAX_NAME characters with its length said. */
export function boundedName(text: string): string {
  return text.length > MAX_NAME ? `${text.slice(0, MAX_NAME)}… (${text.length} chars)` : text;
}

/**
 * Throws AllocationError(code) saying `field: expected …, got …` (with `expected` and `received` on
 * the error); a Located field says `ORIGIN: PATH: expected …, got …` (with `origin` on the error).
 */
export function fail(code: AllocationErrorCode, field: string | readonly PathSegment[] | Located, expected: string, value: unknown, details?: Record<string, unknown>): never {
  const received = describeValue(value);
  const more = { expected, received, ...(details === undefined ? {} : { details }) };
  if (_isLocated(field))
    throw AllocationError.of(code, { ...more, origin: boundedName(field.origin), ...(field.path === '' ? {} : { path: boundedName(field.path) }), detail: `expected ${expected}, got ${received}` });
  throw AllocationError.at(code, field, `expected ${expected}, got ${received}`, more);
}

function _isLocated(field: string | readonly PathSegment[] | Located): field is Located {
  return typeof field === 'object' && !Array.isArray(field);
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
  if (typeof value !== 'number' || !Number.isInteger(value) || (min === 0 && value < 0)) fail(code, field, min >= 0 ? 'a non-negative integer' : 'an integer', value);
  if (value < min || value > max) fail(value > max && max >= 1e6 ? 'LIMIT_EXCEEDED' : code, field, `an integer in [${min}, ${max}]`, value);
  return value === 0 ? 0 : value;
}

/** A string of at most `maxLength` code units (and, with `nonEmpty`, at least one). */
export function requireString(field: string, value: unknown, maxLength: number, nonEmpty = false): string {
  if (typeof value !== 'string') fail('INVALID_ARGUMENT', field, 'a string', value);
  if (nonEmpty && value.length === 0) fail('INVALID_ARGUMENT', field, 'a non-empty string', value);
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

/**
 * Fails INVALID_ARGUMENT for the first own key of `value` not in `known`, naming it
 * (`field.key: unknown field (did you mean KEY? allowed: a, b)`): a misspelt key must never be
 * silently ignored. `field` '' is the top level.
 */
export function rejectUnknownKeys(field: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of ownKeys(value)) {
    if (known.includes(key)) continue;
    const closest = closestName(key, known);
    const hint = `${closest === undefined ? '' : `did you mean ${closest}? `}allowed: ${known.length === 0 ? 'none' : known.join(', ')}`;
    throw AllocationError.at('INVALID_ARGUMENT', [...parsePath(field), key], `unknown field (${hint})`, {
      expected: `one of the keys ${known.join(', ')}`,
      received: describeValue(key),
      details: { key, known: [...known], ...(closest === undefined ? {} : { closest }) },
    });
  }
}

/**
 * True when `value` has an own enumerable key not in `known`. No allocation: the hot paths' check,
 * followed by rejectUnknownKeys (which builds the error) only when it is true.
 */
export function hasUnknownKey(value: object, known: readonly string[]): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key) && !known.includes(key)) return true;
  return false;
}

/**
 * The keys a document may have. null: anything (a leaf, or a value checked elsewhere). A record:
 * only these keys, each with its shape; the key '*' stands for any other key. An array value is
 * checked item by item against the same shape (an array of tables).
 */
export type KeyShape = null | { readonly [key: string]: KeyShape };

/**
 * The key shape of a type: every key of T (optional ones included) and no other, each with its own
 * shape. A field added to T and not to the shape, or a shape key T lacks, fails the build.
 */
export type KeyShapeOf<T> = { readonly [K in keyof Required<T>]: KeyShape };

/**
 * Every key of T, as a list: `keysOf<Slot>()(['id', 'gpus', …])` fails to compile when a key of T is
 * missing from the list or the list has one T lacks. Put the list next to the type.
 */
export function keysOf<T>(): <const K extends readonly (keyof T & string)[]>(keys: K & _AllKeysOf<T, K>) => readonly (keyof T & string)[] {
  return (keys) => Object.freeze([...keys]);
}

/** unknown when K lists every key of T, else a type K cannot meet that names the missing keys. */
type _AllKeysOf<T, K extends readonly unknown[]> = [Exclude<keyof T, K[number]>] extends [never] ? unknown : { readonly missingKeys: Exclude<keyof T, K[number]> };

/** The first unknown key of a document: where it is, what it is, the keys allowed there and the closest. */
export type UnknownKey = { path: PathSegment[]; key: string; known: string[]; closest?: string };

function _isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && !ArrayBuffer.isView(value);
}

/** The first key of `value` (in document order, depth first) that `shape` does not allow, or undefined. */
export function findUnknownKey(value: unknown, shape: KeyShape, path: PathSegment[] = []): UnknownKey | undefined {
  if (shape === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnknownKey(value[i], shape, [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!_isRecord(value)) return undefined;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(shape, key);
  for (const key of Object.keys(value)) {
    if (!has(key) && !has('*')) {
      const known = Object.keys(shape).filter((k) => k !== '*');
      const closest = closestName(key, known);
      return { path: [...path, key], key, known, ...(closest === undefined ? {} : { closest }) };
    }
    // One of the two is present: a key neither names nor `*` covers returned above.
    const found = findUnknownKey(value[key], (has(key) ? shape[key] : shape['*']) as KeyShape, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The error for a document's unknown key: `unknown key PATH (did you mean KEY?)`, or the allowed keys
 * when none is close (`origin`, such as a file name, said first).
 */
export function unknownKeyError(code: AllocationErrorCode, u: UnknownKey, origin?: string): AllocationError {
  const hint = u.closest !== undefined ? `did you mean ${u.closest}?` : u.known.length === 0 ? 'no keys are allowed here' : `allowed: ${u.known.join(', ')}`;
  return AllocationError.of(code, {
    ...(origin === undefined ? {} : { origin }),
    path: u.path,
    named: true,
    detail: `unknown key ${formatPath(u.path)} (${hint})`,
    expected: u.known.length === 0 ? 'no keys' : `one of the keys ${u.known.join(', ')}`,
    received: describeValue(u.key),
    details: { key: u.key, ...(u.closest === undefined ? {} : { closest: u.closest }) },
  });
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

/** Most levels of nesting read from a caller's input (LIMITS.maxDepth). */
const MAX_INPUT_DEPTH = LIMITS.maxDepth;

/**
 * Values readInput passes through as they are: engine-made handles (see Engine.prepare) whose data
 * the engine owns and cannot change. Registered by their constructor.
 */
const passThrough = new WeakSet<object>();

/** Marks an engine-made, immutable object that readInput passes through uncopied (a prepared node). */
export function markEngineOwned(value: object): void {
  passThrough.add(value);
}

/**
 * Reads a caller's input once into plain data the engine owns: arrays and plain objects are copied
 * (own enumerable string keys, each getter invoked exactly once; any other object is read the same
 * way, into a plain object), typed arrays, ArrayBuffers, primitives and engine-made handles pass
 * through. Whatever the caller's getters, proxies or toJSON do, validation then sees one consistent
 * value that the caller can neither change underneath nor have mutated. A getter or proxy trap that
 * throws, a cycle, nesting deeper than LIMITS.maxDepth levels or an array over LIMITS.maxIds items
 * becomes AllocationError naming the path (children named without `field.` when `prefix` is false,
 * as a request's fields are); objects shared by several fields stay shared.
 *
 * `raw`: a key of the top-level record whose value is passed on as the caller gave it, not copied;
 * the code that takes it must read each of its fields once (planPlacement's slots, see validateSlot).
 *
 * Every call copies: the engine keeps nothing between calls and never compares a caller's objects
 * with earlier ones. A caller that plans again and again on the same node prepares it once
 * (Engine.prepare) and passes the handle, which is not copied or validated again.
 */
export function readInput(field: string, value: unknown, prefix = true, raw?: string): unknown {
  const copies = new Map<object, unknown>();
  const open = new Set<object>();
  // keys[d]: the key read at depth d of the value being read; rendered only for an error message.
  const keys: Array<string | number> = [];
  let at = 0;
  const pathOf = (): string => {
    let path = field;
    for (let k = 0; k < at; k++) {
      const key = keys[k]!; // keys[0 .. at) are set
      const bare = k === 0 && !prefix;
      if (typeof key === 'number') path = `${bare ? '' : path}[${key}]`;
      else path = bare ? key : `${path}.${key}`;
    }
    return path;
  };
  // A leaf (an object or array holding primitives only: a GPU, a link) cannot take part in a cycle
  // and costs no more to copy twice than to look up: it enters `open` / `copies` only at its first
  // child that is an object. So shared records stay shared, shared leaves are copied apart.
  // Entering a record: marked open (a cycle back to it is an error) the first time a child is an object.
  const enter = (v: object, entered: boolean): true => {
    if (!entered) open.add(v);
    return true;
  };
  const read = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    // Plain records and arrays (nearly everything) skip the checks for the rest.
    const isArray = Array.isArray(v);
    if (!isArray && Object.getPrototypeOf(v) !== Object.prototype && (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || passThrough.has(v))) return v;
    if (copies.size > 0) {
      const done = copies.get(v);
      if (done !== undefined) return done;
    }
    if (open.has(v)) fail('INVALID_ARGUMENT', pathOf(), 'plain data (the value refers back to itself)', '[cycle]');
    if (depth >= MAX_INPUT_DEPTH) fail('INVALID_ARGUMENT', pathOf(), `at most ${MAX_INPUT_DEPTH} levels of nesting`, '[deeper]');
    let entered = false;
    let copy: unknown;
    if (isArray) {
      const length = v.length;
      if (length > LIMITS.maxIds) fail('LIMIT_EXCEEDED', pathOf(), `at most ${LIMITS.maxIds} items`, `an array of ${length}`);
      const out = new Array<unknown>(length);
      for (let k = 0; k < length; k++) {
        keys[depth] = k;
        at = depth + 1;
        const item: unknown = v[k];
        if (item !== null && typeof item === 'object') {
          entered = enter(v, entered);
          out[k] = read(item, depth + 1);
        } else out[k] = item;
      }
      at = depth;
      copy = out;
    } else {
      // Any other object is read as a record of its own enumerable keys (a Map or a class instance
      // becomes a plain object, which validation then judges like any other), so no inherited getter runs later.
      const own = Object.keys(v);
      if (own.length > LIMITS.maxIds) fail('LIMIT_EXCEEDED', pathOf(), `an object of at most ${LIMITS.maxIds} keys`, `${own.length} keys`);
      const out: Record<string, unknown> = {};
      for (let q = 0; q < own.length; q++) {
        const key = own[q]!; // q < own.length
        keys[depth] = key;
        at = depth + 1;
        let item: unknown = (v as Record<string, unknown>)[key];
        if (item !== null && typeof item === 'object' && !(depth === 0 && key === raw)) {
          entered = enter(v, entered);
          item = read(item, depth + 1);
        }
        if (key === '__proto__') setOwn(out, key, item);
        else out[key] = item;
      }
      at = depth;
      copy = out;
    }
    if (entered) {
      open.delete(v);
      copies.set(v, copy);
    }
    return copy;
  };
  try {
    return read(value, 0);
  } catch (error) {
    throw readError(error instanceof AllocationError ? '' : pathOf(), error);
  }
}

/** The AllocationError for a getter, proxy trap or revoked proxy that threw while reading at `path` (an AllocationError as it is). */
export function readError(path: string, error: unknown): AllocationError {
  if (error instanceof AllocationError) return error;
  let why: string;
  try {
    why = error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error);
  } catch {
    why = 'an unreadable error';
  }
  const at = path.slice(0, 200);
  return AllocationError.at('INVALID_ARGUMENT', at, `reading the value threw (${why.slice(0, 200)})`, { cause: error });
}
