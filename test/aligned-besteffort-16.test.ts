import { describe, expect, it } from 'vitest';
import { engines } from './engines.js';
import type { Topology } from '../src/topology.js';

/** Unstructured 16-GPU score matrices: every pair a random PCIe level and 0–2 NVLinks (seeded). */
function randomTopology(gpus: number, seed: number): Topology {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const levels = ['PIX', 'PXB', 'PHB', 'NODE', 'SYS'] as const;
  const links = [];
  for (let a = 0; a < gpus; a++) for (let b = a + 1; b < gpus; b++) links.push({ a, b, pcie: levels[Math.floor(next() * 5)], nvlink: Math.floor(next() * 3) });
  return { gpus, links };
}

const { wasm, ts } = await engines();

describe('besteffort on unstructured 16-GPU matrices (group enumeration, potentials, branch and bound)', () => {
  for (const seed of [42, 7, 1234]) {
    it(`seed ${seed}: every size, with and without required GPUs, backends agree`, () => {
      const topology = randomTopology(16, seed);
      // A shuffled order: upstream's answer depends on it.
      const available = Array.from({ length: 16 }, (_, g) => (g * 7 + seed) % 16);
      for (let size = 2; size <= 15; size++) {
        for (const required of [[], [available[5]], [available[3], available[11]]]) {
          if (required.length > size) continue;
          const req = { topology, available, required, size, policy: 'besteffort' as const };
          const a = wasm.allocateAligned(req);
          const b = ts.allocateAligned(req);
          expect(a).toEqual(b);
          expect(a.devices).toHaveLength(size);
          for (const g of required) expect(a.devices).toContain(g);
        }
      }
    });
  }
});
