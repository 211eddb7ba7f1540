// simulateFleetAsync: the same run as simulateFleet, without holding the event loop (a timer fires
// while it runs), and stopped at the next slice once its signal aborts, rejecting with an AbortError.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { AllocationError } from '../../src/shared/errors.js';
import type { SimulateRequest } from '../../src/simulation/index.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const podsFile = join(ROOT, 'data/openb/openb_pod_list_default.csv');
const request: SimulateRequest = {
  nodes: parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')).slice(0, 200),
  pods: parsePodCsv(podsFile, readFileSync(podsFile, 'utf8')),
  policy: 'fgd',
  seed: 7,
  fragmentation: true,
};

describe('simulateFleetAsync', () => {
  it('gives the same run as simulateFleet on both backends', async () => {
    for (const engine of Object.values(await engines())) {
      const sync = engine.simulateFleet(request);
      const async = await engine.simulateFleetAsync(request);
      expect(async).toEqual(sync);
      expect(async.pods).toBeGreaterThan(1000);
    }
  });

  it('lets a timer fire while it runs: ticks land between pods, not only after the last', async () => {
    const { ts } = await engines();
    let done = 0;
    let total = 0;
    const seenAtTicks: number[] = [];
    const timer = setInterval(() => seenAtTicks.push(done), 1);
    try {
      await ts.simulateFleetAsync(request, { onProgress: (d, t) => ((done = d), (total = t)) });
    } finally {
      clearInterval(timer);
    }
    expect(total).toBeGreaterThan(0);
    expect(seenAtTicks.some((d) => d > 0 && d < total)).toBe(true);
  });

  it('rejects with an AbortError at the next slice once aborted, and attempts no pod after that', async () => {
    const { wasm } = await engines();
    const controller = new AbortController();
    let done = 0;
    let atAbort = -1;
    let total = 0;
    // The whole trace's 1,213 nodes: a run of many slices even on a warm core (200 nodes can finish
    // within the first 20 ms slice, before the timer fires).
    const run = wasm.simulateFleetAsync(
      { ...request, nodes: parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')) },
      {
        signal: controller.signal,
        onProgress: (d, t) => {
          done = d;
          total = t;
        },
      },
    );
    // Abort from a timer: it can only fire between slices, so the run must have yielded.
    setTimeout(() => {
      atAbort = done;
      controller.abort();
    }, 0);
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    expect(atAbort).toBeGreaterThanOrEqual(0);
    expect(atAbort).toBeLessThan(total);
    expect(done).toBe(atAbort);
  });

  it("rejects at once with an already aborted signal, and with the signal's own reason", async () => {
    const { ts } = await engines();
    let calls = 0;
    const aborted = AbortSignal.abort();
    await expect(ts.simulateFleetAsync(request, { signal: aborted, onProgress: () => calls++ })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toBe(0);
    const reason = new Error('deadline');
    await expect(ts.simulateFleetAsync(request, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('rejects a misspelt option with a did-you-mean, and a progress that is not a function', async () => {
    const { ts } = await engines();
    const misspelt = await ts.simulateFleetAsync(request, { onProgres: () => undefined } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(misspelt).toBeInstanceOf(AllocationError);
    expect((misspelt as AllocationError).message).toBe('options.onProgres: unknown field (did you mean onProgress? allowed: signal, onProgress)');
    await expect(ts.simulateFleetAsync(request, { onProgress: 3 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
