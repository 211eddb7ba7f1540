// What a claim holding a partition is worth to the fragmentation term's look-ahead, read from what
// the driver publishes. NVIDIA's GPU driver (k8s-dra-driver-gpu) publishes each DynamicMIG placement
// with its profile as an attribute (`profile`: go-nvlib's name, `1g.10gb`, `3g.40gb`, `1c.2g.20gb`,
// `1g.10gb+me`) and consumes from the GPU's counter set its multiprocessors, engines, memory and
// memory slices. No counter carries the compute slices (the `<n>g` of the name), yet they are how a
// GPU's compute is split: seven per A100 or H100, and a 1g.20gb is a seventh of it although it has
// more multiprocessors than a 1g.10gb. So a MIG device is worth its compute slices over the most any
// device of its GPU has (the 7g.80gb placement the driver always publishes); any other partition
// (another driver, or a device of such a GPU without a profile, such as the whole GPU) its share of
// the parent's counters: the mean, over the counters with a positive total, of the part it consumes.
import type { AllocationModel } from '../model/index.js';
import type { Device } from '../objects/index.js';

/** NVIDIA's GPU driver, whose MIG devices carry a `profile` attribute. */
export const NVIDIA_GPU_DRIVER = 'gpu.nvidia.com';

/** The compute slices of an NVIDIA MIG device (the `<n>g` of its `profile` attribute, bare or qualified with the driver); undefined for any other device. */
export function migComputeSlices(driver: string, device: Device): number | undefined {
  if (driver !== NVIDIA_GPU_DRIVER) return undefined;
  const value = (device.attributes.profile ?? device.attributes[`${driver}/profile`]) as { string?: unknown } | undefined;
  if (typeof value?.string !== 'string') return undefined;
  const g = /^(?:\d+c\.)?(\d+)g\.\d+gb(?:[+-].*)?$/.exec(value.string);
  return g === null ? undefined : Number(g[1]);
}

/** What readWorth reads of a partition layout (PartitionLayout). */
export interface WorthLayout {
  readonly parentOf: Int32Array;
  readonly parentCount: number;
  readonly total: Float64Array;
  readonly useStart: Int32Array;
  readonly useIdx: Int32Array;
  readonly useAmt: Float64Array;
  partition(c: number): boolean;
  exactFree(p: number, left: Float64Array): number;
}

/** Per candidate of `model`: its worth in thousandths of its parent (PartitionLayout.worth); 0 for devices the layout does not follow. */
export function readWorth(model: AllocationModel, layout: WorthLayout): Float64Array {
  const n = model.candidates.length;
  const worth = new Float64Array(n);
  const slices = new Float64Array(n);
  const most = new Float64Array(layout.parentCount);
  // Candidate indexes < n, parents < parentCount, uses and slots are the layout's own.
  for (const c of model.candidates) {
    if (!layout.partition(c.index) || c.device.consumesCounters.length === 0) continue;
    const g = migComputeSlices(c.driver, c.device) ?? 0;
    slices[c.index] = g;
    const p = layout.parentOf[c.index]!;
    if (g > most[p]!) most[p] = g;
  }
  const left = Float64Array.from(layout.total);
  for (const c of model.candidates) {
    if (!layout.partition(c.index)) continue;
    const p = layout.parentOf[c.index]!;
    if (slices[c.index]! > 0) {
      worth[c.index] = (1000 * slices[c.index]!) / most[p]!;
      continue;
    }
    const before = layout.exactFree(p, left);
    for (let u = layout.useStart[c.index]!; u < layout.useStart[c.index + 1]!; u++) left[layout.useIdx[u]!]! -= layout.useAmt[u]!;
    worth[c.index] = before - layout.exactFree(p, left);
    for (let u = layout.useStart[c.index]!; u < layout.useStart[c.index + 1]!; u++) left[layout.useIdx[u]!]! += layout.useAmt[u]!;
  }
  return worth;
}
