// Options objects of the store API: unknown keys are errors (a typo must not silently do nothing).
import { fail } from '../shared/validate.js';

/** Throws INVALID_ARGUMENT naming `field.key` for the first key of `value` not in `known`. */
export function onlyKnownKeys(field: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) fail('INVALID_ARGUMENT', `${field}.${key}`, `a known option (${known.join(', ')})`, key);
}
