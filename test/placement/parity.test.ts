// planPlacement: wasm and ts agree on random nodes, and both match a brute-force reading of the spec.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkScore, type PcieLevel, type Topology } from '../../src/hardware/topology.js';
import type { PlacementOption, PlacementRequest, Slot } from '../../src/placement/index.js';
import { compareNatural } from '../../src/shared/natural-order.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const U = 2 ** 30;

function arbNode(maxGpus: number): fc.Arbitrary<PlacementRequest> {
  return fc.integer({ min: 1, max: maxGpus }).chain((n) => {
    const gpu = fc.integer({ min: 0, max: n - 1 });
    const slot = fc.record({
      gpus: fc.uniqueArray(gpu, { minLength: 1, maxLength: Math.min(n, 4) }),
      memoryPerGpu: fc.integer({ min: 0, max: 40 }).map((x) => x * U),
      lastActivity: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      stale: fc.option(fc.boolean(), { nil: undefined }),
      model: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    });
    const link = fc.record({ a: gpu, b: gpu, pcie: fc.constantFrom<PcieLevel>('PIX', 'PHB', 'SYS'), nvlink: fc.integer({ min: 0, max: 2 }) });
    return fc
      .record({
        totals: fc.array(fc.constantFrom(0, 16, 40, 80), { minLength: n, maxLength: n }),
        order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        slots: fc.array(slot, { maxLength: 8 }),
        links: fc.option(fc.array(link, { maxLength: 2 * n }), { nil: undefined }),
        memory: fc.integer({ min: 1, max: 200 }).map((x) => x * U + (x % 3)),
        model: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
        sizes: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: n + 1 }), { minLength: 1, maxLength: 4 }), { nil: undefined }),
        allowEviction: fc.option(fc.boolean(), { nil: undefined }),
        policy: fc.option(fc.constantFrom<'spread' | 'pack'>('spread', 'pack'), { nil: undefined }),
        limit: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
      })
      .map((r) => {
        // Drop slots that would over-schedule a GPU, so the node is a real one.
        const used = new Array(n).fill(0);
        const slots: Slot[] = [];
        r.slots.forEach((s, k) => {
          if (s.gpus.some((g) => used[g] + s.memoryPerGpu > r.totals[g] * U)) return;
          for (const g of s.gpus) used[g] += s.memoryPerGpu;
          const slot: Slot = { id: `s${k}`, gpus: s.gpus, memoryPerGpu: s.memoryPerGpu };
          if (s.lastActivity !== undefined) slot.lastActivity = s.lastActivity;
          if (s.stale !== undefined) slot.stale = s.stale;
          if (s.model !== undefined) slot.model = s.model;
          slots.push(slot);
        });
        const req: PlacementRequest = { gpus: r.order.map((g) => ({ index: g, memoryTotal: r.totals[g] * U })), slots, memory: r.memory };
        if (r.links !== undefined) {
          const seen = new Set<number>();
          const links = r.links.filter((l) => l.a !== l.b && !seen.has(Math.min(l.a, l.b) * 64 + Math.max(l.a, l.b)) && seen.add(Math.min(l.a, l.b) * 64 + Math.max(l.a, l.b)));
          req.topology = { gpus: n, links };
        }
        if (r.model !== undefined) req.model = r.model;
        if (r.sizes !== undefined) req.tensorParallelSizes = r.sizes;
        if (r.allowEviction !== undefined) req.allowEviction = r.allowEviction;
        if (r.policy !== undefined) req.policy = r.policy;
        if (r.limit !== undefined) req.limit = r.limit;
        return req;
      });
  });
}

