// The flat layout of a fleet's state, shared by both kernel implementations (assembly/fleet.ts
// repeats these numbers; test/fleet/parity.test.ts checks that both backends agree on every field).
//
// A fleet lives in two arrays: an Int32Array `s` (header, node table, typical pods, output,
// scratch, score-cache GPU choices, the default policy's clean-remainder table) and a Float64Array
// `f` (node fragmentation, typical-pod weights, the FGD score thresholds, score-cache scores).

/** Header fields of `s`. */
export const H_NODES = 0;
export const H_MAXG = 1;
export const H_STRIDE = 2;
export const H_TYPICAL = 3;
export const H_CLASSES = 4;
export const H_NODE_AT = 5;
export const H_TYP_AT = 6;
export const H_OUT_AT = 7;
export const H_CACHE_AT = 8;
export const H_SCRATCH_AT = 9;
/** f64 offsets: weights, thresholds, cache scores (fragmentation starts at 0). */
export const H_F_WEIGHT = 10;
export const H_F_THR = 11;
export const H_F_CACHE = 12;
/** The default policy's dead-hole size in milli (see policies/ours.ts; the kernels read it through the clean-remainder table). */
export const H_DEAD = 13;
/** Offset in `s` of the default policy's clean-remainder table (CLEAN_SIZE ints; see policies/ours.ts cleanRemainders). */
export const H_CLEAN_AT = 14;
export const HEADER = 16;

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

/** Sizes of the two arrays and every offset, for `nodes` nodes of at most `maxGpus` GPUs. */
export function fleetLayout(nodes: number, maxGpus: number, typical: number, classes: number): { ints: number; floats: number; header: Int32Array } {
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
  return { ints: h[H_CLEAN_AT] + CLEAN_SIZE, floats: h[H_F_CACHE] + nodes * classes, header: h };
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
