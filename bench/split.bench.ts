// Workload 2: multi-agent split, 64 agents over a host of 512 CPUs, 16 GPUs and its memory.
import type { Suite } from './harness.js';
import { splitRequest } from './inputs.js';

/** Multi-agent split suite. */
export const suite: Suite = {
  family: 'split',
  description: 'engine.splitDevices auto-split: 64 agents over 512 CPUs, 16 GPUs (with slots) and shared memory',
  cases({ engines }) {
    const request = splitRequest(64, 512, 16);
    return [
      {
        family: 'split',
        name: '64 agents / 512 CPUs, 16 GPUs, mem',
        run: { wasm: () => engines.wasm.splitDevices(request), ts: () => engines.ts.splitDevices(request) },
      },
    ];
  },
};
