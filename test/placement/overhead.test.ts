// planPlacement's cheaper shared work (validation without field names on the common path, reused
// scratch arrays, kernels' results reused, no kernel call when nothing can be enumerated) against the
// code it replaced (commit cf3b161), on random valid and hostile-edited requests: same plans, same errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { type Topology, topologyFor } from '../../src/hardware/topology.js';
import type { Kernels } from '../../src/kernels.js';
import {
  anyGpuEligible,
  compareEvictionOrder,
  isEvictable,
  maskOf,
  NODE_GPU_KEYS,
  type NodeModel,
  noOptionReason,
  optionOf,
  PLACEMENT_BUDGET,
  PLACEMENT_REQUEST_KEYS,
  type PlacementOption,
  type PlacementPlan,
  type PlacementRequest,
  type PlacementSearch,
  planPlacement,
  positionMatrix,
  potentialOf,
  rejectionsFor,
  runSearch,
  SLOT_KEYS,
  type Slot,
  shareOf,
  sizesFor,
  validatePlanRequest,
} from '../../src/placement/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { LIMITS } from '../../src/shared/limits.js';
import { describeValue, fail, readInput, rejectUnknownKeys, requireArray, requireBoolean, requireInteger, requireObject, requireString } from '../../src/shared/validate.js';
import { engines, outcome } from '../support/engines.js';
import { applyEdit, hostileEdit } from '../support/fuzz/hostile.js';
import { placementRequest } from '../support/fuzz/requests.js';

const { wasm, ts } = await engines();

/** validateSlot as it was (every field name built, then checked; commit cf3b161). */
function oldValidateSlot(value: unknown, f: string, indices: ReadonlySet<number>, ids: Set<string>): Slot {
  const s = requireObject(f, value);
  rejectUnknownKeys(f, s, SLOT_KEYS); // a rule added since: unknown keys are errors
  const id = requireString(`${f}.id`, s.id, LIMITS.maxIdLength);
  if (ids.has(id)) throw new AllocationError('DUPLICATE_SLOT', `${f}.id: slot ID ${describeValue(id)} appears twice`, { field: `${f}.id` });
  ids.add(id);
  const gpusRaw = requireArray(`${f}.gpus`, s.gpus, LIMITS.maxGpus);
  // The message names the one exception added since (a pod's slot without GPUs holds cpu or hostMemory).
  if (gpusRaw.length === 0 && s.cpu === undefined && s.hostMemory === undefined) fail('INVALID_ARGUMENT', `${f}.gpus`, 'at least one GPU index (or cpu / hostMemory for a slot without GPUs)', gpusRaw);
  const gpus: number[] = [];
  gpusRaw.forEach((g, j) => {
    const idx = requireInteger(`${f}.gpus[${j}]`, g, 0, 0x7fffffff);
    if (!indices.has(idx)) throw new AllocationError('UNKNOWN_DEVICE_ID', `${f}.gpus[${j}]: GPU index ${idx} is not one of the node's GPUs`, { field: `${f}.gpus[${j}]` });
    if (gpus.includes(idx)) throw new AllocationError('DUPLICATE_DEVICE', `${f}.gpus[${j}]: GPU index ${idx} appears twice`, { field: `${f}.gpus[${j}]` });
    gpus.push(idx);
  });
  gpus.sort((a, b) => a - b);
  const slot: Slot = { id, gpus, memoryPerGpu: requireInteger(`${f}.memoryPerGpu`, s.memoryPerGpu, 0, LIMITS.maxBytes) };
  if (s.model !== undefined) slot.model = requireString(`${f}.model`, s.model, LIMITS.maxIdLength);
  if (s.lastActivity !== undefined) {
    if (typeof s.lastActivity !== 'number' || !Number.isFinite(s.lastActivity)) fail('INVALID_ARGUMENT', `${f}.lastActivity`, 'a finite number (ms since the epoch)', s.lastActivity);
    slot.lastActivity = s.lastActivity;
  }
  if (s.stale !== undefined) slot.stale = requireBoolean(`${f}.stale`, s.stale);
  return slot;
}

