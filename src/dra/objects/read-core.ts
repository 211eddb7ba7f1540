// Strict reading of Kubernetes JSON: every failure names the object (`ResourceSlice/slice-1`), the
// field path (`spec.devices[2].capacity.memory.value`) and the value, and unknown fields are errors.
// Failures are shared/validate's: `fail('INVALID_ARGUMENT', at, expected, value)` with the object as
// the error's origin.

import { closestName } from '../../shared/suggest.js';
import { describeValue, fail, type Located, own, readError } from '../../shared/validate.js';
import { fromLibrary } from './errors.js';
import { Quantity } from './quantity.js';

/** Where a value is: the object it belongs to (the error's origin) and the path inside it. */
export type At = Located;

/** A child field's location; its path is written only when a message needs it (reading stays cheap). */
class ChildAt implements At {
  constructor(
    readonly origin: string,
    private readonly parent: At,
    private readonly key: string | number,
  ) {}

  get path(): string {
    const base = this.parent.path;
    const key = this.key;
    if (typeof key === 'number') return `${base}[${key}]`;
    if (base === '') return key;
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
  }
}

/** The location of a child field. */
export function child(at: At, key: string | number): At {
  return new ChildAt(at.origin, at, key);
}

/** A plain object whose keys are all in `known` (unknown fields are errors). */
export function record(at: At, value: unknown, known: readonly string[]): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'an object', value);
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const closest = closestName(key, known);
    fail('INVALID_ARGUMENT', child(at, key), `a known field (${closest === undefined ? '' : `did you mean ${closest}? `}one of ${known.join(', ')})`, `unknown field ${JSON.stringify(key)}`);
  }
  return obj;
}

/** A plain object with any keys (a map such as labels or attributes). */
export function map(at: At, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'an object', value);
  return value as Record<string, unknown>;
}

/**
 * Runs `read` over a caller's object and turns what a getter, a proxy trap or a revoked proxy throws
 * while it is read into the AllocationError that names `where` (an AllocationError passes as it is).
 * Only reading runs inside: an engine fault after the input is read is not disguised as bad input.
 */
export function guarded<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw readError(where, error);
  }
}

/** An own field of a record (never an inherited one). */
export function field(obj: Record<string, unknown>, key: string): unknown {
  return own(obj, key);
}

/** A string; `undefined` when absent and not required. */
export function str(at: At, value: unknown, required: true): string;
export function str(at: At, value: unknown, required?: false): string | undefined;
export function str(at: At, value: unknown, required = false): string | undefined {
  if (value === undefined || value === null) {
    if (required) fail('INVALID_ARGUMENT', at, 'a string (required)', value);
    return undefined;
  }
  if (typeof value !== 'string') fail('INVALID_ARGUMENT', at, 'a string', value);
  return value;
}

/** A non-empty string (a name). */
export function name(at: At, value: unknown): string {
  const text = str(at, value, true);
  if (text === '') fail('INVALID_ARGUMENT', at, 'a non-empty string', value);
  return text;
}

/** A boolean; `undefined` when absent. */
export function bool(at: At, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') fail('INVALID_ARGUMENT', at, 'a boolean', value);
  return value;
}

/** An integer within the safe range; `undefined` when absent and not required. */
export function int(at: At, value: unknown, required = false, min = Number.MIN_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === null) {
    if (required) fail('INVALID_ARGUMENT', at, 'an integer (required)', value);
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail('INVALID_ARGUMENT', at, 'an integer', value);
  if (value < min) fail('INVALID_ARGUMENT', at, `an integer of at least ${min}`, value);
  return value === 0 ? 0 : value;
}

/** A list read item by item; absent or null is an empty list. */
export function list<T>(at: At, value: unknown, item: (at: At, value: unknown) => T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'a list', value);
  // An index loop, not value.map: map consults the array's own `constructor` (Symbol.species), which a
  // hostile input may have set to anything.
  const out: T[] = [];
  for (let i = 0; i < value.length; i++) out.push(item(child(at, i), value[i]));
  return out;
}

/** A list of strings. */
export function strings(at: At, value: unknown): string[] {
  return list(at, value, (a, v) => str(a, v, true));
}

/** A map of string values (labels). */
export function stringMap(at: At, value: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (value === undefined || value === null) return out;
  const obj = map(at, value);
  for (const key of Object.keys(obj)) out[key] = str(child(at, key), obj[key], true);
  return out;
}

/** What a quantity field holds, as messages say it. */
const QUANTITY = 'a quantity such as "4Gi"';

/** A Kubernetes quantity (a string such as "4Gi", or a number as JSON may carry it). */
export function quantity(at: At, value: unknown, required: true): Quantity;
export function quantity(at: At, value: unknown, required?: false): Quantity | undefined;
export function quantity(at: At, value: unknown, required = false): Quantity | undefined {
  if (value === undefined || value === null) {
    if (required) fail('INVALID_ARGUMENT', at, 'a quantity (required)', value);
    return undefined;
  }
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) fail('INVALID_ARGUMENT', at, QUANTITY, value);
  try {
    return Quantity.parse(String(value));
  } catch (error) {
    const received = describeValue(value);
    throw fromLibrary(error, 'INVALID_ARGUMENT', (why) => ({ origin: at.origin, path: at.path, detail: `expected ${QUANTITY}, got ${received}`, expected: QUANTITY, received, notes: [why] }));
  }
}

/** A map of quantities (counters, capacity requests). */
export function quantityMap(at: At, value: unknown, entry: (at: At, value: unknown) => Quantity): Record<string, Quantity> {
  const out: Record<string, Quantity> = Object.create(null) as Record<string, Quantity>;
  if (value === undefined || value === null) return out;
  const obj = map(at, value);
  for (const key of Object.keys(obj)) out[key] = entry(child(at, key), obj[key]);
  return out;
}

/** One of the given strings. */
export function oneOf<T extends string>(at: At, value: unknown, options: readonly T[]): T {
  if (typeof value !== 'string' || !(options as readonly string[]).includes(value)) fail('INVALID_ARGUMENT', at, `one of ${options.map((o) => JSON.stringify(o)).join(', ')}`, value);
  return value as T;
}

/** A deep copy of plain JSON data (opaque parameters), so results never alias inputs. */
export function cloneJson(at: At, value: unknown, depth = 0): unknown {
  if (depth > 64) fail('INVALID_ARGUMENT', at, 'JSON nested at most 64 levels', '[deeper]');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail('INVALID_ARGUMENT', at, 'JSON data', value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => cloneJson(child(at, i), v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: cloneJson(child(at, key), (value as Record<string, unknown>)[key], depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return fail('INVALID_ARGUMENT', at, 'JSON data', value);
}
