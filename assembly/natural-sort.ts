// Natural order of device IDs. Each ID is a list of alternating runs, starting with a (possibly
// empty) non-digit run: non-digit runs compare ASCII-case-insensitively, digit runs by numeric value
// of any length, a run list that is a prefix of another sorts first; equal keys fall back to plain
// code-unit order, then to input position, so the order is total.

// @ts-ignore: decorator
@inline function unitAt(units: usize, k: i32): i32 {
  return <i32>load<u16>(units + (<usize>k << 1));
}

// @ts-ignore: decorator
@inline function isDigit(c: i32): bool {
  return <u32>(c - 48) < 10;
}

// @ts-ignore: decorator
@inline function foldCase(c: i32): i32 {
  return <u32>(c - 65) < 26 ? c + 32 : c;
}

/**
 * Compares IDs a and b (indices into offsets); negative, zero or positive (only the sign means
 * anything). Never returns 0 for a != b. Same order as src/baseline/natural-sort.ts, but each run
 * is walked once on both sides (no separate scan for the run's end first).
 */
export function compareNatural(units: usize, offsets: usize, a: i32, b: i32): i32 {
  const aStart = load<i32>(offsets + (<usize>a << 2));
  const aEnd = load<i32>(offsets + (<usize>a << 2), 4);
  const bStart = load<i32>(offsets + (<usize>b << 2));
  const bEnd = load<i32>(offsets + (<usize>b << 2), 4);
  let i = aStart;
  let j = bStart;
  while (true) {
    // Non-digit run, case-folded; a run that ends first (equal so far) sorts first.
    while (true) {
      const ua = i < aEnd ? unitAt(units, i) : 48;
      const ub = j < bEnd ? unitAt(units, j) : 48;
      const aIn = !isDigit(ua);
      const bIn = !isDigit(ub);
      if (!aIn || !bIn) {
        if (aIn) return 1;
        if (bIn) return -1;
        break;
      }
      const ca = foldCase(ua);
      const cb = foldCase(ub);
      if (ca != cb) return ca - cb;
      i++;
      j++;
    }
    const aDone = i == aEnd;
    const bDone = j == bEnd;
    if (aDone || bDone) {
      if (aDone && !bDone) return -1;
      if (bDone && !aDone) return 1;
      break;
    }
    // Digit run: skip leading zeros, then the longer run is larger, else the first differing digit decides.
    while (i < aEnd && unitAt(units, i) == 48) i++;
    while (j < bEnd && unitAt(units, j) == 48) j++;
    let firstDiff: i32 = 0;
    while (true) {
      const ua = i < aEnd ? unitAt(units, i) : 0;
      const ub = j < bEnd ? unitAt(units, j) : 0;
      const aIn = isDigit(ua);
      const bIn = isDigit(ub);
      if (!aIn || !bIn) {
        if (aIn) return 1;
        if (bIn) return -1;
        break;
      }
      if (firstDiff == 0) firstDiff = ua - ub;
      i++;
      j++;
    }
    if (firstDiff != 0) return firstDiff;
    if (i == aEnd || j == bEnd) {
      if (i == aEnd && j != bEnd) return -1;
      if (j == bEnd && i != aEnd) return 1;
      break;
    }
  }
  // Equal keys: plain code-unit order, then position.
  const la = aEnd - aStart;
  const lb = bEnd - bStart;
  const m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) {
    const d = unitAt(units, aStart + k) - unitAt(units, bStart + k);
    if (d != 0) return d;
  }
  if (la != lb) return la - lb;
  return a - b;
}

/**
 * An order-preserving 64-bit prefix of an ID's natural key: when two prefixes differ, they order the
 * IDs as compareNatural does; when they are equal, nothing is known. Top down, eight 8-bit slots hold
 * the first non-digit run (case-folded unit + 1; 0 where the run ends, so a shorter run sorts first;
 * 255 for a unit above 253, after which nothing more is encoded). Below the run's end: 0 if the ID
 * ends there, else 1, the digit run's length without leading zeros (5 bits, 31 = 31 or more) and, when
 * shorter than 31, its first significant digits as a decimal number, as many as fit.
 */
