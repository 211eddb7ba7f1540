// The replica kernels in TypeScript: the same bucket-by-rank and binary heap of GPUs as assembly/replicas.ts.
import { REPLICA_POLICY_CODE, type ReplicaKernels } from '../devices/replicas.js';

const PACKED = REPLICA_POLICY_CODE.pack;
const SPREAD = REPLICA_POLICY_CODE.spread;

/** The replica kernels in plain TypeScript. */
export function replicaTsKernels(): ReplicaKernels {
  return {
    pickReplicas(policy, candidateGpu, candidateRank, gpuAllocated, gpuKeyRank, count): Int32Array {
      // Every index below is in range by construction: candidates < n, GPUs < gpus, candidateRank a
      // permutation of 0..n-1 and candidateGpu below gpus (the kernel contract), heap positions < size.
      const n = candidateGpu.length;
      const gpus = gpuAllocated.length;
      if (policy !== REPLICA_POLICY_CODE.distributed && policy !== PACKED && policy !== SPREAD) throw new RangeError(`pickReplicas: unknown policy code ${policy}`);
      const allocated = gpuAllocated.slice();
      const picked = new Int32Array(gpus);
      const start = new Int32Array(gpus + 1);
      const byRank = new Int32Array(n);
      for (let c = 0; c < n; c++) {
        byRank[candidateRank[c]!] = c;
        start[candidateGpu[c]! + 1]!++;
      }
      for (let g = 0; g < gpus; g++) start[g + 1]! += start[g]!;
      // Bucket by GPU in rank order: each GPU's candidates end up sorted by replica rank.
      const cursor = start.slice(0, gpus);
      const sorted = new Int32Array(n);
      for (let r = 0; r < n; r++) {
        const c = byRank[r]!;
        sorted[cursor[candidateGpu[c]!]!++] = c;
      }
      cursor.set(start.subarray(0, gpus));

      const before = (a: number, b: number): boolean => {
        const aa = allocated[a]!;
        const ab = allocated[b]!;
        const pa = picked[a]!;
        const pb = picked[b]!;
        if (policy === SPREAD) {
          if (pa !== pb) return pa < pb;
          if (aa !== ab) return aa < ab;
        } else {
          if (aa !== ab) return policy === PACKED ? aa > ab : aa < ab;
          if (pa !== pb) return pa < pb;
        }
        return gpuKeyRank[a]! < gpuKeyRank[b]!;
      };
      const heap = new Int32Array(gpus);
      let size = 0;
      const siftDown = (from: number): void => {
        let i = from;
        const g = heap[i]!;
        for (;;) {
          let child = 2 * i + 1;
          if (child >= size) break;
          if (child + 1 < size && before(heap[child + 1]!, heap[child]!)) child++;
          const c = heap[child]!;
          if (!before(c, g)) break;
          heap[i] = c;
          i = child;
        }
        heap[i] = g;
      };
      for (let g = 0; g < gpus; g++) if (start[g + 1]! > start[g]!) heap[size++] = g;
      for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);

      const limit = Math.max(0, Math.min(count, n));
      const out = new Int32Array(limit);
      let made = 0;
      while (made < limit && size > 0) {
        const g = heap[0]!;
        const p = cursor[g]!++;
        out[made++] = sorted[p]!;
        allocated[g]!++;
        picked[g]!++;
        if (p + 1 === start[g + 1]) heap[0] = heap[--size]!;
        if (size > 0) siftDown(0);
      }
      return made === limit ? out : out.slice(0, made);
    },
  };
}
