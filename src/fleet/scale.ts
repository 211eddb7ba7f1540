// A trace replicated k times, for measuring the placer at production scale (`gpualloc simulate
// --scale K`, the Simulate page, bench/fleet-scale.bench.ts): k copies of the nodes and of the pods,
// so the cluster has k times the nodes and the workload k times the pods of every shape.
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';

/** The largest scale factor accepted (1,213 openb nodes × 82 is the LIMITS.maxFleetNodes ceiling). */
export const MAX_SCALE = 1000;

/**
 * Copy 0 of every node and pod keeps its ID, copy i (1..k−1) is `<id>-r<i>`; nodes copy by copy, then
 * pods likewise. k = 1 gives the trace itself. An ID that two copies would share (say a node `a-r1`
 * beside `a`), or more nodes or pods than the limits, is an error naming it.
 */
export function scaleTrace<N extends { id: string }, P extends { id: string }>(nodes: readonly N[], pods: readonly P[], k: number, field = 'scale'): { nodes: N[]; pods: P[] } {
  if (!Number.isInteger(k) || k < 1 || k > MAX_SCALE) throw new AllocationError('INVALID_ARGUMENT', `${field}: expected an integer 1..${MAX_SCALE}, got ${String(k)}`, { field });
  if (nodes.length * k > LIMITS.maxFleetNodes) throw new AllocationError('LIMIT_EXCEEDED', `${field}: ${nodes.length} nodes × ${k} is more than ${LIMITS.maxFleetNodes} nodes`, { field });
  if (pods.length * k > LIMITS.maxFleetPods) throw new AllocationError('LIMIT_EXCEEDED', `${field}: ${pods.length} pods × ${k} is more than ${LIMITS.maxFleetPods} pods`, { field });
  return { nodes: replicate(nodes, k, 'node', field), pods: replicate(pods, k, 'pod', field) };
}

function replicate<T extends { id: string }>(list: readonly T[], k: number, what: string, field: string): T[] {
  if (k === 1) return [...list];
  const out: T[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < k; i++) {
    for (const item of list) {
      const id = i === 0 ? item.id : `${item.id}-r${i}`;
      if (seen.has(id))
        throw new AllocationError('INVALID_ARGUMENT', `${field}: copy ${i} of ${what} ${JSON.stringify(item.id)} would be named ${JSON.stringify(id)}, which another ${what} already has`, { field });
      seen.add(id);
      out.push({ ...item, id });
    }
  }
  return out;
}
