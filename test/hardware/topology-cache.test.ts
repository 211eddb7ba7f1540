// topologyFor: the content-based cache of validated topologies and their pair-score matrices.
import { describe, expect, it } from 'vitest';
import { type Link, pairScoreMatrix, TOPOLOGY_CACHE_SIZE, type Topology, topologyFor, validateTopology } from '../../src/hardware/topology.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

function ring(gpus: number, nvlink = 1): Topology {
  const links: Link[] = [];
  for (let a = 0; a < gpus; a++) links.push({ a, b: (a + 1) % gpus, pcie: 'PIX', nvlink });
  return { gpus, links };
}

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('topologyFor', () => {
  it('gives the same validated topology, matrix and key for an equal copy', () => {
    const t = ring(6);
    const first = topologyFor(t);
    const again = topologyFor(copy(t));
    expect(again.key).toBe(first.key);
    expect(again.matrix).toBe(first.matrix);
    expect(again.topology).toBe(first.topology);
    expect(first.topology).toEqual(validateTopology(t));
    expect(Array.from(first.matrix)).toEqual(Array.from(pairScoreMatrix(validateTopology(t))));
    expect(Object.isFrozen(first.topology) && Object.isFrozen(first.topology.links) && Object.isFrozen(first.topology.links[0])).toBe(true);
  });

  it('notices any changed field: gpus, a, b, pcie, nvlink, a link added or removed', () => {
    const base = ring(5);
    const key = topologyFor(base).key;
    const edits: Array<(t: Topology) => void> = [
      (t) => (t.gpus = 6),
      (t) => (t.links[2].a = 4),
      (t) => (t.links[2].b = 0),
      (t) => (t.links[1].pcie = 'SYS'),
      (t) => delete t.links[1].pcie,
      (t) => (t.links[3].nvlink = 2),
      (t) => delete t.links[3].nvlink,
      (t) => (t.links as Link[]).pop(),
      (t) => (t.links as Link[]).push({ a: 0, b: 2, pcie: 'PHB' }),
    ];
    for (const edit of edits) {
      const t = copy(base);
      edit(t);
      let got: ReturnType<typeof topologyFor>;
      try {
        got = topologyFor(t);
      } catch (error) {
        expect(error).toBeInstanceOf(AllocationError); // e.g. a duplicated pair
        continue;
      }
      expect(got.key).not.toBe(key);
      expect(got.topology).toEqual(validateTopology(t));
      expect(Array.from(got.matrix)).toEqual(Array.from(pairScoreMatrix(validateTopology(t))));
    }
    expect(topologyFor(copy(base)).topology).toEqual(validateTopology(base));
  });

  it('treats a missing links field and an empty list apart, each as validated', () => {
    const none = topologyFor({ gpus: 3 } as unknown as Topology);
    const empty = topologyFor({ gpus: 3, links: [] });
    expect(none.topology).toEqual({ gpus: 3, links: [] });
    expect(empty.topology).toEqual({ gpus: 3, links: [] });
    expect(topologyFor({ gpus: 3 } as unknown as Topology).key).toBe(none.key);
    expect(topologyFor({ gpus: 3, links: [] }).key).toBe(empty.key);
  });

  it('never caches an invalid topology: the error comes back every time, naming the field', () => {
    const bad = { gpus: 2, links: [{ a: 0, b: 0, pcie: 'PIX' }] };
    for (let k = 0; k < 3; k++) expect(() => topologyFor(bad, 'node.topology')).toThrow(/node\.topology\.links\[0\]/);
  });

  it('reads a getter once and validates what it read; a throwing getter is an AllocationError', () => {
    const t = ring(4);
    topologyFor(t);
    let reads = 0;
    const link = {
      get a() {
        reads++;
        return 0;
      },
      b: 1,
      pcie: 'PIX',
      nvlink: 1,
    };
    const tricky = { gpus: 4, links: [link, ...copy(t.links.slice(1))] };
    expect(topologyFor(tricky).topology).toEqual(validateTopology(copy(t)));
    const throwing = {
      gpus: 4,
      links: [
        {
          get a(): number {
            throw new Error('boom');
          },
          b: 1,
        },
      ],
    };
    expect(() => topologyFor(throwing)).toThrow(AllocationError);
    expect(reads).toBeGreaterThan(0);
  });

  it('does not take inherited fields for own ones', () => {
    const t = ring(4);
    topologyFor(t);
    const links = copy(t.links).map((l) => Object.create(l) as Topology['links'][number]);
    expect(() => topologyFor({ gpus: 4, links })).toThrow(AllocationError);
  });

  it('keeps the last TOPOLOGY_CACHE_SIZE topologies, most recently used first', () => {
    const keys = Array.from({ length: TOPOLOGY_CACHE_SIZE }, (_, k) => topologyFor(ring(3 + k)).key);
    for (let k = 0; k < TOPOLOGY_CACHE_SIZE; k++) expect(topologyFor(ring(3 + k)).key).toBe(keys[k]);
    topologyFor(ring(3 + TOPOLOGY_CACHE_SIZE));
    expect(topologyFor(ring(3 + TOPOLOGY_CACHE_SIZE - 1)).key).toBe(keys[TOPOLOGY_CACHE_SIZE - 1]);
    expect(topologyFor(ring(3)).key).not.toBe(keys[0]); // the least recently used one was dropped
  });

  it('allocateAligned answers the same whether the topology is cached or edited between calls (both backends)', () => {
    const t = ring(8, 2);
    for (const e of [wasm, ts]) {
      const a = e.allocateAligned({ topology: t, available: [0, 1, 2, 3, 4, 5, 6, 7], size: 3, policy: 'besteffort' });
      const edited = copy(t);
      edited.links[4].nvlink = 12; // 4-5 becomes the best pair
      const b = e.allocateAligned({ topology: edited, available: [0, 1, 2, 3, 4, 5, 6, 7], size: 2, policy: 'topology' });
      const c = e.allocateAligned({ topology: copy(t), available: [0, 1, 2, 3, 4, 5, 6, 7], size: 3, policy: 'besteffort' });
      expect(b.devices).toEqual([4, 5]);
      expect(c).toEqual(a);
    }
  });
});
