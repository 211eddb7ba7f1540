// The benchmark harness in quick mode on small families: the report has the documented shape, a
// case's search alone is the kernel call its run makes, and a case where neither backend called a
// kernel (the same TypeScript answered on both) is a tie by construction in the targets, never
// "slower" and never a "search". No timing assertions: speed is measured by `npm run bench`, not by tests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addCaseError, type CaseErrors, type CaseResult, runCase, searchOf, type Timing } from '../../bench/harness.js';
import { type BenchReport, runBench } from '../../bench/run.js';
import { formatTable } from '../../bench/table.js';
import { evaluateTargets } from '../../bench/targets.js';
import { popcount } from '../../src/shared/bits.js';
import { engines } from '../support/engines.js';

const timing = (medianUs: number): Timing => ({ opsPerSec: 1e6 / medianUs, medianUs, p99Us: medianUs, rme: 1, samples: 10 });

function row(family: string, name: string, wasmUs: number, tsUs: number, calls?: number): CaseResult {
  const r: CaseResult = { family, name, unit: 'op', backends: { wasm: timing(wasmUs), ts: timing(tsUs) }, wasmOverTs: tsUs / wasmUs, wasmOverTsMean: tsUs / wasmUs, reference: null };
  if (calls !== undefined) r.kernelCalls = { wasm: calls, ts: calls };
  return r;
}

/** The wasm facts of a report (targets other than the ratios read only these). */
const WASM = { releaseBytes: 1000, limitBytes: 65536, pagesAfterWarmup: 2, pagesAfterSuite: 2 };

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench harness (quick mode, replicas only)', () => {
  it('writes a results.json with timings per backend, the ratio, wasm facts and targets', async () => {
    const out = join(dir, 'results.json');
    const report = await runBench({ quick: true, only: ['replicas'], out });
    const written = JSON.parse(readFileSync(out, 'utf8')) as BenchReport;
    expect(written).toEqual(JSON.parse(JSON.stringify(report)));

    expect(written.schema).toBe(1);
    expect(written.quick).toBe(true);
    expect(typeof written.date).toBe('string');
    expect(written.commit === null || typeof written.commit === 'string').toBe(true);
    expect(written.machine.cores).toBeGreaterThan(0);
    expect(written.workloads.map((w) => w.name)).toEqual(['8×16, 50% taken, size 8, distributed', '8×16, 50% taken, size 8, pack', '8×16, 50% taken, size 8, spread']);
    for (const w of written.workloads) {
      expect(w.family).toBe('replicas');
      expect(w.errors).toBeUndefined();
      for (const b of ['wasm', 'ts'] as const) {
        const t = w.backends[b]!;
        for (const key of ['opsPerSec', 'medianUs', 'p99Us', 'rme', 'samples'] as const) expect(typeof t[key]).toBe('number');
        expect(t.opsPerSec).toBeGreaterThan(0);
        expect(t.p99Us).toBeGreaterThanOrEqual(t.medianUs);
      }
      expect(w.wasmOverTs).toBeCloseTo(w.backends.ts!.medianUs / w.backends.wasm!.medianUs, 9);
      expect(w.wasmOverTsMean).toBeCloseTo(w.backends.wasm!.opsPerSec / w.backends.ts!.opsPerSec, 9);
      expect(w.reference).toBeNull();
    }

    expect(written.wasm.limitBytes).toBe(65536);
    expect(written.wasm.releaseBytes).toBeGreaterThan(0);
    expect(written.wasm.pagesAfterWarmup).toBeGreaterThan(0);
    expect(typeof written.wasm.pagesAfterSuite).toBe('number');
    expect(written.pending).toEqual([]);
    expect(written.targets.map((t) => t.target)).toContain('release wasm ≤ 64 KiB');
    for (const t of written.targets) expect([true, false, null]).toContain(t.met);
    expect(formatTable(report)).toContain('8×16, 50% taken, size 8, spread');
  });

  it("times a case's search alone beside it: both backends, their ratio, a column in the table", async () => {
    const calls = { run: 0, search: 0 };
    const spin = (us: number) => {
      const end = performance.now() + us / 1000;
      while (performance.now() < end);
    };
    const r = await runCase(
      {
        family: 'aligned',
        name: 'fake 16 GPUs search',
        run: { wasm: () => ((calls.run += 1), spin(40)), ts: () => ((calls.run += 1), spin(80)) },
        search: { wasm: () => ((calls.search += 1), spin(10)), ts: () => ((calls.search += 1), spin(50)) },
      },
      true,
    );
    expect(calls.search).toBeGreaterThan(0);
    expect(r.search).toBeDefined();
    const { wasm, ts } = r.search!.backends;
    expect(wasm!.medianUs).toBeGreaterThan(0);
    // Each backend's own search: the wasm one spins 10 µs, the ts one 50 µs.
    expect(wasm!.medianUs).toBeLessThan(ts!.medianUs);
    expect(r.search!.wasmOverTs).toBeCloseTo(ts!.medianUs / wasm!.medianUs, 9);
    const report: BenchReport = {
      schema: 1,
      date: '2026-01-01T00:00:00.000Z',
      quick: true,
      commit: null,
      machine: { cpu: 'test', cores: 1, memoryBytes: 1, node: 'v20', platform: 'linux', arch: 'x64', loadavgStart: [0, 0, 0], loadavgEnd: [0, 0, 0] },
      wasm: WASM,
      workloads: [r],
      pending: [],
      targets: [],
      seconds: 0,
    };
    expect(formatTable(report)).toMatch(/search w \/ ts[\s\S]*fake 16 GPUs search.*µs \/ .*µs \d+\.\d\d×/);
  });

  it("keeps both messages where a backend's run and its search both fail", async () => {
    const fail = (what: string) => () => {
      throw new Error(what);
    };
    const r = await runCase({ family: 'aligned', name: 'failing', run: { wasm: () => 1, ts: fail('run broke') }, search: { wasm: () => 1, ts: fail('search broke') } }, true);
    expect(r.errors?.ts).toMatch(/run broke.*; search: .*search broke/);
    expect(r.errors?.wasm).toBeUndefined();
    const errors: CaseErrors = {};
    addCaseError(errors, 'ts', 'a');
    addCaseError(errors, 'ts', 'b');
    expect(errors).toEqual({ ts: 'a; b' });
  });

  it('rejects an unknown family', async () => {
    await expect(runBench({ quick: true, only: ['no-such-family'], out: null })).rejects.toThrow(/unknown families/);
  });
});

