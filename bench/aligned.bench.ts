// Workload 4: allocateAligned on a DGX-1 Volta (8 GPUs, hybrid cube mesh) and a 16-GPU NVSwitch node
// (preset dgx2), sizes 1, 2, 3, 4, 8, each policy, every GPU available; the upstream reference is the
// port of go-gpuallocator's BestEffort partition enumeration in bench/reference/gpuallocator.ts.
import type { Case, Suite } from './harness.js';
import { presetTopology } from './inputs.js';
import type { AlignedPolicy, AlignedRequest } from '../src/aligned.js';

/** The two nodes. */
export const ALIGNED_NODES = [
  { label: '8 GPUs (dgx1-volta)', preset: 'dgx1-volta' },
  { label: '16 GPUs (dgx2)', preset: 'dgx2' },
] as const;

/** Sizes timed on each node. */
export const ALIGNED_SIZES: readonly number[] = [1, 2, 3, 4, 8];

/** Policies timed. */
export const ALIGNED_POLICIES: readonly AlignedPolicy[] = ['besteffort', 'topology'];

/** Aligned suite. */
export const suite: Suite = {
  family: 'aligned',
  description: 'engine.allocateAligned, all GPUs available, vs the upstream BestEffort enumeration',
  cases({ engines }) {
    const cases: Case[] = [];
    for (const node of ALIGNED_NODES) {
      const topology = presetTopology(node.preset);
      const available = Array.from({ length: topology.gpus }, (_, k) => k);
      for (const size of ALIGNED_SIZES) {
        for (const policy of ALIGNED_POLICIES) {
          const request: AlignedRequest = { topology, available, size, policy };
          cases.push({
            family: 'aligned',
            name: `${node.label} ${policy} size=${size}`,
            run: { wasm: () => engines.wasm.allocateAligned(request), ts: () => engines.ts.allocateAligned(request) },
          });
        }
      }
    }
    return cases;
  },
};
