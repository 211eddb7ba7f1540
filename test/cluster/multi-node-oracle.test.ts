// Plans across nodes against brute force on small random clusters (labels, topologies, slots, used
// memory): the same options in the same order (every set of nodes, every size, ranked by the
// documented key), or none with a reason when brute force finds none. Both backends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/index.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { referenceSpans } from '../support/span-reference.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const labelValue = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined });
const nodeArb = (k: number) =>
  fc
    .record({
      gpus: fc.constantFrom(1, 2, 3, 4, 6),
      memory: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 6, maxLength: 6 }),
      zone: labelValue,
      rack: labelValue,
      nvlink: fc.boolean(),
      slot: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    })
    .map(({ gpus, memory, zone, rack, nvlink, slot }): ClusterNode => {
      const labels: Record<string, string> = {};
      if (zone !== undefined) labels.zone = zone;
      if (rack !== undefined) labels.rack = rack;
      const node: ClusterNode = { id: `n${k}`, gpus: Array.from({ length: gpus }, (_, index) => ({ index, memoryTotal: 8 * G, memoryUsed: memory[index] * (G / 2) })), labels };
      // An NVLink pair on the first two GPUs makes sets score differently.
      if (nvlink && gpus >= 2) node.topology = { gpus, links: [{ a: 0, b: 1, nvlink: 2 }] };
      if (slot !== undefined) node.slots = [{ id: `s${k}`, gpus: [gpus - 1], memoryPerGpu: slot * (G / 4), stale: slot % 2 === 0 }];
      return node;
    });
const cluster = fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => nodeArb(k))));
const request = fc.record({
  memory: fc.integer({ min: 4, max: 60 }).map((x) => x * G),
  pack: fc.boolean(),
  maxNodes: fc.integer({ min: 2, max: 5 }),
  required: fc.option(fc.constantFrom('zone', 'rack'), { nil: undefined }),
  preferred: fc.constantFrom<string[]>([], ['zone'], ['rack'], ['zone', 'rack'], ['rack', 'zone']),
  limit: fc.integer({ min: 1, max: 12 }),
  sizes: fc.option(fc.constantFrom<number[]>([1], [2], [1, 2], [2, 3], [1, 2, 4]), { nil: undefined }),
});

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('plans across nodes against brute force (%s)', (_name, engine) => {
  it('lists the same options in the same order', () => {
    fc.assert(
      fc.property(cluster, request, (nodes, r) => {
        const state = engine.createClusterState({ nodes });
        const plan = state.plan({
          memory: r.memory,
          policy: r.pack ? 'pack' : 'spread',
          maxNodes: r.maxNodes,
          limit: r.limit,
          allowEviction: false,
          ...(r.sizes === undefined ? {} : { tensorParallelSizes: r.sizes }),
          topology: { ...(r.required === undefined ? {} : { required: r.required }), preferred: r.preferred },
        });
        const single = plan.options.filter((o) => o.parts === undefined);
        const spans = plan.options.filter((o) => o.parts !== undefined);
        // One-node options first, then the rest.
        expect(plan.options.slice(0, single.length)).toEqual(single);
        const want = single.length >= r.limit ? [] : referenceSpans(engine, state.toJSON(), { ...r, ...(r.sizes === undefined ? {} : { sizes: r.sizes }) }).slice(0, r.limit - single.length);
        expect(spans.map(({ parts, tensorParallel, pipelineParallel, score }) => ({ parts, tensorParallel, pipelineParallel, score }))).toEqual(want);
        if (plan.options.length === 0) expect(plan.reason?.code).toBe('NO_VIABLE_OPTION');
      }),
      { numRuns: depth(60, 600) },
    );
  });
});
