// One scratch region for every call's inputs and outputs. The TypeScript side asks for the bytes a
// call needs, writes its flat arrays there, calls a kernel with pointers into it, and reads the
// results back. The region only ever grows (doubling), so a long-lived service reaches a fixed
// footprint after warm-up: kernels themselves never allocate.

let arenaBase: usize = 0;
let arenaSize: usize = 0;

/** Returns the base of a scratch region of at least `bytes` bytes (16-byte aligned). May grow memory. */
export function reserve(bytes: i32): usize {
  if (bytes < 0) unreachable();
  const need = <usize>bytes;
  if (need > arenaSize || arenaBase == 0) {
    let size: usize = arenaSize > 0 ? arenaSize : 65536;
    while (size < need) size <<= 1;
    if (arenaBase != 0) heap.free(arenaBase);
    arenaBase = heap.alloc(size);
    arenaSize = size;
  }
  return arenaBase;
}

/** Size in bytes of the scratch region reserved so far. */
export function reservedBytes(): i32 {
  return <i32>arenaSize;
}

/** Test-only hook: traps on purpose so the engine's recovery path can be exercised. kind 0: unreachable, 1: out-of-bounds load, 2: out of memory. */
export function debugTrap(kind: i32): i32 {
  if (kind == 1) return load<i32>(<usize>0xfffffff0);
  if (kind == 2) {
    heap.alloc(<usize>0xfff00000);
    return 0;
  }
  unreachable();
  return 0;
}
