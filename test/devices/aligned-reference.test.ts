// The go-gpuallocator port (bench/reference): partition counts, its padding defect, bounded samples.
import { describe, expect, it } from 'vitest';
import { bestEffortReference } from '../../bench/reference/gpuallocator.js';
import { flatTopology, pairScoreMatrix, type Topology } from '../../src/hardware/topology.js';

const lonePair: Topology = {
  gpus: 5,
  links: [
    [0, 1],
    [0, 2],
    [0, 3],
    [0, 4],
    [1, 2],
    [1, 3],
    [1, 4],
    [2, 3],
    [2, 4],
  ]
    .map(([a, b]) => ({ a, b, pcie: 'SYS' as const }))
    .concat([{ a: 3, b: 4, pcie: 'PIX' as never, nvlink: 2 } as never]),
};

describe('bestEffortReference', () => {
  it('enumerates every partition: (2n-1)!! pairings, triples, padded triples', () => {
    const flat = pairScoreMatrix(flatTopology(9));
    const ids = (n: number) => Array.from({ length: n }, (_, g) => g);
    expect(bestEffortReference(flat, 9, ids(8), [], 2).partitions).toBe(105); // 7·5·3·1
    expect(bestEffortReference(flat, 9, ids(9), [], 3).partitions).toBe(280); // 9! / (3!^3 · 3!)
    // 7 GPUs + 2 padding slots that must share a group: 7 choices for their partner × 10 ways for the other 6.
    expect(bestEffortReference(flat, 9, ids(7), [], 3).partitions).toBe(70);
  });

  it('upstream as is returns the padded group; fixed, it never does', () => {
    const m = pairScoreMatrix(lonePair);
    expect(bestEffortReference(m, 5, [0, 1, 2, 3, 4], [], 3, { fixPadding: false }).devices).toEqual([3, 4]);
    expect(bestEffortReference(m, 5, [0, 1, 2, 3, 4], [], 3).devices).toEqual([0, 1, 2]);
  });

  it('stops after maxPartitions and says so', () => {
    const flat = pairScoreMatrix(flatTopology(16));
    const r = bestEffortReference(
      flat,
      16,
      Array.from({ length: 16 }, (_, g) => g),
      [],
      2,
      { maxPartitions: 1000 },
    );
    expect(r.partitions).toBe(1000);
    expect(r.complete).toBe(false);
    expect(r.devices).toEqual([0, 1]);
  });
});