/** validateNode as it was (every field name built, then checked). */
function oldValidateNode(gpusValue: unknown, slotsValue: unknown, topologyValue: unknown, prefix: string): NodeModel {
  const rawGpus = requireArray(`${prefix}gpus`, gpusValue, LIMITS.maxGpus);
  const list: Array<{ index: number; memoryTotal: number }> = [];
  const seen = new Set<number>();
  rawGpus.forEach((raw, k) => {
    const f = `${prefix}gpus[${k}]`;
    const g = requireObject(f, raw);
    rejectUnknownKeys(f, g, NODE_GPU_KEYS); // a rule added since: unknown keys are errors
    const index = requireInteger(`${f}.index`, g.index, 0, 0x7fffffff);
    if (seen.has(index)) throw new AllocationError('DUPLICATE_DEVICE', `${f}.index: GPU index ${index} appears twice`, { field: `${f}.index` });
    seen.add(index);
    list.push({ index, memoryTotal: requireInteger(`${f}.memoryTotal`, g.memoryTotal, 0, LIMITS.maxBytes) });
  });
  list.sort((a, b) => a.index - b.index);
  let topology: Topology | undefined;
  if (topologyValue !== undefined) {
    topology = topologyFor(topologyValue, `${prefix}topology`).topology;
    for (const g of list) {
      if (g.index >= topology.gpus)
        throw new AllocationError('INVALID_TOPOLOGY', `${prefix}topology: GPU index ${g.index} is outside the topology of ${topology.gpus} GPUs`, { field: `${prefix}topology.gpus` });
    }
  }
  // validateSlot as it was on every slot, with its field name.
  const ids = new Set<string>();
  const slots = slotsValue === undefined ? [] : requireArray(`${prefix}slots`, slotsValue, LIMITS.maxSlotsPerNode).map((v, k) => oldValidateSlot(v, `${prefix}slots[${k}]`, seen, ids));
  return { index: list.map((g) => g.index), total: list.map((g) => g.memoryTotal), used: list.map(() => 0), slots, topology };
}

/** planPlacement as it was: fresh typed arrays, formatBytes each time, every search sent to the kernels. */
function oldPlanPlacement(kernels: Kernels, request: PlacementRequest): PlacementPlan {
  const r = requireObject('request', request);
  rejectUnknownKeys('', r, PLACEMENT_REQUEST_KEYS); // a rule added since: unknown keys are errors
  const node = oldValidateNode(r.gpus, r.slots, r.topology, '');
  const req = validatePlanRequest(r);
  const n = node.index.length;
  const pos = new Map<number, number>();
  node.index.forEach((idx, p) => pos.set(idx, p));
  const free = new Float64Array(n);
  const total = new Float64Array(node.total);
  for (let p = 0; p < n; p++) free[p] = node.total[p];
  for (const s of node.slots) {
    for (const g of s.gpus) {
      const p = pos.get(g)!;
      free[p] -= s.memoryPerGpu;
      if (node.total[p] - free[p] > LIMITS.maxBytes) fail('LIMIT_EXCEEDED', `slots`, `at most ${LIMITS.maxBytes} bytes allocated on GPU ${g}`, node.total[p] - free[p]);
    }
  }
  const stale = req.allowEviction ? node.slots.filter((s) => isEvictable(s, req.model)).sort(compareEvictionOrder) : [];
  const staleMasks = new Int32Array(2 * stale.length);
  const staleBytes = new Float64Array(stale.length);
  const evictable = new Float64Array(n);
  stale.forEach((s, k) => {
    const positions = s.gpus.map((g) => pos.get(g)!);
    [staleMasks[2 * k], staleMasks[2 * k + 1]] = maskOf(positions);
    staleBytes[k] = s.memoryPerGpu;
    for (const p of positions) evictable[p] += s.memoryPerGpu;
  });
  const sizes = sizesFor(req, n);
  const found = runSearch(kernels, {
    gpus: n,
    free,
    total,
    sizes: Int32Array.from(sizes),
    shares: Float64Array.from(sizes, (k) => shareOf(req.memory, k)),
    staleMasks,
    staleBytes,
    pairScores: positionMatrix(node.topology, node.index),
    pack: req.pack,
    limit: req.limit,
    budget: PLACEMENT_BUDGET,
  });
  const options: PlacementOption[] = [];
  for (let c = 0; c < found.count; c++) options.push(optionOf(found, c, node.index, req.memory, stale, req.model));
  const rejected = rejectionsFor(node.index, total, free, evictable, req.memory, sizes);
  if (options.length === 0) return { options: [], rejected, reason: noOptionReason(req.memory, sizes.length === 0 ? null : sizes.join(', '), n, rejected.length) } as PlacementPlan;
  return { options, rejected } as PlacementPlan;
}

