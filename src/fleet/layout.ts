// The flat layout of a fleet's state, shared by both kernel implementations. Its fields (and the
// policy numbers) come from one table, scripts/fleet-tables.mjs, which writes them for both sides
// (layout-fields.ts and policies/registry.ts here, assembly/fleet-fields.ts for the core).
//
// A fleet lives in two arrays: an Int32Array `s` (header, node table, typical pods, output,
// scratch, the default policy's clean-remainder table, the score cache's GPU choices and the pod
// index's tables: trees, stale nodes per class, leaf order, node of each rank, model bits per entry)
// and a Float64Array `f` (node fragmentation, typical-pod weights, the FGD score thresholds, and the
// scores: the scan's score cache, or the pod index's leaves and trees).
//
// The pod index (H_INDEX = 1). A score class is a pod shape (cpu, milli, GPU count): every pod of a
// class scores a node alike. Each class keeps a leaf per node, in leaf order (nodes grouped by GPU
// model, then node order): two f64, the node's score and `rank · 2^31 + memory` (its rank, its host
// memory left in MiB), or -1 when the node does not fit the class's CPU and GPUs. A tree is a class
// and a host-memory floor m (the pods of the class asking m MiB): a 4-ary tournament tree over the
// class's leaves that holds only the nodes with at least m MiB left. Its I = ⌈(N − 1)/3⌉ inner
// entries are numbered 0..I−1 (0 the root, the children of entry t at 4t + 1 .. 4t + 4, side by side),
// position I + i is leaf i (leaves from N on, up to 3I + 1, are empty). An inner entry is two f64 like
// a leaf: the winner of its subtree (the highest score, then the smallest rank: the scan's rule; on a
// tie of scores the smaller packed value has the smaller rank) and a bound on the memory left below
// it (at least the most; a node that only loses memory leaves the bound above it as it is). A pod of
// its class and memory finds its node at the root; a GPU model restriction is checked on the winner, and when
// it does not fit, the descent goes on into the subtrees whose model bits (a shared OR per entry)
// include one of the pod's models. A pod asking more memory than its tree's floor is served the same
// way, the descent skipping the subtrees without its memory. A change to a node marks its scores
// stale in every class and lists it in each class whose leaves are built; the class's next pick
// rescores its listed nodes and replays their leaves in each of its built trees, up to the first entry
// that does not change.
//
// fgd-node's node values (H_LAMBDAS > 0; policies/fgd-node.ts): each node's type (N_TYPE) and in `f`
// each node's value now (kept by every refresh), then per value entry (type × λ) its prices per core
// and per GiB and its table of VALUE_SIZE values. Its score reads the pod's memory, so its score
// classes key on memory too (one tree each); and its reserve reads H_IDLE8, the count of wholly free
// 8-GPU nodes the refreshes keep: when it crosses H_RESERVE, the nodes the reserve holds or releases
// (4 GPUs or more, all wholly free) are marked stale like changed ones.
//
// A policy with a lookahead (src/fleet/lookahead.ts) has a block after all this (H_LOOK_AT in `s`,
// H_F_LOOK in `f`; 0 without one): its setting (LK_ fields), the decision's seed, the workload's
// sampling table (shapes and, per model row, cumulative counts), the best n candidates of the current
// pick, the drawn continuations and the rollout's GPU scratch; in `f`, δ and the candidates' scores.
// The pod index then descends past a winner that fits, keeping the best n (the runners-up are
// among the entries the winner beat), and prunes what cannot beat the n-th or come within δ.

export * from './layout-fields.js';

import {
  CLEAN_SIZE,
  H_CACHE_AT,
  H_CLASS_AT,
  H_CLASSES,
  H_CLEAN_AT,
  H_F_CACHE,
  H_F_FRAG,
  H_F_PLAN,
  H_F_THR,
  H_F_TREE,
  H_F_VALUE,
  H_F_WEIGHT,
  H_INDEX,
  H_INNER,
  H_LAMBDAS,
  H_LEAF_AT,
  H_MAXG,
  H_MODELS_AT,
  H_NODE_AT,
  H_NODES,
  H_OUT_AT,
  H_RESERVE,
  H_SCRATCH_AT,
  H_STACK_AT,
  H_STALE_AT,
  H_STRIDE,
  H_TREE_AT,
  H_TREES,
  H_TYP_AT,
  H_TYPICAL,
  H_VALUE_ENTRIES,
  HEADER,
  N_TAGS,
  PLAN_SIZE,
  STACK,
  T_FIELDS,
  THRESHOLDS,
  TREE_FIELDS,
  VALUE_SIZE,
} from './layout-fields.js';

