// The flat layout of a fleet's state, shared by both kernel implementations (assembly/fleet.ts
// repeats these numbers; test/fleet/parity.test.ts checks that both backends agree on every field).
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

/** Header fields of `s`. */
export const H_NODES = 0;
export const H_MAXG = 1;
export const H_STRIDE = 2;
export const H_TYPICAL = 3;
export const H_CLASSES = 4;
export const H_NODE_AT = 5;
export const H_TYP_AT = 6;
export const H_OUT_AT = 7;
/** Offset in `s` of the score cache's GPU choices (classes × N, class c's node n at c·N + n: STALE, ABSENT, -1 or a GPU). */
export const H_CACHE_AT = 8;
export const H_SCRATCH_AT = 9;
/** f64 offsets: weights, thresholds, scores (the scan: classes × N, class c's node n at c·N + n; the index: the leaves, classes × 2N, class c's leaf i at c·2N + 2i); fragmentation starts at 0. */
export const H_F_WEIGHT = 10;
export const H_F_THR = 11;
export const H_F_CACHE = 12;
/** The default policy's dead-hole size in milli (see policies/ours.ts; the kernels read it through the clean-remainder table). */
export const H_DEAD = 13;
/** Offset in `s` of the default policy's clean-remainder table (CLEAN_SIZE ints; see policies/ours.ts cleanRemainders). */
export const H_CLEAN_AT = 14;
/** 1: picks through the pod index where the policy and the pod's shape allow it; 0: the scan. */
export const H_INDEX = 15;
/** Number of trees. */
export const H_TREES = 16;
/** Offset in `s` of the tree table (trees × TREE_FIELDS: class, memory floor in MiB, built 0/1; a class's trees in a row, by floor). */
export const H_TREE_AT = 17;
/** Offset in `f` of the trees' inner entries (trees × 2I f64, I = H_INNER: tree k's entry t at 2(k·I + t)). */
export const H_F_TREE = 18;
/** Offset in `s` of the per-class stale lists (classes × N). */
export const H_STALE_AT = 19;
/** Offset in `s` of the per-class state (classes × 2: leaves built 0/1, stale list length). */
export const H_CLASS_AT = 20;
/** Offset in `s` of the leaf order: the node at each leaf (N), then each node's leaf (N), then the node of each rank (N). */
export const H_LEAF_AT = 21;
/** Offset in `s` of the per-position OR of the model bits of the leaves below it (I + 3I + 1 positions: inner entries, then leaves; the same for every tree). */
export const H_MODELS_AT = 22;
/** Offset in `s` of the descent's stack (STACK entries). */
export const H_STACK_AT = 23;
/** Offset in `f` of Σ over nodes of Frag(node), kept up to date on every refresh (the node's change added) and summed afresh, in node order, every N refreshes: O(1) a refresh, and the rounding of the additions never builds up over more than N of them. */
export const H_F_FRAG = 24;
/** Refreshes since the fragmentation sum was last summed afresh (the kernels count). */
export const H_FRAG_SINCE = 25;
/** Inner entries of each tree: ⌈(N − 1)/3⌉. */
export const H_INNER = 26;
export const HEADER = 28;

/** Fields of a tree in the tree table. */
export const TREE_FIELDS = 3;

/** Entries of the descent's stack: a descent keeps at most three pending siblings per level (nine levels hold 4^9 > LIMITS.maxFleetNodes leaves). */
export const STACK = 64;

/** 2^31: the packed rank's unit in a tree entry (memory left, in MiB, is below it). */
export const RANK_UNIT = 2147483648;

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
 * typical pods, `classes` score classes and `trees` trees of the pod index (0: no index, H_INDEX 0).
 */
export function fleetLayout(nodes: number, maxGpus: number, typical: number, classes: number, trees = 0): { ints: number; floats: number; header: Int32Array } {
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
  return { ints: h[H_STACK_AT] + indexed * STACK, floats: h[H_F_FRAG] + 1, header: h };
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
