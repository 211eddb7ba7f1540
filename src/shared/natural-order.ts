// Natural order of IDs (cuda1 < cuda2 < cuda10): the one comparison every tie-break ends in.
// assembly/natural-sort.ts computes the same keys in the core.

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function foldCase(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** Natural comparison of two IDs (keys only; 0 when the keys are equal). */
export function compareNaturalKeys(a: string, b: string): number {
  const aEnd = a.length;
  const bEnd = b.length;
  let i = 0;
  let j = 0;
  for (;;) {
    let i2 = i;
    while (i2 < aEnd && !isDigit(a.charCodeAt(i2))) i2++;
    let j2 = j;
    while (j2 < bEnd && !isDigit(b.charCodeAt(j2))) j2++;
    const la = i2 - i;
    const lb = j2 - j;
    const m = la < lb ? la : lb;
    for (let k = 0; k < m; k++) {
      const ca = foldCase(a.charCodeAt(i + k));
      const cb = foldCase(b.charCodeAt(j + k));
      if (ca !== cb) return ca - cb;
    }
    if (la !== lb) return la - lb;
    const aDone = i2 === aEnd;
    const bDone = j2 === bEnd;
    if (aDone || bDone) return aDone === bDone ? 0 : aDone ? -1 : 1;
    let i3 = i2;
    while (i3 < aEnd && isDigit(a.charCodeAt(i3))) i3++;
    let j3 = j2;
    while (j3 < bEnd && isDigit(b.charCodeAt(j3))) j3++;
    let za = i2;
    while (za < i3 && a.charCodeAt(za) === 48) za++;
    let zb = j2;
    while (zb < j3 && b.charCodeAt(zb) === 48) zb++;
    const da = i3 - za;
    const db = j3 - zb;
    if (da !== db) return da - db;
    for (let k = 0; k < da; k++) {
      const d = a.charCodeAt(za + k) - b.charCodeAt(zb + k);
      if (d !== 0) return d;
    }
    i = i3;
    j = j3;
    if (i === aEnd || j === bEnd) return i === aEnd && j === bEnd ? 0 : i === aEnd ? -1 : 1;
  }
}

/** Full natural comparison: keys, then plain code-unit order (0 only for identical strings). */
export function compareNatural(a: string, b: string): number {
  const d = compareNaturalKeys(a, b);
  if (d !== 0) return d;
  return a < b ? -1 : a > b ? 1 : 0;
}