/** The spec, read literally: every subset, per-GPU validation, greedy eviction, one sort. */
function oracle(req: PlacementRequest): PlacementOption[] {
  const idx = req.gpus.map((g) => g.index).sort((a, b) => a - b);
  const total = new Map(req.gpus.map((g) => [g.index, g.memoryTotal]));
  const alloc = new Map(idx.map((g) => [g, 0]));
  for (const s of req.slots ?? []) for (const g of s.gpus) alloc.set(g, alloc.get(g)! + s.memoryPerGpu);
  const stale = (req.allowEviction ?? true) ? (req.slots ?? []).filter((s) => s.stale === true && (req.model === undefined || s.model !== req.model)) : [];
  stale.sort((a, b) => (a.lastActivity ?? -Infinity) - (b.lastActivity ?? -Infinity) || compareNatural(a.id, b.id));
  const sizes = req.tensorParallelSizes ?? idx.map((_, k) => k + 1);
  const score = (set: number[], t?: Topology) => {
    let s = 0;
    for (let i = 0; i < set.length; i++) for (let j = i + 1; j < set.length; j++) s += linkScore(t?.links.find((l) => Math.min(l.a, l.b) === set[i] && Math.max(l.a, l.b) === set[j]));
    return s;
  };
  type C = { gpus: number[]; per: number; evict: Slot[]; bytes: number; score: number; min: number; sum: number };
  const out: C[] = [];
  for (let mask = 1; mask < 1 << idx.length; mask++) {
    const set = idx.filter((_, k) => (mask >> k) & 1);
    if (!sizes.includes(set.length)) continue;
    const per = Math.ceil(req.memory / set.length);
    const avail = new Map(set.map((g) => [g, total.get(g)! - alloc.get(g)!]));
    const evict: Slot[] = [];
    const lacking = () => set.filter((g) => avail.get(g)! < per);
    for (const s of stale) {
      const lack = lacking();
      if (lack.length === 0) break;
      if (s.memoryPerGpu > 0 && s.gpus.some((g) => lack.includes(g))) {
        evict.push(s);
        for (const g of s.gpus) if (avail.has(g)) avail.set(g, avail.get(g)! + s.memoryPerGpu);
      }
    }
    if (lacking().length > 0 || set.some((g) => total.get(g)! < per)) continue;
    const rem = set.map((g) => avail.get(g)! - per);
    out.push({
      gpus: set,
      per,
      evict,
      bytes: evict.reduce((a, s) => a + s.memoryPerGpu * s.gpus.length, 0),
      score: score(set, req.topology),
      min: Math.min(...rem),
      sum: rem.reduce((a, b) => a + b, 0),
    });
  }
  const pack = req.policy === 'pack';
  out.sort(
    (a, b) =>
      a.evict.length - b.evict.length ||
      a.bytes - b.bytes ||
      a.gpus.length - b.gpus.length ||
      b.score - a.score ||
      (pack ? a.sum - b.sum : b.min - a.min) ||
      a.gpus.map((g, k) => g - b.gpus[k]).find((d) => d !== 0)!,
  );
  return out.slice(0, req.limit ?? 16).map((c) => {
    const o: PlacementOption = { gpus: c.gpus, memoryPerGpu: c.per, evict: c.evict.map((s) => s.id), score: c.score };
    if (req.model !== undefined) o.model = req.model;
    return o;
  });
}

describe('planPlacement parity', () => {
  it('wasm and ts agree on random nodes of up to 16 GPUs', () => {
    fc.assert(
      fc.property(arbNode(16), (req) => {
        expect(wasm.planPlacement(req)).toEqual(ts.planPlacement(req));
      }),
      { numRuns: 300 },
    );
  });

  it('both match a brute-force reading of the spec on nodes of up to 7 GPUs', () => {
    fc.assert(
      fc.property(arbNode(7), (req) => {
        const expected = oracle(req);
        expect(wasm.planPlacement(req).options).toEqual(expected);
        expect(ts.planPlacement(req).options).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('every option fits each chosen GPU after its evictions, and never evicts a busy or same-model slot', () => {
    fc.assert(
      fc.property(arbNode(10), (req) => {
        const p = wasm.planPlacement(req);
        const slots = new Map((req.slots ?? []).map((s) => [s.id, s]));
        for (const o of p.options) {
          for (const g of o.gpus) {
            const total = req.gpus.find((x) => x.index === g)!.memoryTotal;
            const kept = (req.slots ?? []).filter((s) => s.gpus.includes(g) && !o.evict.includes(s.id));
            expect(kept.reduce((a, s) => a + s.memoryPerGpu, 0) + o.memoryPerGpu).toBeLessThanOrEqual(total);
          }
          for (const id of o.evict) {
            const s = slots.get(id)!;
            expect(s.stale).toBe(true);
            if (req.model !== undefined) expect(s.model).not.toBe(req.model);
          }
        }
        if (p.options.length === 0) expect(p.reason).toBeDefined();
      }),
      { numRuns: 200 },
    );
  });

  it('keeps WASM memory stable over many calls after warm-up', () => {
    const req: PlacementRequest = { gpus: Array.from({ length: 16 }, (_, index) => ({ index, memoryTotal: 80 * U })), memory: 100 * U, topology: { gpus: 16, links: [{ a: 0, b: 1, nvlink: 2 }] } };
    for (let k = 0; k < 50; k++) wasm.planPlacement(req);
    const pages = wasm.memoryPages();
    for (let k = 0; k < 2000; k++) wasm.planPlacement(req);
    expect(wasm.memoryPages()).toBe(pages);
  });
});