describe('bench: ties by construction', () => {
  it('a row without kernel calls is a tie, not slower and not a search; a row with kernel calls is judged as before', () => {
    const wasm = WASM;
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
    for (const name of ['16 GPUs (dgx2), 20 slots, prepared, TP 1', '8 GPUs (dgx-a100), 20 slots, prepared, TP 1']) expect(byName.get(name)?.kernelCalls).toEqual({ wasm: 0, ts: 0 });
    for (const name of ['16 GPUs (dgx2), 20 slots, prepared, TP 4', '8 GPUs (dgx-a100), 20 slots, prepared, TP 8', '16 GPUs (dgx2), 20 slots, plain objects, TP 4'])
      expect(byName.get(name)?.kernelCalls).toEqual({ wasm: 1, ts: 1 });
    expect(formatTable(report)).toMatch(/=: no kernel call on either backend/);
  });
});

describe('bench: searchOf', () => {
  it('replays the one kernel call a run makes, on copies of its arguments; none where the run makes none', async () => {
    const { wasm, ts } = await engines();
    const gpus = Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * 2 ** 30 }));
    const plan = (memory: number) => ({ wasm: () => wasm.planPlacement({ gpus, memory }), ts: () => ts.planPlacement({ gpus, memory }) });
    const search = searchOf({ wasm, ts }, plan(100 * 2 ** 30))!;
    // planPlacement reuses its scratch arrays: another plan in between must not change the replay.
    plan(300 * 2 ** 30).wasm();
    const coreBuffer = wasm.core!.exports.memory.buffer;
    for (const b of ['wasm', 'ts'] as const) {
      const found = search[b]!() as { count: number; masks: Int32Array };
      expect(found.count).toBe(16);
      // Each backend's replay runs that backend's kernels: the wasm result is a view over the core's memory, the ts one is not.
      expect(found.masks.buffer === coreBuffer, b).toBe(b === 'wasm');
      // 100 GiB needs two GPUs of 80 GiB: every kept candidate is a pair.
      for (let c = 0; c < found.count; c++) expect(popcount(found.masks[2 * c]) + popcount(found.masks[2 * c + 1])).toBe(2);
    }
    // 800 GiB fits no set of 8 GPUs of 80 GiB: answered without a kernel call.
    expect(searchOf({ wasm, ts }, plan(800 * 2 ** 30))).toBeUndefined();
    expect(() => searchOf({ wasm, ts }, { wasm: () => (plan(1).wasm(), plan(2).wasm()), ts: () => plan(1).ts() })).toThrow(/made 2 kernel calls on wasm/);
    // One backend answering without a search where the other searches is a disagreement, whichever it is.
    expect(() => searchOf({ wasm, ts }, { wasm: plan(800 * 2 ** 30).wasm, ts: plan(100 * 2 ** 30).ts })).toThrow(/disagree.*0 on wasm, 1 on ts/);
    expect(() => searchOf({ wasm, ts }, { wasm: plan(100 * 2 ** 30).wasm, ts: plan(800 * 2 ** 30).ts })).toThrow(/disagree.*1 on wasm, 0 on ts/);
  });
});

describe('bench: which rows carry a search column', () => {
  it('placement: the prepared rows whose plan searches, not the plain-object rows or TP 1 where no GPU takes the share; aligned: neither size 1 nor every GPU', async () => {
    const { wasm, ts } = await engines();
    const { suite: placement } = await import('../../bench/placement.bench.js');
    const { suite: aligned } = await import('../../bench/aligned.bench.js');
    const withSearch = async (suite: typeof placement): Promise<Record<string, boolean>> =>
      Object.fromEntries((await suite.cases({ engines: { wasm, ts }, quick: true })).map((c) => [c.name, c.search !== undefined]));
    const p = await withSearch(placement);
    expect(p['16 GPUs (dgx2), 20 slots, prepared, TP 2']).toBe(true);
    expect(p['8 GPUs (dgx-a100), 20 slots, prepared, TP 4']).toBe(true);
    expect(p['16 GPUs (dgx2), 20 slots, prepared, TP 1']).toBe(false);
    expect(p['16 GPUs (dgx2), 20 slots, plain objects, TP 2']).toBe(false);
    const a = await withSearch(aligned);
    expect(a['16 GPUs (dgx2) besteffort size=4']).toBe(true);
    expect(a['16 GPUs (dgx2) topology size=2']).toBe(true);
    expect(a['16 GPUs (dgx2) besteffort size=1']).toBe(false);
    expect(a['8 GPUs (dgx1-volta) topology size=8']).toBe(false);
  });
});
