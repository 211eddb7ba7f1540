// "Did you mean …?": the known name closest to a mistyped one (config keys, field names, policies).

/** Spelling differences that are not typos: case, and `_` / `-` / ` ` between words. */
function _fold(name: string): string {
  return name.toLowerCase().replace(/[_\- ]/g, '');
}

/** Levenshtein distance (insert, delete, substitute each cost 1), stopping early past `max`. */
function _distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      // j ≤ b.length: `previous` holds b.length + 1 entries and `row` has just been filled up to j - 1.
      const here = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      row[j] = here;
      if (here < best) best = here;
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The known name closest to `name`, or undefined when none is close: equal once case and `_`/`-`
 * are ignored (`allocation_mode` → `allocation-mode`), else at most 40% of the name's letters
 * (at least 1, at most 4) apart by edit distance (`memTotal` → `memoryTotal`). Ties go to the
 * earlier name in `known`.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const folded = _fold(name);
  const exact = known.find((k) => _fold(k) === folded);
  if (exact !== undefined) return exact;
  const max = Math.min(4, Math.max(1, Math.ceil(folded.length * 0.4)));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const k of known) {
    const d = _distance(folded, _fold(k), max);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean NAME?)` for the closest known name, or '' when none is close. */
export function didYouMean(name: string, known: readonly string[]): string {
  const match = closestName(name, known);
  return match === undefined ? '' : ` (did you mean ${match}?)`;
}
