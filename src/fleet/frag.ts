// Fragmentation of one node under the typical-pod distribution (FGD simulator pkg/utils/frag.go,
// NodeGpuShareFragAmount summed except Q3): for each typical pod t with weight p_t, the GPU milli
// of the node that t could not use. A CPU-only t, a t of another GPU model, or a t that does not
// fit (GPUs or CPU) counts all the node's free GPU milli; a t that fits counts the free milli of the
// GPUs too small for it.
// Index reads carry `!`: the node's GPUs and the typical pods are read at the layout's offsets.

/**
 * Frag(node) for a node with `gpus` GPUs whose free milli are `g[gAt..gAt+gpus)`, `cpuLeft` milli-CPU
 * and model bit `modelBit`; typical pods `typ[tAt + 4t ..]` = (cpu, milli, num, model mask; -1 =
 * any model, 0 = none) with weights `w[wAt + t]`. Sums in the order of t (both kernels use this order).
 */
export function nodeFrag(g: Int32Array, gAt: number, gpus: number, cpuLeft: number, modelBit: number, typ: Int32Array, tAt: number, typical: number, w: Float64Array, wAt: number): number {
  let free = 0;
  for (let i = 0; i < gpus; i++) free += g[gAt + i]!;
  let frag = 0;
  for (let t = 0; t < typical; t++) {
    const q = tAt + t * 4;
    const milli = typ[q + 1]!;
    const mask = typ[q + 3]!;
    const weight = w[wAt + t]!;
    if (milli === 0 || (mask & modelBit) === 0) {
      frag += weight * free;
      continue;
    }
    let fit = 0;
    let small = 0;
    for (let i = 0; i < gpus; i++) {
      const v = g[gAt + i]!;
      if (v >= milli) fit++;
      else small += v;
    }
    frag += fit >= typ[q + 2]! && cpuLeft >= typ[q]! ? weight * small : weight * free;
  }
  return frag;
}
