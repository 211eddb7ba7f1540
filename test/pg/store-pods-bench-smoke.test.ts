// bench/store-pods.bench.ts still runs: a quick pass gives an A/B pair (slots_within_node on, off) per
// workload and writer count, every commit counted, and its numbers are consistent.
import { describe, expect, it } from 'vitest';
import { runPodStoreBench } from '../../bench/store-pods.bench.js';
import { noPg } from './pg-context.js';

describe.skipIf(noPg)('pod store bench', () => {
  it('quick run: models and pods, trigger on and off, 1 and 8 writers', async () => {
    const { rows, notes } = await runPodStoreBench({ quick: true, out: null });
    expect(notes).toEqual([]);
    expect(rows.map((r) => `${r.workload} ${r.writers} ${r.trigger ? 'on' : 'off'}`)).toEqual([
      'models 1 on',
      'models 1 off',
      'models 8 on',
      'models 8 off',
      'pods 1 on',
      'pods 1 off',
      'pods 8 on',
      'pods 8 off',
    ]);
    for (const r of rows) {
      expect(r.commits + r.failures).toBe(r.writers * 6 * r.rounds);
      expect(r.commits).toBeGreaterThan(0);
      expect(r.p50Ms).toBeGreaterThan(0);
      expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
    }
    // One writer never races anyone: every commit lands at once.
    expect(rows.filter((r) => r.writers === 1).map((r) => [r.conflicts, r.failures])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });
});