/**
 * Sizes of the two arrays and every offset, for `nodes` nodes of at most `maxGpus` GPUs, `typical`
 * typical pods, `classes` score classes, `trees` trees of the pod index (0: no index, H_INDEX 0) and
 * fgd-node's node values: `lambdas` λ per node type over `entries` value entries (types × lambdas; 0:
 * none, H_LAMBDAS 0). The reserve (H_RESERVE) starts at -1, none.
 */
export function fleetLayout(nodes: number, maxGpus: number, typical: number, classes: number, trees = 0, lambdas = 0, entries = 0): { ints: number; floats: number; header: Int32Array } {
  const stride = N_TAGS + (maxGpus + 1) + maxGpus;
  const indexed = trees > 0 ? 1 : 0;
  const h = new Int32Array(HEADER);
  h[H_NODES] = nodes;
  h[H_MAXG] = maxGpus;
  h[H_STRIDE] = stride;
  h[H_TYPICAL] = typical;
  h[H_CLASSES] = classes;
  h[H_NODE_AT] = HEADER;
  h[H_TYP_AT] = HEADER + nodes * stride;
  h[H_OUT_AT] = h[H_TYP_AT] + typical * T_FIELDS;
  h[H_SCRATCH_AT] = h[H_OUT_AT] + maxGpus + 1;
  h[H_CACHE_AT] = h[H_SCRATCH_AT] + maxGpus + 1;
  h[H_F_WEIGHT] = nodes;
  h[H_F_THR] = nodes + typical;
  h[H_F_CACHE] = nodes + typical + THRESHOLDS;
  h[H_CLEAN_AT] = h[H_CACHE_AT] + nodes * classes;
  h[H_INDEX] = indexed;
  h[H_TREES] = trees;
  h[H_TREE_AT] = h[H_CLEAN_AT] + CLEAN_SIZE;
  h[H_STALE_AT] = h[H_TREE_AT] + trees * TREE_FIELDS;
  h[H_CLASS_AT] = h[H_STALE_AT] + indexed * classes * nodes;
  h[H_LEAF_AT] = h[H_CLASS_AT] + indexed * classes * 2;
  const inner = innerEntries(nodes);
  h[H_INNER] = inner;
  h[H_MODELS_AT] = h[H_LEAF_AT] + indexed * 3 * nodes;
  h[H_STACK_AT] = h[H_MODELS_AT] + indexed * (4 * inner + 1);
  h[H_F_TREE] = h[H_F_CACHE] + nodes * classes * (indexed + 1);
  h[H_F_FRAG] = h[H_F_TREE] + trees * 2 * inner;
  h[H_F_PLAN] = h[H_F_FRAG] + 1;
  h[H_F_VALUE] = h[H_F_PLAN] + 2 * PLAN_SIZE;
  h[H_LAMBDAS] = entries > 0 ? lambdas : 0;
  h[H_VALUE_ENTRIES] = entries;
  h[H_RESERVE] = -1;
  const values = entries > 0 ? nodes + entries * (2 + VALUE_SIZE) : 0;
  return { ints: h[H_STACK_AT] + indexed * STACK, floats: h[H_F_VALUE] + values, header: h };
}

/** Inner entries of a 4-ary tree over `nodes` leaves: ⌈(nodes − 1)/3⌉ (0 for one node: the root is its leaf). */
export function innerEntries(nodes: number): number {
  return Math.ceil((nodes - 1) / 3);
}

/**
 * The pod index's leaf order: nodes grouped by model bit (`modelBits[k]`: 0 for a node without
 * shareable GPUs, else one bit), lowest bit first and GPU-less nodes last, node order within a
 * group; so that a subtree holds one model wherever it can and the model aggregate prunes whole
 * subtrees. Returns the node at each leaf.
 */
export function leafOrder(modelBits: Int32Array): Int32Array {
  const group = (bit: number): number => (bit === 0 ? 32 : 31 - Math.clz32(bit));
  const order = Int32Array.from(modelBits, (_, k) => k);
  return order.sort((a, b) => group(modelBits[a]!) - group(modelBits[b]!) || a - b); // a, b: positions of modelBits
}

/**
 * FGD's score thresholds: ⌊100·σ(Δ/1000)⌋ ≥ j exactly when Δ ≥ 1000·ln(j/(100−j)), j = 1..99.
 * Computed once here and handed to both kernels, so neither evaluates exp() (whose last bit may
 * differ between JavaScript engines and AssemblyScript's libm) and both quantize identically.
 */
export function fgdThresholds(): Float64Array {
  const thr = new Float64Array(THRESHOLDS);
  for (let j = 1; j <= THRESHOLDS; j++) thr[j - 1] = 1000 * Math.log(j / (100 - j));
  return thr;
}