/**
 * Requests, valid or with one hostile edit. The edit stays a recipe until the property builds the
 * request (fast-check inspects generated values; a hostile proxy must not meet it).
 */
const requests = placementRequest.chain((valid) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(() => valid as unknown) },
    { weight: 3, arbitrary: hostileEdit(valid).map((edit) => () => applyEdit(valid, edit)) },
    { weight: 1, arbitrary: fc.constantFrom(1, 2, 4, 8).map((tp) => () => ({ ...valid, tensorParallelSizes: [tp], memory: valid.memory * 4 }) as unknown) },
    // GPUs and slot GPUs out of order (the sorting paths), with -0 for 0.
    {
      weight: 1,
      arbitrary: fc.constant(
        () =>
          ({
            ...valid,
            gpus: valid.gpus
              .slice()
              .reverse()
              .map((g) => (g.index === 0 ? { ...g, index: -0 } : g)),
            slots: valid.slots?.map((sl) => ({ ...sl, gpus: sl.gpus.slice().reverse() })),
          }) as unknown,
      ),
    },
  ),
);

describe('planPlacement shared work', () => {
  it('gives the plans and errors of the code it replaced, on both backends', () => {
    fc.assert(
      fc.property(requests, (build) => {
        const request = build();
        let copy: PlacementRequest;
        try {
          copy = readInput('request', request, false) as PlacementRequest;
        } catch {
          return; // readInput's own errors are the same either way
        }
        for (const engine of [wasm, ts]) {
          const expected = outcome(() => oldPlanPlacement(engine.kernels, copy));
          expect(outcome(() => planPlacement(engine.kernels, copy))).toStrictEqual(expected);
          expect(outcome(() => engine.planPlacement(request as PlacementRequest))).toStrictEqual(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('skips the kernels only when no GPU can take any share, where they find nothing (count 0, no overflow)', () => {
    const search = fc.integer({ min: 0, max: 16 }).chain((n) =>
      fc
        .record({
          free: fc.array(fc.integer({ min: -40, max: 80 }), { minLength: n, maxLength: n }),
          extra: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: n, maxLength: n }),
          stale: fc.array(fc.record({ lo: fc.integer({ min: 0, max: (1 << n) - 1 }), bytes: fc.integer({ min: 0, max: 30 }) }), { maxLength: 5 }),
          sizes: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, n) }), { minLength: 1, maxLength: 4 }),
          memory: fc.integer({ min: 1, max: 400 }),
        })
        .map(({ free, extra, stale, sizes, memory }): PlacementSearch => {
          const sorted = sizes.sort((a, b) => a - b);
          return {
            gpus: n,
            free: Float64Array.from(free),
            total: Float64Array.from(free, (f, p) => Math.max(f, 0) + extra[p]),
            sizes: Int32Array.from(sorted),
            shares: Float64Array.from(sorted, (k) => shareOf(memory, k)),
            staleMasks: Int32Array.from(stale.flatMap((s) => [s.lo, 0])),
            staleBytes: Float64Array.from(stale, (s) => s.bytes),
            pairScores: null,
            pack: false,
            limit: 16,
            budget: PLACEMENT_BUDGET,
          };
        }),
    );
    let skipped = 0;
    fc.assert(
      fc.property(search, (s) => {
        const any = anyGpuEligible(s, potentialOf(s.gpus, s.free, s.staleMasks, s.staleBytes, new Float64Array(s.gpus)));
        for (const engine of [wasm, ts]) {
          const found = engine.kernels.placementSearch(s);
          if (!any) {
            expect(found.count).toBe(0);
            expect(found.overflowSize).toBe(0);
          }
        }
        if (!any) skipped++;
      }),
      { numRuns: 500 },
    );
    expect(skipped).toBeGreaterThan(20);
  });

  it('the wasm marshaling (one reserved block, element copies) and the ts kernel agree on random 16-GPU searches', () => {
    const search = fc.integer({ min: 1, max: 16 }).chain((n) =>
      fc
        .record({
          free: fc.array(fc.integer({ min: -10, max: 80 }), { minLength: n, maxLength: n }),
          stale: fc.array(fc.record({ lo: fc.integer({ min: 1, max: (1 << n) - 1 }), bytes: fc.integer({ min: 0, max: 30 }) }), { maxLength: 70 }),
          sizes: fc.uniqueArray(fc.integer({ min: 1, max: n }), { minLength: 1, maxLength: 3 }),
          memory: fc.integer({ min: 1, max: 200 }),
          scores: fc.option(fc.array(fc.integer({ min: 0, max: 700 }), { minLength: n * n, maxLength: n * n }), { nil: null }),
          pack: fc.boolean(),
          limit: fc.integer({ min: 1, max: 20 }),
        })
        .map(({ free, stale, sizes, memory, scores, pack, limit }): PlacementSearch => {
          const sorted = sizes.sort((a, b) => a - b);
          const m = scores === null ? null : Int32Array.from(scores, (v, k) => (Math.floor(k / n) === k % n ? 0 : v));
          if (m !== null) for (let a = 0; a < n; a++) for (let b = 0; b < a; b++) m[a * n + b] = m[b * n + a];
          return {
            gpus: n,
            free: Float64Array.from(free),
            total: Float64Array.from(free, (f) => Math.max(f, 0) + 40),
            sizes: Int32Array.from(sorted),
            shares: Float64Array.from(sorted, (k) => shareOf(memory, k)),
            staleMasks: Int32Array.from(stale.flatMap((s) => [s.lo, 0])),
            staleBytes: Float64Array.from(stale, (s) => s.bytes),
            pairScores: m,
            pack,
            limit,
            budget: PLACEMENT_BUDGET,
          };
        }),
    );
    const picture = (f: ReturnType<typeof ts.kernels.placementSearch>): string => {
      const c = f.count;
      return JSON.stringify([
        c,
        f.overflowSize,
        Array.from(f.masks.subarray(0, 2 * c)),
        Array.from(f.evictCount.subarray(0, c)),
        Array.from(f.evictedBytes.subarray(0, c)),
        Array.from(f.score.subarray(0, c)),
        Array.from(f.remainMin.subarray(0, c)),
        Array.from(f.remainSum.subarray(0, c)),
        Array.from(f.evictStart.subarray(0, c + 1)),
        Array.from(f.evictions.subarray(0, f.evictStart[c])),
      ]);
    };
    // The same search with free, total and staleBytes as views of one block (a cached node's state):
    // the wasm kernels copy the block at once, the ts kernels read the views.
    const withBlock = (s: PlacementSearch): PlacementSearch => {
      const n = s.gpus;
      const S = s.staleBytes.length;
      const block = new Float64Array(2 * n + 2 * S);
      const staleMasks = new Int32Array(block.buffer, (2 * n + S) * 8, 2 * S);
      block.set(s.free, 0);
      block.set(s.total, n);
      block.set(s.staleBytes, 2 * n);
      staleMasks.set(s.staleMasks);
      return { ...s, free: block.subarray(0, n), total: block.subarray(n, 2 * n), staleBytes: block.subarray(2 * n, 2 * n + S), staleMasks };
    };
    fc.assert(
      fc.property(search, fc.boolean(), (plain, blocked) => {
        const s = blocked ? withBlock(plain) : plain;
        const expected = picture(ts.kernels.placementSearch(plain));
        expect(picture(wasm.kernels.placementSearch(s))).toBe(expected);
        expect(picture(ts.kernels.placementSearch(s))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('the wasm placementSearch result (views over the core memory) follows a new limit, more evictions and a grown memory', async () => {
    // A core of its own: the shared one may have grown already in an earlier file of this worker.
    const wasm = await openEngine({ backend: 'wasm' });
    const n = 16;
    const search = (limit: number, stale: number, memory: number): PlacementSearch => {
      const sizes = [2, 4];
      return {
        gpus: n,
        free: Float64Array.from({ length: n }, (_, p) => (p * 7) % 23),
        total: new Float64Array(n).fill(40),
        sizes: Int32Array.from(sizes),
        shares: Float64Array.from(sizes, (k) => shareOf(memory, k)),
        staleMasks: Int32Array.from({ length: 2 * stale }, (_, k) => (k % 2 === 0 ? 0xffff & ~(1 << (k % 16)) : 0)),
        staleBytes: new Float64Array(stale).fill(1),
        pairScores: null,
        pack: false,
        limit,
        budget: PLACEMENT_BUDGET,
      };
    };
    const picture = (f: ReturnType<typeof ts.kernels.placementSearch>): string => {
      const c = f.count;
      return JSON.stringify([
        c,
        Array.from(f.masks.subarray(0, 2 * c)),
        Array.from(f.evictCount.subarray(0, c)),
        Array.from(f.evictedBytes.subarray(0, c)),
        Array.from(f.score.subarray(0, c)),
        Array.from(f.remainMin.subarray(0, c)),
        Array.from(f.remainSum.subarray(0, c)),
        Array.from(f.evictStart.subarray(0, c + 1)),
        Array.from(f.evictions.subarray(0, f.evictStart[c])),
      ]);
    };
    const pagesBefore = wasm.memoryPages();
    const cases = [search(16, 4, 40), search(3, 4, 40), search(40, 70, 60), search(16, 200, 60)];
    for (const s of cases) expect(picture(wasm.kernels.placementSearch(s))).toBe(picture(ts.kernels.placementSearch(s)));
    // Grow the core's memory (a big natural sort), then search again: the old views are detached.
    wasm.naturalSort(Array.from({ length: 60_000 }, (_, k) => `gpu-${k}-${'x'.repeat(k % 40)}`));
    expect(wasm.memoryPages()).toBeGreaterThan(pagesBefore);
    for (const s of cases) expect(picture(wasm.kernels.placementSearch(s))).toBe(picture(ts.kernels.placementSearch(s)));
    // One case needs more evictions than the kernels' first room for them (64).
    expect(
      Math.max(
        ...cases.map((s) => {
          const f = wasm.kernels.placementSearch(s);
          return f.evictStart[f.count];
        }),
      ),
    ).toBeGreaterThan(64);
  });

  it('placementSearch results are reused arrays: planPlacement copies what it returns', () => {
    const request: PlacementRequest = { gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 80 * 2 ** 30 })), memory: 40 * 2 ** 30 };
    for (const engine of [wasm, ts]) {
      const a = engine.planPlacement(request);
      const b = engine.planPlacement({ ...request, memory: 100 * 2 ** 30 });
      expect(a).toEqual(oldPlanPlacement(engine.kernels, request));
      expect(b.options[0].gpus.length).toBeGreaterThan(1);
      expect(a.options[0].gpus).toEqual([0]);
    }
  });
});
