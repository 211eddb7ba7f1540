// The naive BestEffort oracle: go-gpuallocator's partition enumeration (bench/reference), with
// gpualloc's padding fix, returning GPU indices in ascending order like allocateAligned.
import { bestEffortReference } from '../../bench/reference/gpuallocator.js';
import { pairScoreMatrix, type Topology } from '../../src/topology.js';

/** The GPUs BestEffort picks by enumerating every partition (ascending), or [] when infeasible. */
export function naiveBestEffort(topology: Topology, available: number[], required: number[], size: number): number[] {
  const matrix = pairScoreMatrix(topology);
  return bestEffortReference(matrix, topology.gpus, available, required, size).devices.sort((a, b) => a - b);
}
