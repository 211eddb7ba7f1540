// Input checks shared by every capability. Each failure names the field and shows the value.
import { AllocationError, type AllocationErrorCode } from './errors.js';

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
    text = Object.prototype.toString.call(value);
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
