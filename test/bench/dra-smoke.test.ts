// The DRA benchmark harness on a tiny cluster (quick mode): every row is there with the answer the
// workload must give (the first node on an empty or half-full cluster, unschedulable when full,
// the 7 devices other than device-1 in the backtracking fixture, unschedulable for the infeasible
// family), one allocator run per scheduled claim and none when full, the JSON written as
// returned, and the targets judged. No timing assertions: speed is measured by npm run bench:dra.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DraBenchRow, evaluateDraTargets, formatDraTable, runDraBench } from '../../bench/dra.bench.js';
import { DRA_MODES } from '../../src/dra/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-dra-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench:dra (quick, 20 and 40 nodes)', () => {
  it('writes every row with the expected answers, the machine and the targets', async () => {
    const out = join(dir, 'dra-results.json');
    const report = await runDraBench({ quick: true, out, nodes: [20, 40] });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    expect(report.machine.cores).toBeGreaterThan(0);
    const scheduler = report.rows.filter((r) => r.family === 'scheduler');
    expect(scheduler.map((r) => [r.nodes, r.fill, r.mode])).toEqual([20, 40].flatMap((n) => (['empty', 'half', 'full'] as const).flatMap((f) => DRA_MODES.map((m) => [n, f, m]))));
    for (const r of scheduler) {
      expect(r.outcome, r.name).toBe(r.fill === 'full' ? 'unschedulable' : 'node-0');
      expect(r.triesPerClaim, r.name).toBe(r.fill === 'full' ? 0 : 1);
      expect(r.setupMs).toBeGreaterThan(0);
    }
    for (const r of report.rows.filter((x) => x.family === 'backtracking')) expect(r.outcome).toBe('device-2,device-3,device-4,device-5,device-6,device-7,device-8');
    const infeasible = report.rows.filter((r) => r.family === 'infeasible');
    expect(infeasible.map((r) => [r.n, r.prepared === true])).toEqual(
      [8, 16, 24, 32, 48, 64].flatMap((n) => [
        [n, false],
        [n, true],
        [n, false],
        [n, true],
      ]),
    );
    for (const r of [...report.rows]) {
      expect(r.opsPerSec).toBeGreaterThan(0);
      expect(r.p99Us).toBeGreaterThanOrEqual(r.p50Us);
    }
    for (const r of infeasible) expect(r.outcome).toBe('unschedulable');
    expect(report.targets.map((t) => t.met)).toEqual([expect.any(Boolean), null, null]);
    expect(formatDraTable(report)).toMatch(/scheduler\s+20 nodes × 10, empty\s+scored/);
  }, 120_000);

  it('judges the targets from the rows', () => {
    const row = (over: Partial<DraBenchRow>): DraBenchRow => ({
      family: 'scheduler',
      name: '',
      mode: 'first-fit',
      opsPerSec: 1,
      opsPerSecMedian: 1,
      p50Us: 1,
      p99Us: 1,
      samples: 1,
      outcome: '',
      ...over,
    });
    const rows = [
      row({ nodes: 500, fill: 'empty', p50Us: 10, opsPerSecMedian: 100_000 }),
      row({ nodes: 5000, fill: 'empty', p50Us: 25, opsPerSecMedian: 40_000, opsPerSec: 3_000 }),
      row({ family: 'infeasible', n: 64, p50Us: 1500, outcome: 'unschedulable', prepared: true }),
      row({ family: 'infeasible', n: 64, p50Us: 3000, outcome: 'unschedulable' }),
    ];
    const [infeasible, throughput, scaling] = evaluateDraTargets(rows);
    expect(infeasible.met).toBe(false);
    expect(infeasible.detail).toMatch(/n=64 first-fit 1\.50 ms; end to end .*slowest 3000 µs/);
    expect(throughput.met).toBe(true);
    expect(scaling.met).toBe(false);
    expect(scaling.detail).toMatch(/empty first-fit 2\.50×/);
  });
});
