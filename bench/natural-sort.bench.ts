// Workload 1: natural sort of 10^3 and 10^5 mixed device IDs (cuda12, nvme0n1p3, UUID-like).
import type { Suite } from './harness.js';
import { mixedDeviceIds } from './inputs.js';

/** Natural sort suite. */
export const suite: Suite = {
  family: 'natural-sort',
  description: 'engine.naturalSort over mixed device IDs (cuda12, nvme0n1p3, GPU-/MIG- UUIDs, replicas)',
  cases({ engines }) {
    return [1_000, 100_000].map((n) => {
      const ids = mixedDeviceIds(n);
      return {
        family: 'natural-sort',
        name: `${n === 1000 ? '10^3' : '10^5'} mixed IDs`,
        run: { wasm: () => engines.wasm.naturalSort(ids), ts: () => engines.ts.naturalSort(ids) },
        limits: n >= 100_000 ? { iterations: 5 } : undefined,
      };
    });
  },
};
