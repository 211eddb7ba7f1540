// The benchmark harness in quick mode on one small family: the report has the documented shape.
// No timing assertions: speed is measured by `npm run bench`, not by tests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchReport } from '../bench/run.js';
import { formatTable } from '../bench/table.js';
import { runCase } from '../bench/harness.js';

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
    expect(written.workloads.map((w) => w.name)).toEqual(['8×16, 50% taken, size 8, distributed', '8×16, 50% taken, size 8, packed', '8×16, 50% taken, size 8, spread']);
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

  it('times a case\'s search alone beside it: both backends, their ratio, a column in the table', async () => {
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
    expect(r.search!.wasmOverTs).toBeCloseTo(ts!.medianUs / wasm!.medianUs, 9);
    const report = { ...(await runBench({ quick: true, only: ['replicas'], out: null })), workloads: [r] };
    expect(formatTable(report)).toMatch(/search w \/ ts[\s\S]*fake 16 GPUs search.*µs \/ .*µs \d+\.\d\d×/);
  });

  it('rejects an unknown family', async () => {
    await expect(runBench({ quick: true, only: ['no-such-family'], out: null })).rejects.toThrow(/unknown families/);
  });
});
