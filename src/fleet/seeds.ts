// The seeds of a set of simulation runs, as `gpualloc simulate --seeds` and the Simulate page take them.

/**
 * Seeds from a range "42..51" (at most `max` seeds) or a list "42,43": integers 0..2^32−1, none given
 * twice (a repeated seed would count one run twice in the mean). Throws an Error whose message starts
 * with `name`.
 */
export function parseSeeds(name: string, text: string, max: number): number[] {
  const t = text.trim();
  const ok = (n: number) => Number.isSafeInteger(n) && n <= 0xffffffff;
  const range = /^(\d+)\.\.(\d+)$/.exec(t);
  if (range) {
    const a = Number(range[1]);
    const b = Number(range[2]);
    if (!ok(a) || !ok(b) || b < a || b - a >= max) throw new Error(`${name}: expected a range A..B with A <= B (at most ${max} seeds), got ${JSON.stringify(text)}`);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }
  const parts = t.split(',').map((s) => s.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || !ok(Number(p)))) throw new Error(`${name}: expected a range 42..51 or a list 42,43, got ${JSON.stringify(text)}`);
  const seeds = parts.map(Number);
  const twice = seeds.find((n, i) => seeds.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`${name}: ${twice} is given twice in ${JSON.stringify(text)}`);
  return seeds;
}
