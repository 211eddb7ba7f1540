// RunProgress: the share of a set of runs done (each run weighs the same), the pace and the time
// left, and a report at most once per interval, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { formatDuration, RunProgress } from '../../src/fleet/progress.js';

describe('RunProgress', () => {
  it('reports after each interval, never twice within one, with the share done and the time left', () => {
    let now = 1000;
    const p = new RunProgress(2, 500, () => now);
    const due: number[] = [];
    // Run 0: 1,000 pods, one per millisecond.
    for (let i = 1; i <= 1000; i++) {
      now++;
      if (p.pod(0, i, 1000)) due.push(i);
    }
    // The clock is read every 64 pods (and at a run's last pod): a report at the first read 500 ms on
    // (pod 512, at 1,512 ms), none at the run's last pod (1,000 ms later only at 2,012).
    expect(due).toEqual([512]);
    const s = p.snapshot();
    expect(s.fraction).toBe(0.5);
    expect(s.elapsedMs).toBe(1000);
    expect(s.leftMs).toBe(1000);
    expect(s.podsPerSecond).toBe(1000);
    // Run 1 halfway: three quarters of the set; the next report at the first read past 2,012 ms (attempt 1,024).
    const due1: number[] = [];
    for (let i = 1; i <= 500; i++) {
      now++;
      if (p.pod(1, i, 1000)) due1.push(i);
    }
    expect(due1).toEqual([24]);
    expect(p.snapshot()).toMatchObject({ run: 1, runs: 2, done: 500, total: 1000, fraction: 0.75, leftMs: 500 });
  });

  it('before any pod: nothing done, the time left unknown', () => {
    const p = new RunProgress(3, 100, () => 0);
    expect(p.snapshot()).toMatchObject({ fraction: 0, podsPerSecond: 0 });
    expect(p.snapshot().leftMs).toBeNaN();
  });

  it('formats durations for a progress line', () => {
    expect([formatDuration(950), formatDuration(12_400), formatDuration(185_000), formatDuration(NaN)]).toEqual(['950 ms', '12 s', '3 min 05 s', '?']);
  });
});
