// How many nodes have each part of a pod's request (the CPU, the host memory, the free GPUs, one of
// its GPU models), for the NO_NODE_FITS reason of a plan that fits nowhere. Counts are kept for the
// thresholds of the declared shapes (their CPUs, memories, shares and GPU counts) as nodes change,
// O(thresholds) a change, so such a plan is explained without a pass over every node; a pod asking
// for a threshold no shape has is counted by that pass. Models never change: a count per model bit.
// Index reads carry `!`: the counts have one entry per threshold and model bit, the node table is
// read at the layout's offsets.
import * as L from './layout.js';
import type { Pod } from './types.js';

/** The four counts of a reason. */
export type Fits = { cpu: number; memory: number; room: number; model: number };

/** A sorted list of thresholds and how many nodes reach each. */
class Thresholds {
  readonly values: Int32Array;
  readonly counts: Int32Array;
  constructor(values: Iterable<number>) {
    this.values = Int32Array.from(new Set(values)).sort();
    this.counts = new Int32Array(this.values.length);
  }
  /** Node value went from `before` to `after`. */
  move(before: number, after: number): void {
    if (before === after) return;
    const v = this.values;
    for (let i = 0; i < v.length; i++) this.counts[i]! += (after >= v[i]! ? 1 : 0) - (before >= v[i]! ? 1 : 0);
  }
  /** Nodes reaching `value`, or -1 when it is not a threshold. */
  count(value: number): number {
    const v = this.values;
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo < v.length && v[lo] === value ? this.counts[lo]! : -1;
  }
}

/** Fit counts over a fleet's node table (src/fleet/layout.ts), for the thresholds of `shapes`. */
export class FitCounts {
  private readonly cpu: Thresholds;
  private readonly memory: Thresholds;
  /** A share or one whole GPU: the largest free milli of a node (0 without GPUs the kernels see). */
  private readonly share: Thresholds;
  /** Several whole GPUs: the wholly free GPUs of a node. */
  private readonly whole: Thresholds;
  /** Nodes per model bit (bit 32: none). */
  private readonly models = new Int32Array(33);
  /** Node k's values before its change (take), and after (apply). */
  private readonly old = new Int32Array(4);
  private readonly now = new Int32Array(4);

  constructor(shapes: readonly Pod[], s: Int32Array) {
    this.cpu = new Thresholds(shapes.map((p) => p.cpu));
    this.memory = new Thresholds(shapes.map((p) => p.memory));
    this.share = new Thresholds(shapes.filter((p) => p.gpus === 1 && p.milli > 0).map((p) => p.milli));
    this.whole = new Thresholds(shapes.filter((p) => p.gpus > 1).map((p) => p.gpus));
    const nodes = s[L.H_NODES]!;
    for (let k = 0; k < nodes; k++) {
      const base = this.base(s, k);
      this.models[bitIndex(s[base + L.N_MODEL]!)]!++;
      this.old.fill(-1);
      this.apply(s, k);
    }
  }

  private base(s: Int32Array, k: number): number {
    return s[L.H_NODE_AT]! + k * s[L.H_STRIDE]!;
  }

  /** Node k's values, [cpu, memory, largest free milli, wholly free GPUs] (the last two 0 without GPUs). */
  private read(s: Int32Array, k: number, into: Int32Array): void {
    const base = this.base(s, k);
    const gpus = s[base + L.N_GPUS]! > 0;
    into[0] = s[base + L.N_CPU]!;
    into[1] = s[base + L.N_MEM]!;
    into[2] = gpus ? s[base + L.N_MAXFREE]! : 0;
    into[3] = gpus ? s[base + L.N_FULL]! : 0;
  }

  /** Before node k changes: remember its values. */
  take(s: Int32Array, k: number): void {
    this.read(s, k, this.old);
  }

  /** After node k changed (and the kernels refreshed it): move its counts. */
  apply(s: Int32Array, k: number): void {
    const now = this.now;
    this.read(s, k, now);
    this.cpu.move(this.old[0]!, now[0]!);
    this.memory.move(this.old[1]!, now[1]!);
    this.share.move(this.old[2]!, now[2]!);
    this.whole.move(this.old[3]!, now[3]!);
  }

  /** The counts for `pod` (model mask `mask`), or null when one of its thresholds is not kept. */
  fits(pod: Pod, mask: number): Fits | null {
    const cpu = this.cpu.count(pod.cpu);
    const memory = this.memory.count(pod.memory);
    const gpuPod = pod.gpus > 0 && pod.milli > 0;
    const room = !gpuPod ? 0 : pod.gpus === 1 ? this.share.count(pod.milli) : this.whole.count(pod.gpus);
    if (cpu < 0 || memory < 0 || room < 0) return null;
    let model = 0;
    for (let b = 0; b < 32; b++) if ((mask & (1 << b)) !== 0) model += this.models[b]!;
    return { cpu, memory, room, model };
  }
}

/** A node's model bit as an index (32: none). */
function bitIndex(bit: number): number {
  return bit === 0 ? 32 : 31 - Math.clz32(bit);
}
