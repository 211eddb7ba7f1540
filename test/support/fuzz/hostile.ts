// Hostile values and the checks every robustness property shares: what a hostile caller can pass,
// deep-freezing, a getter-safe snapshot to prove inputs are not mutated, and "only AllocationError escapes".
import { types } from 'node:util';
import fc from 'fast-check';
import { expect } from 'vitest';
import { AllocationError, ERROR_CODES } from '../../../src/shared/errors.js';

/** What a hostile getter, proxy trap, toString or valueOf throws: the one foreign error the engine may wrap. */
export class HostileReadError extends Error {
  constructor(what: string) {
    super(`hostile ${what}`);
    this.name = 'HostileReadError';
  }
}

/** An object whose property `key` is a getter that throws. */
export function throwingGetter(key = 'x'): object {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw new HostileReadError(`getter ${key}`);
    },
  });
}

/** A proxy whose every trap throws (reading, listing keys, asking whether it is an array all fail). */
export function throwingProxy(target: object = {}): object {
  const trap = (name: string) => () => {
    throw new HostileReadError(`proxy ${name}`);
  };
  return new Proxy(target, { get: trap('get'), has: trap('has'), ownKeys: trap('ownKeys'), getOwnPropertyDescriptor: trap('getOwnPropertyDescriptor'), getPrototypeOf: trap('getPrototypeOf') });
}

/** An array whose element getter throws, and whose length is still honest. */
export function throwingArray(length = 3): unknown[] {
  const a: unknown[] = new Array(length).fill('cuda0');
  Object.defineProperty(a, 1, {
    enumerable: true,
    get() {
      throw new HostileReadError('array element');
    },
  });
  return a;
}

/** An object whose toString / valueOf / toJSON throw (String(x), `${x}`, x + 1, JSON.stringify(x) all fail). */
export function throwingPrimitive(): object {
  const boom = () => {
    throw new HostileReadError('coercion');
  };
  return { toString: boom, valueOf: boom, toJSON: boom, [Symbol.toPrimitive]: boom };
}

function cyclicObject(): object {
  const o: Record<string, unknown> = { id: 'cuda0', index: 0 };
  o.self = o;
  o.gpus = [o];
  return o;
}

function cyclicArray(): unknown[] {
  const a: unknown[] = ['cuda0'];
  a.push(a);
  return a;
}

/** A string of `n` code units. */
export function longId(n: number): string {
  return 'c'.repeat(n - 1) + '9';
}

/** Values chosen to break validation: wrong types, special numbers, odd strings, odd objects. */
export function hostileScalars(): unknown[] {
  return [
    undefined,
    null,
    true,
    false,
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    1.5,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e308,
    Number.MIN_VALUE,
    NaN,
    Infinity,
    -Infinity,
    10n,
    -1n,
    Symbol('s'),
    '',
    ' ',
    '0',
    '-1',
    'NaN',
    '1e3',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '\uD800',
    '\uDC00x\uD800',
    'cuda\u0000',
    'cüda',
    '𝟘',
    longId(100_000),
  ];
}

/** Fresh odd objects (a new instance each call, so freezing one run does not leak into another). */
export function hostileObjects(): unknown[] {
  return [
    {},
    [],
    [[]],
    [undefined],
    [null],
    [NaN],
    Object.create(null),
    JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": 1}}'),
    Object.freeze({ a: 1 }),
    Object.freeze([1, 2]),
    cyclicObject(),
    cyclicArray(),
    throwingGetter('gpus'),
    throwingGetter('id'),
    throwingGetter('length'),
    throwingProxy(),
    throwingProxy([]),
    throwingArray(),
    throwingPrimitive(),
    () => 1,
    new Date(0),
    new Map([[1, 2]]),
    new Set([1]),
    new Int32Array(3),
    new Uint8Array(4),
    new ArrayBuffer(8),
    /re/,
    new Error('e'),
    Promise.resolve(1),
    new Array(5),
    // biome-ignore lint/suspicious/noSparseArray: a hole is one of the hostile inputs
    [, 'cuda1'],
    Object.defineProperty([], 'length', { value: 0, writable: false }),
  ];
}

/**
 * A recipe for one of hostileObjects(): fast-check prints and shrinks the recipe, never the object
 * (printing a throwing proxy would throw inside fast-check). `materialize` builds a fresh instance.
 */
export class Hostile {
  constructor(readonly k: number) {}
  [fc.toStringMethod](): string {
    return `hostileObjects()[${this.k}]`;
  }
}

/** Replaces Hostile recipes anywhere inside a plain value by fresh hostile objects. */
export function materialize(value: unknown): unknown {
  if (value instanceof Hostile) return hostileObjects()[value.k];
  if (Array.isArray(value)) return value.map(materialize);
  return value;
}

/** One hostile value (objects as Hostile recipes: pass through materialize before use). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 0, max: hostileScalars().length - 1 }).map((k) => hostileScalars()[k]),
  fc.integer({ min: 0, max: hostileObjects().length - 1 }).map((k) => new Hostile(k)),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(NaN)), { maxLength: 4 }),
);

/** Every path (list of keys) to a value inside a plain JSON-like tree, the root included. */
export function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = [], depth = 0): Array<Array<string | number>> {
  out.push(prefix);
  if (depth > 8 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) value.forEach((v, k) => pathsOf(v, [...prefix, k], out, depth + 1));
  else for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out, depth + 1);
  return out;
}

/** How one hostile edit changes a request. */
export type Edit = { kind: 'replace' | 'delete' | 'add'; path: Array<string | number>; key?: string; value?: unknown };

