// The flat layout of a fleet's state, shared by both kernel implementations (assembly/fleet.ts
// repeats these numbers; test/fleet/parity.test.ts checks that both backends agree on every field).
//
// A fleet lives in two arrays: an Int32Array `s` (header, node table, typical pods, output,
// scratch, the default policy's clean-remainder table, the score cache's GPU choices, and the pod
// index: leaf order, per-leaf aggregates, per-class tournament trees and stale lists) and a
// Float64Array `f` (node fragmentation, typical-pod weights, the FGD score thresholds, score-cache
// scores).
//
// The pod index (H_INDEX = 1): for each pod shape class (cpu, milli, GPU count) a tournament tree
// over the nodes, in leaf order (nodes grouped by GPU model, then node order), stored as 2N entries:
// entry 1 the root, the children of entry t at 2t and 2t + 1, leaf i at N + i. An entry holds the
// node that wins its subtree: the highest cached score, then the smallest rank (the scan's rule),
// among the nodes that fit the class's CPU and GPUs (share or whole GPUs). Host memory and GPU model
// vary between pods of one class: they are checked on the winner, and shared per-entry aggregates
// (the most memory left, the OR of the model bits below the entry) prune the descent when the winner
// does not fit. A change to a node marks its score stale in every class and puts it on the stale list
// of every class whose tree is built; a class's next pick rescores its stale nodes and replays their
// leaves (O(log N) each).

/** Header fields of `s`. */
export const H_NODES = 0;
export const H_MAXG = 1;
export const H_STRIDE = 2;
export const H_TYPICAL = 3;
export const H_CLASSES = 4;
export const H_NODE_AT = 5;
export const H_TYP_AT = 6;
export const H_OUT_AT = 7;
/** Offset in `s` of the score cache's GPU choices (classes × N, class c's node n at c·N + n; STALE, ABSENT, -1 or a GPU). */
export const H_CACHE_AT = 8;
export const H_SCRATCH_AT = 9;
/** f64 offsets: weights, thresholds, cache scores (classes × N, class c's node n at c·N + n; fragmentation starts at 0). */
export const H_F_WEIGHT = 10;
export const H_F_THR = 11;
export const H_F_CACHE = 12;
/** The default policy's dead-hole size in milli (see policies/ours.ts; the kernels read it through the clean-remainder table). */
export const H_DEAD = 13;
/** Offset in `s` of the default policy's clean-remainder table (CLEAN_SIZE ints; see policies/ours.ts cleanRemainders). */
export const H_CLEAN_AT = 14;
/** 1: picks through the pod index where the policy and the pod's class allow it; 0: the scan. */
export const H_INDEX = 15;
/** Offset in `s` of the class trees' entries (classes × 2N: class c's entry t at c·2N + t). */
export const H_WIN_AT = 16;
/** Offset in `s` of the per-class stale lists (classes × N). */
export const H_STALE_AT = 17;
/** Offset in `s` of the per-class state (classes × 2: tree built 0/1, stale list length). */
export const H_CLASS_AT = 18;
/** Offset in `s` of the leaf order: the node at each leaf (N), then each node's leaf (N). */
export const H_LEAF_AT = 19;
/** Offset in `s` of the per-entry most host memory left (2N, entry t at t). */
export const H_MEM_AT = 20;
/** Offset in `s` of the per-entry OR of the model bits (2N). */
export const H_MODELS_AT = 21;
/** Offset in `s` of the descent's stack (STACK entries). */
export const H_STACK_AT = 22;
export const HEADER = 24;

/** Entries of the descent's stack: a descent keeps at most one pending sibling per level (2N ≤ 2^18 entries). */
export const STACK = 64;

/** Score-cache GPU choice of a node whose score for the class is stale (not computed since it changed). */
export const STALE = -2;
/** Score-cache GPU choice of a node that does not fit the class's CPU and GPUs (no score; its leaf is empty). */
export const ABSENT = -3;

/** Entries of the clean-remainder table: one per free milli 0..999 that a share can leave on its GPU. */
export const CLEAN_SIZE = 1000;

/** Node fields (a node's record is `stride` ints: these, then maxGpus+1 tag counts, then the GPUs' free milli). */
export const N_CPU = 0;
export const N_MEM = 1;
export const N_MODEL = 2;
export const N_GPUS = 3;
export const N_RANK = 4;
export const N_FREE = 5;
export const N_FULL = 6;
export const N_MAXFREE = 7;
/** 1 when some model-constrained typical pod accepts the node's GPU model (the default policy's rule for whole GPUs). */
export const N_WANTED = 8;
export const N_TAGS = 9;

/** Typical pod fields (4 ints each: cpu milli, GPU milli per GPU, GPU count, model mask). */
export const T_FIELDS = 4;

/** Number of FGD score thresholds (scores 1..99). */
export const THRESHOLDS = 99;

/** Policy numbers in the kernels. */
export const P_RANDOM = 0;
export const P_DOTPROD = 1;
export const P_CLUSTERING = 2;
export const P_PACKING = 3;
export const P_BESTFIT = 4;
export const P_FGD = 5;
export const P_OURS = 6;

/**
 * Sizes of the two arrays and every offset, for `nodes` nodes of at most `maxGpus` GPUs, `typical`
 * typical pods and `classes` score-cache classes; `index` sizes the pod index (without it, its
 * regions are empty and H_INDEX is 0).
 */
export function fleetLayout(nodes: number, maxGpus: number, typical: number, classes: number, index = true): { ints: number; floats: number; header: Int32Array } {
  const stride = N_TAGS + (maxGpus + 1) + maxGpus;
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
  const indexed = index ? 1 : 0;
  h[H_INDEX] = indexed;
  h[H_WIN_AT] = h[H_CLEAN_AT] + CLEAN_SIZE;
  h[H_STALE_AT] = h[H_WIN_AT] + indexed * classes * 2 * nodes;
  h[H_CLASS_AT] = h[H_STALE_AT] + indexed * classes * nodes;
  h[H_LEAF_AT] = h[H_CLASS_AT] + indexed * classes * 2;
  h[H_MEM_AT] = h[H_LEAF_AT] + indexed * 2 * nodes;
  h[H_MODELS_AT] = h[H_MEM_AT] + indexed * 2 * nodes;
  h[H_STACK_AT] = h[H_MODELS_AT] + indexed * 2 * nodes;
  return { ints: h[H_STACK_AT] + indexed * STACK, floats: h[H_F_CACHE] + nodes * classes, header: h };
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
  return order.sort((a, b) => group(modelBits[a]) - group(modelBits[b]) || a - b);
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
