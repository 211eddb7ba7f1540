// The bench counts each case's kernel calls on its warm-up call; a case where neither backend called
// a kernel (the same TypeScript answered on both) is a tie by construction in the targets, never
// "slower" and never a "search". No timing assertions.
import { describe, expect, it } from 'vitest';
import { runBench } from '../bench/run.js';
import { evaluateTargets } from '../bench/targets.js';
import { formatTable } from '../bench/table.js';
import type { CaseResult, Timing } from '../bench/harness.js';

const timing = (medianUs: number): Timing => ({ opsPerSec: 1e6 / medianUs, medianUs, p99Us: medianUs, rme: 1, samples: 10 });

function row(family: string, name: string, wasmUs: number, tsUs: number, calls?: number): CaseResult {
  const r: CaseResult = { family, name, unit: 'op', backends: { wasm: timing(wasmUs), ts: timing(tsUs) }, wasmOverTs: tsUs / wasmUs, wasmOverTsMean: tsUs / wasmUs, reference: null };
  if (calls !== undefined) r.kernelCalls = { wasm: calls, ts: calls };
  return r;
}

describe('bench: ties by construction', () => {
  it('a row without kernel calls is a tie, not slower and not a search; a row with kernel calls is judged as before', () => {
    const wasm = { releaseBytes: 1000, limitBytes: 65536, pagesAfterWarmup: 2, pagesAfterSuite: 2 };
    const ties = [row('aligned', '16 GPUs (dgx2) topology size=1', 3.6, 3.5, 0), row('placement', '16 GPUs (dgx2), 20 slots, TP 1', 12.3, 12.0, 0)];
    const searches = [row('aligned', '16 GPUs (dgx2) topology size=8', 100, 450, 1), row('placement', '16 GPUs (dgx2), 20 slots, TP 8', 140, 800, 1)];
    const [, every, sixteen] = evaluateTargets({ workloads: [...ties, ...searches], wasm });
    expect(every.met).toBe(true);
    expect(every.detail).toMatch(/tie \(no kernel call\) on 2/);
    expect(sixteen.met).toBe(true);
    expect(sixteen.detail).toMatch(/^all 2 .*not searches, tie \(no kernel call\) on 2/);

    // The same rows with a kernel call (or not counted) are judged on their ratio.
    const counted = [row('aligned', '16 GPUs (dgx2) topology size=1', 3.6, 3.5, 1), row('placement', '16 GPUs (dgx2), 20 slots, TP 1', 12.3, 12.0), ...searches];
    const [, every2, sixteen2] = evaluateTargets({ workloads: counted, wasm });
    expect(every2.met).toBe(false);
    expect(every2.detail).toMatch(/^slower on 2 of 4/);
    expect(sixteen2.met).toBe(false);
    expect(sixteen2.detail).toMatch(/^below on 2 of 4/);
  });

  it('counts kernel calls on the warm-up call: none where placement finds no GPU for any share, some where it searches', async () => {
    const report = await runBench({ quick: true, only: ['placement'], out: null });
    const byName = new Map(report.workloads.map((w) => [w.name, w]));
    // 48 GiB over 16 GPUs of 32 GB at TP 1 and 96 GiB over 80 GB GPUs: no GPU can take the share.
    for (const name of ['16 GPUs (dgx2), 20 slots, TP 1', '8 GPUs (dgx-a100), 20 slots, TP 1']) expect(byName.get(name)?.kernelCalls).toEqual({ wasm: 0, ts: 0 });
    for (const name of ['16 GPUs (dgx2), 20 slots, TP 4', '8 GPUs (dgx-a100), 20 slots, TP 8']) expect(byName.get(name)?.kernelCalls).toEqual({ wasm: 1, ts: 1 });
    expect(formatTable(report)).toMatch(/=: no kernel call on either backend/);
  });
});
