// Random topologies and requests for the aligned property tests: few distinct scores, so ties are common.
import fc from 'fast-check';
import { type Link, PCIE_LEVELS, type Topology } from '../../../src/hardware/topology.js';

/** A topology of `min`..`max` GPUs; each pair is missing, PCIe only, or PCIe plus 1-2 NVLinks. */
export function arbTopology(min: number, max: number): fc.Arbitrary<Topology> {
  return fc.integer({ min, max }).chain((gpus) => {
    const pairs = (gpus * (gpus - 1)) / 2;
    return fc.array(fc.tuple(fc.integer({ min: -1, max: PCIE_LEVELS.length - 1 }), fc.constantFrom(0, 0, 0, 1, 2)), { minLength: pairs, maxLength: pairs }).map((cells) => {
      const links: Link[] = [];
      let k = 0;
      for (let a = 0; a < gpus; a++) {
        for (let b = a + 1; b < gpus; b++) {
          const [level, nvlink] = cells[k++];
          if (level < 0) continue;
          const link: Link = { a, b, pcie: PCIE_LEVELS[level] };
          if (nvlink > 0) link.nvlink = nvlink;
          links.push(link);
        }
      }
      return { gpus, links };
    });
  });
}

/** A request over `topology`: a shuffled available subset, some required GPUs, a size. */
export function arbRequest(topology: Topology, maxAvailable = 64): fc.Arbitrary<{ available: number[]; required: number[]; size: number }> {
  const all = Array.from({ length: topology.gpus }, (_, g) => g);
  return fc
    .tuple(
      fc.shuffledSubarray(all, { minLength: 1, maxLength: Math.min(maxAvailable, all.length) }),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 1_000_000 }),
    )
    .chain(([available, seed, reqCount, sizeSeed]) =>
      fc.shuffledSubarray(available, { minLength: 0, maxLength: Math.min(reqCount, available.length) }).map((required) => {
        // Mostly feasible sizes; now and then one that is not.
        const size = sizeSeed % 10 === 0 ? 1 + (seed % (topology.gpus + 1)) : 1 + (sizeSeed % available.length);
        const order = [...available];
        for (let k = order.length - 1; k > 0; k--) {
          const j = (seed * (k + 7)) % (k + 1);
          [order[k], order[j]] = [order[j], order[k]];
        }
        return { available: order, required, size };
      }),
    );
}
