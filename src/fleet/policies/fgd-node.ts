// 'fgd-node': FGD's score inside the loss of a node-level value. The value V of a node's state (its
// free GPU milli, CPU and host memory) prices what the workload could still put on it: the
// Lagrangian bound min over λ of λ_core·cores + λ_GiB·GiB + Σ_GPUs V_λ(free milli), where V_λ(r) is
// the best fill of r milli by the workload's GPU shapes at their worths less λ's charge for their
// CPU and memory (a pod of k GPUs as k items of a k-th of it), the worths and the λ grid coming from
// the dual prices of a node-level LP of the workload's shapes on the fleet's node types (the tables:
// policies/node-value.ts). A pod goes where the loss V(before) − V(after) is least, rounded to a
// milli; FGD's quantized score ranks the nodes (and GPUs) of equal loss, then fgd-close's tie rules
// (CPU-only pods where the least GPU milli is free; whole GPUs where the least CPU per wholly free GPU
// is left, nodes whose model a model-constrained typical pod wants last). And a reserve: while at
// most RESERVE nodes of 8 GPUs are wholly free, a wholly free node of 4 GPUs or more is held: shares,
// CPU-only pods and pods of fewer than 4 GPUs go there only when nothing else fits. Where the best
// candidates are close (the best 4 within 1,000 score units: shares whose losses are within a milli,
// CPU-only and whole-GPU pods of equal loss and FGD score), rollouts decide (src/fleet/lookahead.ts:
// 16 continuations of 16 pods drawn from the workload, the node the pod damages least).
// The pod index serves it: its scores depend on the node and the pod's CPU, memory and GPUs only
// (score classes key on memory for it), and on the reserve, whose count crossing RESERVE restales
// every held node's scores.
// Scores, by pod: a share −round(loss)·1000 + q; a CPU-only pod −round(loss)·10^9 + q·10^6 − free
// milli; whole GPUs −round(loss)·10^12 + q·2^33 + fgd-close's tie rule; a held node −10^15 (shares,
// CPU-only pods), −10^18 (fewer than 4 GPUs). Both kernels compute them in this order, bit for bit.
// Index reads carry `!`: the kernel arrays are read at the layout's offsets (src/fleet/layout.ts).
import * as L from '../layout-fields.js';
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const fgdNode: FleetPolicy = {
  ...POLICY_REGISTRY['fgd-node'],
  gpuChoice: 'score',
  lookahead: { delta: 1000, continuations: 16, depth: 16, scope: 'all', candidates: 4 },
  summary:
    "FGD's score inside the loss of a node-level value (the node-level LP's prices of CPU, memory and GPU shapes), with whole 8-GPU nodes held for big pods at the end and rollouts on close decisions (default)",
};

/** The node values (policies/node-value.ts nodeValueTables): value entry e = type·lambdas + l has `core[e]`, `gib[e]` and table(r) at `table[e·1001 + r]`; node k is of type `typeOf[k]`. */
export type NodeValues = { readonly lambdas: number; readonly typeOf: Int32Array; readonly core: Float64Array; readonly gib: Float64Array; readonly table: Float64Array };

/** The reserve: while at most this many nodes of 8 GPUs are wholly free, wholly free nodes of 4 GPUs or more are held. */
export const RESERVE = 10;

/** The shapes expected at least this many times (at 100 % arrived) enter the node value. */
export const LEAST_SHAPE_COUNT = 30;

/** The grid of λ: these multiples of each node type's base prices (per core, per GiB, and both). */
export const THETAS: readonly number[] = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16];

/**
 * V of the state of the node whose record starts at `base` after a pod takes `milli` of GPU j (j −1:
 * none) or `whole` wholly free GPUs (the lowest-index ones), leaving `cpuLeft` milli-CPU and `memLeft`
 * MiB: the least over the node type's λ of core·cpuLeft/1000 + GiB·memLeft/1024 + Σ_GPUs table(r);
 * 0 without node values (H_LAMBDAS 0: every loss is 0, and FGD's score and the reserve decide).
 */
export function nodeValue(s: Int32Array, f: Float64Array, base: number, cpuLeft: number, memLeft: number, j: number, milli: number, whole: number): number {
  const lambdas = s[L.H_LAMBDAS]!;
  if (lambdas === 0) return 0;
  const entries = s[L.H_VALUE_ENTRIES]!;
  const coreAt = s[L.H_F_VALUE]! + s[L.H_NODES]!;
  const gibAt = coreAt + entries;
  const tableAt = gibAt + entries;
  const gpus = s[base + L.N_GPUS]!;
  const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
  const nonneg = s[L.H_VALUE_NONNEG] === 1;
  const c = cpuLeft / 1000;
  const m = memLeft / 1024;
  let best = Number.POSITIVE_INFINITY;
  for (let l = 0, e = s[base + L.N_TYPE]! * lambdas; l < lambdas; l++, e++) {
    let v = f[coreAt + e]! * c + f[gibAt + e]! * m;
    const t = tableAt + e * L.VALUE_SIZE;
    for (let i = 0, w = whole; i < gpus; i++) {
      let r = s[gAt + i]!;
      if (i === j) r -= milli;
      if (w > 0 && r === 1000) {
        r = 0;
        w--;
      }
      v += f[t + r]!;
      // With entries of 0 or more, a sum that reaches the least so far ends at or above it.
      if (nonneg && v >= best) break;
    }
    if (v < best) best = v;
  }
  return best;
}

/** Whether the node at `base` is held by the reserve: 4 GPUs or more, all wholly free, while at most H_RESERVE nodes of 8 GPUs are. */
export function heldNode(s: Int32Array, base: number): boolean {
  const gpus = s[base + L.N_GPUS]!;
  const reserve = s[L.H_RESERVE]!;
  return reserve >= 0 && gpus >= 4 && s[base + L.N_FULL] === gpus && s[L.H_IDLE8]! <= reserve;
}
