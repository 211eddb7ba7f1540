// The pair-score matrix of the current topology, kept in the core between calls: a request then
// passes only masks and sizes. Row-major n×n i32, zero diagonal.

/** Most GPUs per node: sets are u64 masks. */
export const MAX_GPUS: i32 = 64;

const pairMatrix: usize = memory.data(64 * 64 * 4);
let pairGpus: i32 = 0;
let pairVersion: i32 = 0;

/** Copies an n×n pair-score matrix from `ptr` into the core; returns a version number that changes on every load. */
export function loadPairScores(ptr: usize, n: i32): i32 {
  if (n < 0 || n > MAX_GPUS) unreachable();
  memory.copy(pairMatrix, ptr, <usize>(n * n) << 2);
  pairGpus = n;
  return ++pairVersion;
}

/** Version of the loaded matrix (what the last loadPairScores returned): callers that cache a load compare it. */
export function pairScoreVersion(): i32 {
  return pairVersion;
}

/** GPU count of the loaded matrix. */
export function pairScoreGpus(): i32 {
  return pairGpus;
}

/** Score of the pair (i, j) in the loaded matrix. */
// @ts-ignore: decorator
@inline export function pairScore(i: i32, j: i32): i32 {
  return load<i32>(pairMatrix + ((<usize>(i * pairGpus + j)) << 2));
}

/** Pointer to row i of the loaded matrix. */
// @ts-ignore: decorator
@inline export function pairRow(i: i32): usize {
  return pairMatrix + ((<usize>(i * pairGpus)) << 2);
}

/** Sum of pair scores over every pair in `mask`, from a row-major matrix of `stride` columns at `matrix`. */
export function scoreOf(mask: u64, matrix: usize, stride: i32): i32 {
  let s: i32 = 0;
  let rest = mask;
  while (rest != 0) {
    const i = <i32>ctz(rest);
    rest &= rest - 1;
    let others = rest;
    const row = matrix + (<usize>(i * stride) << 2);
    while (others != 0) {
      const j = <i32>ctz(others);
      others &= others - 1;
      s += load<i32>(row + (<usize>j << 2));
    }
  }
  return s;
}

/** Sum of pair scores over every pair in the set `mask`, from the loaded matrix. */
export function maskScore(mask: u64): i32 {
  return scoreOf(mask, pairMatrix, pairGpus);
}