function sortKey(units: usize, start: i32, end: i32): u64 {
  let key: u64 = 0;
  let slot: i32 = 0;
  let i = start;
  while (slot < 8 && i < end) {
    const u = unitAt(units, i);
    if (isDigit(u)) break;
    const c = foldCase(u);
    const shift = <u64>(56 - slot * 8);
    if (c >= 254) return key | ((<u64>255) << shift);
    key |= (<u64>(c + 1)) << shift;
    slot++;
    i++;
  }
  // A run of 8 or more units: the rest is unknown. Slot `slot` stays 0 (the run's end).
  const tailBits = 56 - slot * 8;
  if (slot == 8 || i >= end || tailBits < 6) return key;
  let z = i;
  while (z < end && unitAt(units, z) == 48) z++;
  let e = z;
  while (e < end && isDigit(unitAt(units, e))) e++;
  const significant = e - z;
  const valueBits = tailBits - 6;
  let tail: u64 = 32 | <u64>(significant < 31 ? significant : 31);
  let value: u64 = 0;
  if (significant < 31) {
    // The first d significant digits (zero-padded), for the largest d with 10^d <= 2^valueBits.
    const room: u64 = (<u64>1) << <u64>valueBits;
    let scale: u64 = 10;
    for (let k: i32 = 0; scale <= room; k++) {
      value = value * 10 + (k < significant ? <u64>(unitAt(units, z + k) - 48) : 0);
      scale *= 10;
    }
  }
  tail = (tail << <u64>valueBits) | value;
  return key | tail;
}

// @ts-ignore: decorator
@inline function ordered(units: usize, offsets: usize, keys: usize, a: i32, b: i32): bool {
  const ka = load<u64>(keys + (<usize>a << 3));
  const kb = load<u64>(keys + (<usize>b << 3));
  if (ka != kb) return ka < kb;
  return compareNatural(units, offsets, a, b) <= 0;
}

/**
 * Writes the natural-order permutation of `count` IDs to `out` (i32 each). `units` holds the IDs'
 * UTF-16 code units back to back, `offsets` count + 1 i32 bounds, `scratch` room for count i32,
 * `keys` room for count u64 (each ID's sortKey: most comparisons end there without reading the IDs).
 * Bottom-up merge sort: O(n log n) comparisons, no allocation.
 */
export function naturalOrder(units: usize, offsets: usize, count: i32, out: usize, scratch: usize, keys: usize): void {
  for (let k = 0; k < count; k++) {
    store<i32>(out + (<usize>k << 2), k);
    store<u64>(keys + (<usize>k << 3), sortKey(units, load<i32>(offsets + (<usize>k << 2)), load<i32>(offsets + (<usize>k << 2), 4)));
  }
  // Insertion-sort runs of 8 first: fewer passes, good on short lists.
  const RUN = 8;
  for (let lo = 0; lo < count; lo += RUN) {
    const hi = lo + RUN < count ? lo + RUN : count;
    for (let k = lo + 1; k < hi; k++) {
      const v = load<i32>(out + (<usize>k << 2));
      let p = k - 1;
      while (p >= lo) {
        const w = load<i32>(out + (<usize>p << 2));
        if (ordered(units, offsets, keys, w, v)) break;
        store<i32>(out + (<usize>(p + 1) << 2), w);
        p--;
      }
      store<i32>(out + (<usize>(p + 1) << 2), v);
    }
  }
  let src = out;
  let dst = scratch;
  for (let width = RUN; width < count; width <<= 1) {
    for (let lo = 0; lo < count; lo += width << 1) {
      const mid = lo + width < count ? lo + width : count;
      const hi = lo + (width << 1) < count ? lo + (width << 1) : count;
      let p = lo;
      let q = mid;
      let k = lo;
      while (p < mid && q < hi) {
        const x = load<i32>(src + (<usize>p << 2));
        const y = load<i32>(src + (<usize>q << 2));
        if (ordered(units, offsets, keys, x, y)) {
          store<i32>(dst + (<usize>k << 2), x);
          p++;
        } else {
          store<i32>(dst + (<usize>k << 2), y);
          q++;
        }
        k++;
      }
      if (p < mid) memory.copy(dst + (<usize>k << 2), src + (<usize>p << 2), <usize>(mid - p) << 2);
      else if (q < hi) memory.copy(dst + (<usize>k << 2), src + (<usize>q << 2), <usize>(hi - q) << 2);
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src != out) memory.copy(out, src, <usize>count << 2);
}
