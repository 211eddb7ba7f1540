// The fleet layout's numbers and the accessors of its two regions, for the fleet kernels
// (assembly/fleet.ts, fleet-score.ts, fleet-index.ts); src/fleet/layout.ts defines them.

// Header fields of s (src/fleet/layout.ts).
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
export const H_F_WEIGHT = 10;
export const H_F_THR = 11;
export const H_F_CACHE = 12;
export const H_CLEAN_AT = 14;
export const H_INDEX = 15;
export const H_TREES = 16;
export const H_TREE_AT = 17;
export const H_F_TREE = 18;
export const H_STALE_AT = 19;
export const H_CLASS_AT = 20;
export const H_LEAF_AT = 21;
export const H_MODELS_AT = 22;
export const H_STACK_AT = 23;
export const H_F_FRAG = 24;
export const H_FRAG_SINCE = 25;
export const H_INNER = 26;
export const TREE_FIELDS = 3;
// A tree entry's packed rank unit (memory left below it).
export const RANK_UNIT: f64 = 2147483648.0;
// Score-cache GPU choices that are not a GPU (src/fleet/layout.ts).
export const STALE = -2;
export const ABSENT = -3;
// Node fields.
export const N_CPU = 0;
export const N_MEM = 1;
export const N_MODEL = 2;
export const N_GPUS = 3;
export const N_RANK = 4;
export const N_FREE = 5;
export const N_FULL = 6;
export const N_MAXFREE = 7;
export const N_WANTED = 8;
export const N_TAGS = 9;
// Policies.
export const P_RANDOM = 0;
export const P_DOTPROD = 1;
export const P_CLUSTERING = 2;
export const P_PACKING = 3;
export const P_BESTFIT = 4;
export const P_FGD = 5;
export const P_OURS = 6;

// @ts-ignore: decorator
@inline export function si(s: usize, k: i32): i32 {
  return load<i32>(s + (<usize>k << 2));
}
// @ts-ignore: decorator
@inline export function ss(s: usize, k: i32, v: i32): void {
  store<i32>(s + (<usize>k << 2), v);
}
// @ts-ignore: decorator
@inline export function fi(f: usize, k: i32): f64 {
  return load<f64>(f + (<usize>k << 3));
}
// @ts-ignore: decorator
@inline export function fs(f: usize, k: i32, v: f64): void {
  store<f64>(f + (<usize>k << 3), v);
}
