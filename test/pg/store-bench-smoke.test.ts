// bench/store.bench.ts still runs: a quick pass gives a row per store and writer count, every
// commit landed (the rounds release what they commit), and its numbers are consistent.
import { describe, expect, it } from 'vitest';
import { runStoreBench } from '../../bench/store.bench.js';
import { noPg } from './pg-context.js';

describe.skipIf(noPg)('store bench', () => {
  it('quick run: memory, file and postgres rows for 1, 4 and 8 writers', async () => {
    const { rows, notes } = await runStoreBench({ quick: true, out: null });
    expect(notes).toEqual([]);
    expect(rows.map((r) => `${r.store} ${r.writers}`)).toEqual(['memory 1', 'memory 4', 'memory 8', 'file 1', 'file 4', 'file 8', 'postgres 1', 'postgres 4', 'postgres 8']);
    for (const r of rows) {
      expect(r.commits + r.failures).toBe(r.writers * 10 * r.rounds);
      expect(r.commitsPerSecond).toBeGreaterThan(0);
      expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
    }
    // One writer never races anyone.
    expect(rows.filter((r) => r.writers === 1).map((r) => r.conflicts)).toEqual([0, 0, 0]);
  });
});
