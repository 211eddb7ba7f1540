// Core faults in the middle of each capability's kernel call: the kernel export is swapped for one
// that traps for real (debugTrap: unreachable, out-of-bounds load, out of memory) before or after the
// kernel ran on the marshaled input. The call is AllocationError('INTERNAL'), the core restarts, and
// the next valid call of every capability matches the ts baseline.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Engine, openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { alignedRequest, clusterInit, placementRequest, replicaRequest, sortIds, splitRequest } from '../support/fuzz/requests.js';

const ts = await openEngine({ backend: 'ts' });

type Capability = { name: string; kernels: string[]; valid: fc.Arbitrary<unknown>; call: (e: Engine, input: never) => unknown };

const capabilities: Capability[] = [
  { name: 'naturalSort', kernels: ['naturalOrder'], valid: sortIds.filter((ids) => ids.length > 0), call: (e, ids) => e.naturalSort(ids) },
  { name: 'splitDevices', kernels: ['naturalOrder'], valid: splitRequest.filter((r) => r.devices.cuda.length > 0), call: (e, r) => e.splitDevices(r) },
  {
    name: 'allocateReplicas',
    kernels: ['pickReplicas', 'naturalOrder'],
    valid: replicaRequest.filter((r) => r.size > (r.required?.length ?? 0) && r.available!.length >= r.size),
    call: (e, r) => e.allocateReplicas(r),
  },
  {
    name: 'allocateAligned',
    kernels: ['alignedTopology', 'alignedBestEffort', 'loadPairScores'],
    valid: alignedRequest.filter((r) => r.available!.length >= r.size && r.size > 1),
    call: (e, r) => e.allocateAligned(r),
  },
  { name: 'planPlacement', kernels: ['placementSearch'], valid: placementRequest, call: (e, r) => e.planPlacement(r) },
  {
    name: 'ClusterState.plan',
    kernels: ['placementSearch', 'clusterSearch'],
    valid: clusterInit,
    call: (e, init) => e.createClusterState(init).plan({ memory: 2 ** 30, tensorParallelSizes: [1, 2] }),
  },
];

/** Makes every listed kernel export trap (kind) on its next call, before or after running for real. */
function armTrap(engine: Engine, kernels: string[], kind: 0 | 1 | 2, after: boolean): void {
  const core = engine.core!;
  const real = core.exports;
  const patched: Record<string, unknown> = { ...real };
  for (const name of kernels) {
    const fn = real[name] as (...args: number[]) => number;
    patched[name] = (...args: number[]) => {
      if (after) fn(...args);
      return real.debugTrap(kind);
    };
  }
  core.exports = patched as typeof core.exports;
}

/** A result or an error code, comparable across backends. */
function outcome(fn: () => unknown): string {
  try {
    return JSON.stringify(fn());
  } catch (error) {
    if (error instanceof AllocationError) return `error ${error.code}`;
    throw error;
  }
}

describe('a trap in the middle of each capability’s kernel call', () => {
  for (const cap of capabilities) {
    it(`${cap.name}: INTERNAL, the core restarts, then every capability answers as ts`, async () => {
      const wasm = await openEngine({ backend: 'wasm' });
      const samples = fc.sample(fc.tuple(cap.valid, fc.constantFrom(0 as const, 1 as const, 2 as const), fc.boolean()), { seed: 42, numRuns: 12 });
      let trapped = 0;
      for (const [input, kind, after] of samples) {
        const restarts = wasm.core!.restarts;
        armTrap(wasm, cap.kernels, kind, after);
        const first = outcome(() => cap.call(wasm, input as never));
        // Some valid inputs never reach a kernel (nothing to search): then nothing trapped and the result is correct.
        if (first.startsWith('error')) {
          expect(first).toBe('error INTERNAL');
          expect(wasm.core!.restarts).toBe(restarts + 1);
          trapped++;
        } else {
          expect(first).toBe(outcome(() => cap.call(ts, input as never)));
          // The patched exports are still in place: a forced trap restarts the core with clean exports.
          try {
            wasm._debugTrap(0);
          } catch {
            // restarted clean
          }
        }
        // After the fault: every capability, on fresh valid input, matches the ts baseline.
        for (const other of capabilities) {
          const [next] = fc.sample(other.valid, { seed: trapped + kind, numRuns: 1 });
          expect(
            outcome(() => other.call(wasm, next as never)),
            `${other.name} after a trap in ${cap.name}`,
          ).toBe(outcome(() => other.call(ts, next as never)));
        }
      }
      expect(trapped, 'the trap fired in most runs').toBeGreaterThan(samples.length / 2);
    });
  }

  it('a trap while planning leaves a ClusterState unchanged and usable', async () => {
    const wasm = await openEngine({ backend: 'wasm' });
    const init = { nodes: [{ id: 'n1', gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 80 * 2 ** 30 })), topology: { gpus: 4, links: [{ a: 0, b: 1, nvlink: 4 }] } }] };
    const sw = wasm.createClusterState(init);
    const st = ts.createClusterState(init);
    sw.commit(sw.plan({ memory: 100 * 2 ** 30 }).options[0]);
    st.commit(st.plan({ memory: 100 * 2 ** 30 }).options[0]);
    const before = JSON.stringify(sw.toJSON());
    armTrap(wasm, ['placementSearch', 'clusterSearch'], 1, true);
    expect(outcome(() => sw.plan({ memory: 50 * 2 ** 30 }))).toBe('error INTERNAL');
    expect(JSON.stringify(sw.toJSON())).toBe(before);
    expect(sw.plan({ memory: 50 * 2 ** 30 })).toEqual(st.plan({ memory: 50 * 2 ** 30 }));
    expect(sw.commit(sw.plan({ memory: 50 * 2 ** 30 }).options[0])).toBe(st.commit(st.plan({ memory: 50 * 2 ** 30 }).options[0]));
    expect(sw.toJSON()).toEqual(st.toJSON());
  });
});