/** A copy of a JSON-like `value` with one edit applied (the original is untouched). */
export function applyEdit(value: unknown, edit: Edit): unknown {
  const copy = structuredClone(value);
  const hostile = materialize(edit.value);
  if (edit.path.length === 0 && edit.kind === 'replace') return hostile;
  let parent: Record<string | number, unknown> = copy as Record<string | number, unknown>;
  const path = edit.kind === 'add' ? edit.path : edit.path.slice(0, -1);
  for (const key of path) {
    const next = parent[key];
    if (next === null || typeof next !== 'object') return copy;
    parent = next as Record<string | number, unknown>;
  }
  if (edit.kind === 'add') {
    if (Array.isArray(parent) && edit.key === 'length') return copy; // an array's length is not a key to add
    Object.defineProperty(parent, edit.key!, { value: hostile, enumerable: true, writable: true, configurable: true });
  } else {
    const last = edit.path[edit.path.length - 1];
    if (edit.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else parent[last] = hostile;
  }
  return copy;
}

/** An arbitrary of hostile edits of a valid request: replace a field, drop it, or add an odd key. */
export function hostileEdit(valid: unknown): fc.Arbitrary<Edit> {
  const paths = pathsOf(valid);
  const path = fc.constantFrom(...paths);
  const inner = paths.filter((p) => p.length > 0);
  if (inner.length === 0) return fc.record({ kind: fc.constant('replace' as const), path, value: hostileValue });
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('replace' as const), path, value: hostileValue }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...inner) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('add' as const), path, key: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'length', '0', 'x'), value: hostileValue }),
    },
  );
}

/**
 * `value` frozen all the way down, as a caller keeping immutable state would hold it. Safe on any
 * input (a hostile one included): reads descriptors, never getters; leaves proxies, typed
 * arrays and ArrayBuffers as they are (a typed array with items cannot be frozen); follows cycles once.
 */
export function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  const o = value as unknown as object;
  if (types.isProxy(o) || seen.has(o)) return value;
  seen.add(o);
  if (ArrayBuffer.isView(o) || o instanceof ArrayBuffer) return value;
  for (const key of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, key);
    if (d !== undefined && 'value' in d) deepFreeze(d.value, seen);
  }
  Object.freeze(o);
  return value;
}

/**
 * A text picture of a value that never invokes getters or proxy traps: every own property's
 * descriptor, numbers by Object.is (so -0 and NaN count), cycles by path. Equal pictures before and
 * after a call prove the call mutated nothing reachable.
 */
export function snapshot(value: unknown): string {
  const seen = new Map<object, string>();
  const walk = (v: unknown, path: string): unknown => {
    if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Inf' : v === -Infinity ? '-Inf' : v;
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol') return `symbol:${v.description}`;
    if (v === undefined) return 'undefined';
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v;
    const o = v as object;
    if (seen.has(o)) return `[cycle ${seen.get(o)}]`;
    seen.set(o, path);
    if (types.isProxy(o)) return '[proxy]';
    if (typeof o === 'function') return `[function ${o.name}]`;
    if (ArrayBuffer.isView(o)) return { view: Array.from(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)) };
    if (o instanceof ArrayBuffer) return { buffer: Array.from(new Uint8Array(o)) };
    const out: Record<string, unknown> = { '[frozen]': Object.isFrozen(o), '[proto]': Object.getPrototypeOf(o)?.constructor?.name ?? null };
    for (const key of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key)!;
      const name = typeof key === 'symbol' ? `@@${key.description}` : key;
      out[name] = 'value' in d ? walk(d.value, `${path}.${name}`) : `[accessor ${d.get ? 'get' : ''}${d.set ? 'set' : ''}]`;
    }
    return out;
  };
  return JSON.stringify(walk(value, '$'));
}

/** What one call did: its result, or the error it threw. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `fn`, capturing a thrown error instead of propagating it. */
export function attempt<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Awaits `fn`, capturing a rejection (or a synchronous throw) instead of propagating it. */
export async function attemptAsync<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Asserts an error is an AllocationError with a documented code and a non-empty message; a wrapped
 * foreign cause must be the hostile input's own HostileReadError (anything else is an engine bug).
 */
export function expectAllocationError(error: unknown, context: string): AllocationError {
  if (!(error instanceof AllocationError)) {
    const shown = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
    expect.fail(`${context}: a non-AllocationError escaped: ${shown}`);
  }
  expect(Object.keys(ERROR_CODES), context).toContain(error.code);
  expect(typeof error.message, context).toBe('string');
  expect(error.message.length, context).toBeGreaterThan(0);
  expect(error.message.length, `${context}: message is bounded`).toBeLessThan(20_000);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause !== undefined && !(cause instanceof AllocationError) && error.code !== 'INTERNAL' && !(cause instanceof HostileReadError)) {
    // Causes that are ordinary I/O or parse errors (JSON.parse, fs) are fine; TypeErrors and RangeErrors from our own code are not.
    // Node's own argument checks (fs: a path with a NUL byte) carry an ERR_* code: those are input errors.
    const nodeCode = (cause as { code?: unknown }).code;
    if ((cause instanceof TypeError || cause instanceof RangeError || cause instanceof ReferenceError) && !(typeof nodeCode === 'string' && nodeCode.startsWith('ERR_'))) {
      expect.fail(`${context}: an engine bug was wrapped as ${error.code}: ${cause.name}: ${cause.message}\n${cause.stack}`);
    }
  }
  return error;
}

/** Asserts the outcome is a result or an AllocationError (never anything else). */
export function expectResultOrAllocationError<T>(outcome: Outcome<T>, context: string): void {
  if (!outcome.ok) expectAllocationError(outcome.error, context);
}

/** A short label for a value, for failure messages. */
export function label(value: unknown): string {
  try {
    return snapshot(value).slice(0, 300);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
