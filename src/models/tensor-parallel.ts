// Tensor-parallel sizes an inference engine actually runs, and what each GPU of such a group holds.
import type { MemoryEstimate } from './estimate.js';

/** A size left out of the default list, and why (for messages). */
export type DroppedSize = { size: number; reason: string };

/** The default tensor-parallel sizes for a node, and the powers of two dropped for the model's heads. */
export type TensorParallelSizes = { sizes: number[]; dropped: DroppedSize[] };

/** A model's attention heads and KV heads (MemoryEstimate.heads / kvHeads). */
export type AttentionHeads = { heads: number; kvHeads: number };

/**
 * Why tensor-parallel size `size` cannot shard a model with these heads, or undefined when it can.
 * vLLM's rule: the size divides the attention heads; the KV heads split evenly when there are at
 * least `size` of them (size divides them), else each GPU keeps a copy (size a multiple of them).
 */
export function tensorParallelProblem(size: number, model: AttentionHeads): string | undefined {
  if (model.heads % size !== 0) return `${size} does not divide the ${model.heads} attention heads`;
  if (model.kvHeads >= size ? model.kvHeads % size !== 0 : size % model.kvHeads !== 0) {
    return `${size} GPUs cannot share ${model.kvHeads} KV heads (they must divide them, or be a multiple of them)`;
  }
  return undefined;
}

/**
 * The sizes to try by default on nodes of up to `gpus` GPUs: powers of two (1, 2, 4, 8, …), as
 * inference engines run them; with `model`, only those that satisfy tensorParallelProblem, the
 * others listed in `dropped` with the reason.
 */
export function defaultTensorParallelSizes(gpus: number, model?: AttentionHeads): TensorParallelSizes {
  const sizes: number[] = [];
  const dropped: DroppedSize[] = [];
  for (let size = 1; size <= gpus; size *= 2) {
    const problem = model === undefined ? undefined : tensorParallelProblem(size, model);
    if (problem === undefined) sizes.push(size);
    else dropped.push({ size, reason: problem });
  }
  return { sizes, dropped };
}

/**
 * Bytes each GPU of a tensor-parallel group of `size` needs for a model, from the parts of its
 * one-GPU estimate: the weights split `size` ways, the KV cache split over min(size, KV heads) (above
 * the KV head count each GPU keeps a copy of a head), and on every GPU the whole graph and the per-GPU
 * reserve (estimate total − weights − KV cache − graph: the runtime minimum and one spare layer).
 */
export function perGpuMemory(estimate: Pick<MemoryEstimate, 'weights' | 'kvCache' | 'graph' | 'total' | 'kvHeads'>, size: number): number {
  const reserve = Math.max(0, estimate.total - estimate.weights - estimate.kvCache - estimate.graph);
  const kvShards = Math.max(1, Math.min(size, estimate.kvHeads));
  return Math.ceil(estimate.weights / size) + Math.ceil(estimate.kvCache / kvShards) + estimate.graph + reserve;
}
