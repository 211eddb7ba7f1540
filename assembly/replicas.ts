// Greedy replica / MIG / plain-device picks (NVIDIA device plugin policies, with total tie-breaks).
// Candidates arrive as integers: each one's physical GPU and the natural rank of its ID; GPUs as
// their allocated count and the natural rank of their physical key. A binary heap of GPUs keyed by
// the policy gives O(n + G + k log G): only the picked GPU's key changes after a pick.

/** Policy codes; src/devices/replicas.ts holds the same table (REPLICA_POLICY_CODE). */
const DISTRIBUTED: i32 = 0;
const PACKED: i32 = 1;
const SPREAD: i32 = 2;

// @ts-ignore: decorator
@inline function at(base: usize, k: i32): i32 {
  return load<i32>(base + (<usize>k << 2));
}

// @ts-ignore: decorator
@inline function put(base: usize, k: i32, v: i32): void {
  store<i32>(base + (<usize>k << 2), v);
}

/** Does GPU a come before GPU b? Policy keys, then key rank (unique, so the order is total). */
// @ts-ignore: decorator
@inline function before(policy: i32, allocated: usize, picked: usize, keyRank: usize, a: i32, b: i32): bool {
  const aa = at(allocated, a);
  const ab = at(allocated, b);
  const pa = at(picked, a);
  const pb = at(picked, b);
  if (policy == SPREAD) {
    if (pa != pb) return pa < pb;
    if (aa != ab) return aa < ab;
  } else {
    if (aa != ab) return policy == PACKED ? aa > ab : aa < ab;
    if (pa != pb) return pa < pb;
  }
  return at(keyRank, a) < at(keyRank, b);
}

function siftDown(heap: usize, size: i32, start: i32, policy: i32, allocated: usize, picked: usize, keyRank: usize): void {
  let i = start;
  const g = at(heap, i);
  while (true) {
    let child = (i << 1) + 1;
    if (child >= size) break;
    let c = at(heap, child);
    if (child + 1 < size) {
      const r = at(heap, child + 1);
      if (before(policy, allocated, picked, keyRank, r, c)) {
        child++;
        c = r;
      }
    }
    if (!before(policy, allocated, picked, keyRank, c, g)) break;
    put(heap, i, c);
    i = child;
  }
  put(heap, i, g);
}

/**
 * Bytes of scratch pickReplicas needs for `candidates` candidates on `gpus` GPUs.
 * Layout (i32 each): start[gpus + 1], cursor[gpus], picked[gpus], allocated[gpus], heap[gpus],
 * byRank[candidates], sorted[candidates].
 */
export function replicaScratchBytes(candidates: i32, gpus: i32): i32 {
  return (5 * gpus + 1 + 2 * candidates) << 2;
}

/**
 * Picks up to `count` candidates greedily and writes their indices to `out` in pick order; returns
 * how many were picked. candidateGpu[c] in [0, gpus), candidateRank a permutation of
 * [0, candidates); gpuAllocated[g] counts devices of GPU g that are not candidates; gpuKeyRank a
 * permutation of [0, gpus). Policy 0 distributed (allocated asc, picked asc), 1 pack (allocated
 * desc, picked asc), 2 spread (picked asc, allocated asc); then key rank; within a GPU, lowest
 * candidate rank first. Inputs are not modified.
 */
export function pickReplicas(
  policy: i32,
  candidates: i32,
  candidateGpu: usize,
  candidateRank: usize,
  gpus: i32,
  gpuAllocated: usize,
  gpuKeyRank: usize,
  count: i32,
  out: usize,
  scratch: usize,
): i32 {
  if (policy < DISTRIBUTED || policy > SPREAD || candidates < 0 || gpus < 0) unreachable();
  const start = scratch;
  const cursor = start + (<usize>(gpus + 1) << 2);
  const picked = cursor + (<usize>gpus << 2);
  const allocated = picked + (<usize>gpus << 2);
  const heap = allocated + (<usize>gpus << 2);
  const byRank = heap + (<usize>gpus << 2);
  const sorted = byRank + (<usize>candidates << 2);

  memory.fill(start, 0, <usize>(gpus + 1) << 2);
  memory.fill(picked, 0, <usize>gpus << 2);
  memory.copy(allocated, gpuAllocated, <usize>gpus << 2);
  for (let c = 0; c < candidates; c++) {
    const r = at(candidateRank, c);
    const g = at(candidateGpu, c);
    if (<u32>r >= <u32>candidates || <u32>g >= <u32>gpus) unreachable();
    put(byRank, r, c);
    put(start, g + 1, at(start, g + 1) + 1);
  }
  for (let g = 0; g < gpus; g++) put(start, g + 1, at(start, g + 1) + at(start, g));
  memory.copy(cursor, start, <usize>gpus << 2);
  // Bucket by GPU in rank order: each GPU's candidates end up sorted by replica rank.
  for (let r = 0; r < candidates; r++) {
    const c = at(byRank, r);
    const g = at(candidateGpu, c);
    const p = at(cursor, g);
    put(sorted, p, c);
    put(cursor, g, p + 1);
  }
  memory.copy(cursor, start, <usize>gpus << 2);

  let size = 0;
  for (let g = 0; g < gpus; g++) {
    if (at(start, g + 1) > at(start, g)) {
      put(heap, size, g);
      size++;
    }
  }
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(heap, size, i, policy, allocated, picked, gpuKeyRank);

  let n = 0;
  while (n < count && size > 0) {
    const g = at(heap, 0);
    const p = at(cursor, g);
    put(out, n, at(sorted, p));
    n++;
    put(cursor, g, p + 1);
    put(allocated, g, at(allocated, g) + 1);
    put(picked, g, at(picked, g) + 1);
    if (p + 1 == at(start, g + 1)) {
      size--;
      put(heap, 0, at(heap, size));
    }
    if (size > 0) siftDown(heap, size, 0, policy, allocated, picked, gpuKeyRank);
  }
  return n;
}
