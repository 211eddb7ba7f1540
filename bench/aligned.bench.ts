// Workload 4: allocateAligned on a DGX-1 Volta (8 GPUs, hybrid cube mesh) and a 16-GPU NVSwitch node
// (preset dgx2), sizes 1, 2, 3, 4, 8, each policy, every GPU available. The upstream reference (for
// besteffort) is the port of go-gpuallocator's partition enumeration in bench/reference/gpuallocator.ts;
// where its full run would take seconds to minutes, a bounded prefix of its partitions is timed and
// scaled to the full partition count.

import type { AlignedPolicy, AlignedRequest } from '../src/devices/aligned.js';
import { pairScoreMatrix } from '../src/hardware/topology.js';
import { binomial } from '../src/shared/bits.js';
import { type Case, type ReferenceSpec, type Suite, searchOf } from './harness.js';
import { presetTopology } from './inputs.js';
import { bestEffortReference } from './reference/gpuallocator.js';

/** The two nodes. */
export const ALIGNED_NODES = [
  { label: '8 GPUs (dgx1-volta)', preset: 'dgx1-volta' },
  { label: '16 GPUs (dgx2)', preset: 'dgx2' },
] as const;

/** Sizes timed on each node. */
export const ALIGNED_SIZES: readonly number[] = [1, 2, 3, 4, 8];

/** Policies timed. */
export const ALIGNED_POLICIES: readonly AlignedPolicy[] = ['besteffort', 'topology'];

/** Above this many partitions the reference is sampled and extrapolated instead of run in full. */
export const REFERENCE_FULL_RUN_LIMIT = 20_000;

/** Partitions timed per sample when extrapolating (quick mode: a tenth). */
export const REFERENCE_SAMPLE_PARTITIONS = 200_000;

const REFERENCE_NAME = 'go-gpuallocator BestEffort (partition enumeration, port)';

function _factorial(n: number): number {
  let f = 1;
  for (let k = 2; k <= n; k++) f *= k;
  return f;
}

/** Partitions of m items into m/k unordered groups of k. */
function _groupings(m: number, k: number): number {
  const groups = m / k;
  return Math.round(_factorial(m) / (_factorial(k) ** groups * _factorial(groups)));
}

/**
 * Partitions the reference enumerates for `n` available GPUs and groups of `size`: upstream pads the
 * list to a multiple of `size` with empty slots that all land in one group (2,027,025 / 22,422,400 /
 * 2,627,625 at n = 16, sizes 2 / 3 / 4).
 */
export function referencePartitions(n: number, size: number): number {
  const padding = (size - (n % size)) % size;
  if (padding === 0) return _groupings(n, size);
  const real = size - padding;
  return binomial(n, real) * _groupings(n - real, size);
}

function _reference(matrix: Int32Array, gpus: number, available: number[], size: number, quick: boolean): ReferenceSpec {
  const total = referencePartitions(available.length, size);
  if (total <= REFERENCE_FULL_RUN_LIMIT) return { name: REFERENCE_NAME, method: 'measured', fn: () => bestEffortReference(matrix, gpus, available, [], size) };
  const limit = quick ? REFERENCE_SAMPLE_PARTITIONS / 10 : REFERENCE_SAMPLE_PARTITIONS;
  return {
    name: REFERENCE_NAME,
    method: 'extrapolated',
    warmup: () => bestEffortReference(matrix, gpus, available, [], size, { maxPartitions: limit / 10 }),
    repeat: 3,
    sample: () => {
      const r = bestEffortReference(matrix, gpus, available, [], size, { maxPartitions: limit });
      return { done: r.partitions, total, unit: 'partitions' };
    },
  };
}

/** Aligned suite. */
export const suite: Suite = {
  family: 'aligned',
  description: 'engine.allocateAligned, all GPUs available; besteffort also vs the upstream BestEffort enumeration',
  cases({ engines, quick }) {
    const cases: Case[] = [];
    for (const node of ALIGNED_NODES) {
      const topology = presetTopology(node.preset);
      const matrix = pairScoreMatrix(topology);
      const available = Array.from({ length: topology.gpus }, (_, k) => k);
      for (const size of ALIGNED_SIZES) {
        for (const policy of ALIGNED_POLICIES) {
          const request: AlignedRequest = { topology, available, size, policy };
          const run = { wasm: () => engines.wasm.allocateAligned(request), ts: () => engines.ts.allocateAligned(request) };
          cases.push({
            family: 'aligned',
            name: `${node.label} ${policy} size=${size}`,
            run,
            // The kernel call allocateAligned makes (none for size 1 or size = every GPU: answered without a search).
            search: searchOf(engines, run),
            reference: policy === 'besteffort' ? _reference(matrix, topology.gpus, available, size, quick) : undefined,
          });
        }
      }
    }
    return cases;
  },
};
