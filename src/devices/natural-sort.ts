// naturalSort: device IDs in natural order (cuda1 < cuda2 < cuda10), the same on both backends.
import { LIMITS } from '../shared/limits.js';
import { fail, requireArray } from '../shared/validate.js';

/** Kernels this capability needs. */
export interface SortKernels {
  /**
   * The natural-order permutation of `ids`: result[k] is the input position of the k-th ID.
   * Keys: alternating non-digit / digit runs; non-digit runs compare ASCII-case-insensitively,
   * digit runs by numeric value (any length); a prefix run list first; then code-unit order, then position.
   */
  naturalOrder(ids: readonly string[]): Int32Array;
}

/** Checks an ID list against the limits; returns its total length in UTF-16 code units. */
export function checkIdList(field: string, value: unknown): string[] {
  const ids = requireArray(field, value, LIMITS.maxIds);
  let total = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    if (typeof id !== 'string') fail('INVALID_ARGUMENT', `${field}[${k}]`, 'a string', id);
    if (id.length > LIMITS.maxIdLength) fail('LIMIT_EXCEEDED', `${field}[${k}]`, `an ID of at most ${LIMITS.maxIdLength} characters`, id);
    total += id.length;
  }
  if (total > LIMITS.maxTotalIdUnits) fail('LIMIT_EXCEEDED', field, `at most ${LIMITS.maxTotalIdUnits} characters in all`, `${total} characters`);
  return ids as string[];
}

/** Returns a new array with `ids` in natural order. */
export function naturalSort(kernels: SortKernels, ids: readonly string[]): string[] {
  const list = checkIdList('ids', ids);
  const order = kernels.naturalOrder(list);
  const out = new Array<string>(list.length);
  for (let k = 0; k < list.length; k++) out[k] = list[order[k]!]!; // order is a permutation of list's positions
  return out;
}
