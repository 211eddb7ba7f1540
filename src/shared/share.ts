// One GPU capacity unit for memory-placed models and share-placed pods: bytes. A pod's share of
// `milli` milli-GPU is charged as bytes, and a GPU's free share is read back from its free bytes.
//
// Why this is exact: a GPU of T bytes holding k shares m_1..m_k (milli) is charged
// Σ floor(m_i·T/1000) = Σ m_i·T/1000 − Σ e_i bytes, each e_i in [0, 0.999]. Its free bytes are
// F = T − that, so F·1000/T = (1000 − Σ m_i) + 1000·Σ e_i / T, and the floor is exactly 1000 − Σ m_i
// as long as Σ e_i < T/1000, which holds when k < T/1000. Shares are at least 1 milli, so k ≤ 1000,
// and any GPU of more than 1,000,000 bytes gives back exactly 1000 − Σ milli: pods see whole-milli
// arithmetic. A smaller GPU takes no share (LIMITS.maxNoShareGpuMemory: commit refuses one, the pod
// scheduler offers such a node to CPU-only pods only). Memory held otherwise (memoryUsed, a model's
// slot) lowers the share to the floor of its true fraction: a 40 GiB slot on an 80 GiB GPU leaves 500 milli.
//
// A pod of m milli fits where freeMilli ≥ m, i.e. F ≥ m·T/1000 ≥ floor(m·T/1000): what a scheduler
// plans, commit (which checks F ≥ the charge) always accepts.

/**
 * Bytes a share of `milli` milli-GPU charges on a GPU of `memoryTotal` bytes: floor(milli ×
 * memoryTotal / 1000), exact for any memoryTotal below 2^53 (computed without the full product).
 */
export function shareBytes(milli: number, memoryTotal: number): number {
  const whole = Math.floor(memoryTotal / 1000);
  return milli * whole + Math.floor((milli * (memoryTotal - whole * 1000)) / 1000);
}

/** The free share of a GPU, in milli-GPU: floor(free × 1000 / memoryTotal), 0..1000 (0 for a GPU of 0 bytes or none free). */
export function freeMilli(free: number, memoryTotal: number): number {
  if (!(free > 0) || !(memoryTotal > 0)) return 0;
  if (free >= memoryTotal) return 1000;
  const scaled = free * 1000;
  if (scaled <= Number.MAX_SAFE_INTEGER) {
    // The division may round up across an integer; settle the floor with exact integer products.
    let q = Math.floor(scaled / memoryTotal);
    if (q * memoryTotal > scaled) q--;
    else if ((q + 1) * memoryTotal <= scaled) q++;
    return q;
  }
  return Number((BigInt(free) * 1000n) / BigInt(memoryTotal));
}
