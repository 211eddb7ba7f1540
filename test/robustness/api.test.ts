// Every public entry point under hostile input: one random hostile edit of a valid request (a field
// replaced by a wrong type, NaN, ±Infinity, -0, a fraction, a lone surrogate, a 10^5-char ID, a cyclic,
// frozen or throwing object; a field dropped; a `__proto__` / `constructor` key added). Only
// AllocationError with a documented code escapes, the input is not mutated (frozen half the time,
// snapshotted always), both backends agree on the outcome, and the next valid call still matches ts.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { openEngine } from '../../src/engine.js';
import { validateInventory } from '../../src/hardware/inventory.js';
import { getPreset, listPresets } from '../../src/hardware/presets.js';
import { validateTopology } from '../../src/hardware/topology.js';
import { estimateMemory } from '../../src/models/estimate.js';
import { readGgufHeaderFromBytes } from '../../src/models/gguf.js';
import type { AllocationError } from '../../src/shared/errors.js';
import { parseBytes } from '../../src/shared/units.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';
import { depth } from '../support/depth.js';
import { requestOf, upstreamCases } from '../support/dra-upstream-table.js';
import { engines } from '../support/engines.js';
import {
  applyEdit,
  attempt,
  attemptAsync,
  deepFreeze,
  type Edit,
  expectResultOrAllocationError,
  hostileEdit,
  hostileValue,
  label,
  materialize,
  type Outcome,
  snapshot,
} from '../support/fuzz/hostile.js';
import { alignedRequest, byteText, clusterInit, manualSplitRequest, placementRequest, replicaRequest, sortIds, splitRequest, topologyInput } from '../support/fuzz/requests.js';

const { wasm, ts } = await engines();
// ROBUSTNESS_RUNS=2000 npx vitest run test/robustness/api.test.ts for a deeper search than CI's. The
// random cases per property: a third in npm test, all of them in the deep suite (test/support/depth.ts).
const RUNS = Number(process.env.ROBUSTNESS_RUNS ?? depth(50, 150));

/** The comparable part of an outcome: the result as JSON, or the error code. */
function key(o: Outcome<unknown>): string {
  return o.ok ? `ok ${JSON.stringify(o.value)}` : `error ${(o.error as AllocationError).code}`;
}

type SyncCase = { name: string; valid: fc.Arbitrary<unknown>; call: (engine: Engine, input: never) => unknown };

const cases: SyncCase[] = [
  { name: 'naturalSort', valid: sortIds, call: (e, ids: string[]) => e.naturalSort(ids) },
  { name: 'splitDevices', valid: splitRequest, call: (e, r: never) => e.splitDevices(r) },
  { name: 'splitDevices (manual)', valid: manualSplitRequest, call: (e, r: never) => e.splitDevices(r) },
  { name: 'allocateReplicas', valid: replicaRequest, call: (e, r: never) => e.allocateReplicas(r) },
  { name: 'allocateAligned', valid: alignedRequest, call: (e, r: never) => e.allocateAligned(r) },
  { name: 'planPlacement', valid: placementRequest, call: (e, r: never) => e.planPlacement(r) },
  { name: 'createClusterState', valid: clusterInit, call: (e, init: never) => e.createClusterState(init).toJSON() },
  { name: 'allocateClaims', valid: fc.constantFrom(...upstreamCases().map((c) => requestOf(c))), call: (e, r: never) => e.allocateClaims(r) },
  { name: 'restoreClusterState', valid: clusterInit.map((init) => ts.createClusterState(init).toJSON()), call: (e, json: never) => e.restoreClusterState(json).toJSON() },
];

/** A valid input with one hostile edit, frozen or not. */
function hostileCase(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ valid: unknown; edit: Edit; freeze: boolean }> {
  return valid.chain((v) => fc.record({ valid: fc.constant(v), edit: hostileEdit(v), freeze: fc.boolean() }));
}

describe('hostile edits of valid requests', () => {
  for (const c of cases) {
    it(`${c.name}: only AllocationError escapes, nothing is mutated, both backends agree, the next valid call matches ts`, () => {
      fc.assert(
        fc.property(hostileCase(c.valid), ({ valid, edit, freeze }) => {
          const input = applyEdit(valid, edit);
          if (freeze) deepFreeze(input);
          const before = snapshot(input);
          const context = `${c.name} ${edit.kind} ${JSON.stringify(edit.path)} ${edit.key ?? ''} = ${label(edit.value)}`;
          const w = attempt(() => c.call(wasm, input as never));
          expectResultOrAllocationError(w, `${context} (wasm)`);
          expect(snapshot(input), `${context}: input mutated`).toBe(before);
          const t = attempt(() => c.call(ts, input as never));
          expectResultOrAllocationError(t, `${context} (ts)`);
          expect(key(w), `${context}: backends disagree`).toBe(key(t));
          // The next valid call on the wasm engine answers as the ts baseline does.
          const next = attempt(() => c.call(wasm, valid as never));
          const nextTs = attempt(() => c.call(ts, valid as never));
          expectResultOrAllocationError(next, `${c.name} valid call after ${context}`);
          expect(key(next)).toBe(key(nextTs));
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    });
  }

  it('ClusterState.plan / commit / release / markStale / listSlots: hostile arguments leave the state as it was', () => {
    fc.assert(
      fc.property(clusterInit, fc.constantFrom('plan', 'commit', 'release', 'markStale', 'listSlots'), hostileValue, fc.boolean(), (init, method, recipe, freeze) => {
        const bad = materialize(recipe);
        const sw = wasm.createClusterState(init);
        const st = ts.createClusterState(init);
        const before = JSON.stringify(sw.toJSON());
        if (freeze) deepFreeze(bad);
        const shot = snapshot(bad);
        const run = (s: typeof sw) => attempt(() => (s as unknown as Record<string, (x: unknown) => unknown>)[method](bad));
        const w = run(sw);
        const t = run(st);
        const context = `${method}(${label(bad)})`;
        expectResultOrAllocationError(w, `${context} (wasm)`);
        expectResultOrAllocationError(t, `${context} (ts)`);
        expect(key(w), context).toBe(key(t));
        expect(snapshot(bad), `${context}: argument mutated`).toBe(shot);
        if (!w.ok) expect(JSON.stringify(sw.toJSON()), `${context}: a failed call changed the state`).toBe(before);
        // The next valid plan answers as ts does.
        const req = { memory: 8 * 2 ** 30, model: 'm3' };
        expect(sw.plan(req)).toEqual(st.plan(req));
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('ClusterState.plan and commit: hostile edits of a valid request and of a planned option', () => {
    const request = { memory: 8 * 2 ** 30, model: 'm3', policy: 'pack', limit: 4, tensorParallelSizes: [1, 2] };
    fc.assert(
      fc.property(clusterInit, fc.boolean(), fc.nat(), (init, onOption, seed) => {
        const sw = wasm.createClusterState(init);
        const st = ts.createClusterState(init);
        const plan = sw.plan(request as never);
        const target: unknown = onOption ? (plan.options[0] ?? { node: 'node-0', gpus: [0], memoryPerGpu: 1, evict: [], score: 0 }) : request;
        const [edit] = fc.sample(hostileEdit(target), { seed, numRuns: 1 });
        const input = deepFreeze(applyEdit(target, edit));
        const before = JSON.stringify(sw.toJSON());
        const context = `${onOption ? 'commit' : 'plan'} ${edit.kind} ${JSON.stringify(edit.path)} ${edit.key ?? ''} = ${label(edit.value)}`;
        const w = attempt(() => (onOption ? sw.commit(input as never) : sw.plan(input as never)));
        const t = attempt(() => (onOption ? st.commit(input as never) : st.plan(input as never)));
        expectResultOrAllocationError(w, `${context} (wasm)`);
        expectResultOrAllocationError(t, `${context} (ts)`);
        expect(key(w), context).toBe(key(t));
        if (!w.ok) expect(JSON.stringify(sw.toJSON()), `${context}: a failed call changed the state`).toBe(before);
        expect(sw.plan(request as never)).toEqual(st.plan(request as never));
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});

describe('hostile arguments of the standalone functions', () => {
  const inventory = getPreset('dgx-a100-mig');

  it('validateInventory: hostile edits of a preset inventory are INVALID_INVENTORY (or accepted), never anything else', () => {
    fc.assert(
      fc.property(hostileEdit(inventory), fc.boolean(), (edit, freeze) => {
        const input = applyEdit(inventory, edit);
        if (freeze) deepFreeze(input);
        const before = snapshot(input);
        const out = attempt(() => validateInventory(input, 'inv.json'));
        const context = `validateInventory ${edit.kind} ${JSON.stringify(edit.path)} ${edit.key ?? ''} = ${label(edit.value)}`;
        expectResultOrAllocationError(out, context);
        if (!out.ok) expect(['INVALID_INVENTORY', 'LIMIT_EXCEEDED'], context).toContain((out.error as AllocationError).code);
        expect(snapshot(input), `${context}: input mutated`).toBe(before);
      }),
      { numRuns: depth(130, 400), endOnFailure: true },
    );
  });

  it('validateTopology: hostile edits', () => {
    fc.assert(
      fc.property(
        topologyInput.chain((t) => fc.tuple(fc.constant(t), hostileEdit(t))),
        fc.boolean(),
        ([valid, edit], freeze) => {
          const input = applyEdit(valid, edit);
          if (freeze) deepFreeze(input);
          const before = snapshot(input);
          const out = attempt(() => validateTopology(input));
          expectResultOrAllocationError(out, `validateTopology ${JSON.stringify(edit.path)} = ${label(edit.value)}`);
          expect(snapshot(input)).toBe(before);
        },
      ),
      { numRuns: depth(100, 300), endOnFailure: true },
    );
  });

  it('parseBytes and getPreset: any value in, a number / an inventory or an AllocationError out', () => {
    const names = listPresets().map((p) => p.name);
    fc.assert(
      fc.property(fc.oneof(hostileValue, byteText, fc.constantFrom(...names)), (recipe) => {
        const value = materialize(recipe);
        const b = attempt(() => parseBytes(value as string));
        expectResultOrAllocationError(b, `parseBytes(${label(value)})`);
        if (b.ok) expect(Number.isSafeInteger(b.value) && b.value >= 0).toBe(true);
        const p = attempt(() => getPreset(value as string));
        expectResultOrAllocationError(p, `getPreset(${label(value)})`);
        if (p.ok) expect(validateInventory(p.value)).toEqual(p.value);
      }),
      { numRuns: depth(130, 400), endOnFailure: true },
    );
  });

  it('openEngine: hostile options reject with AllocationError', async () => {
    const samples = fc.sample(
      fc.oneof(
        hostileValue,
        fc.record({ backend: hostileValue }),
        fc.record({ backend: fc.constant('wasm'), build: hostileValue }),
        fc.record({ backend: fc.constant('wasm'), wasm: fc.oneof(hostileValue, fc.constant(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))) }),
      ),
      { seed: 10, numRuns: depth(40, 120) },
    );
    for (const recipe of samples) {
      const options =
        recipe !== null && typeof recipe === 'object' && !Array.isArray(recipe) && !(recipe instanceof Uint8Array) && Object.getPrototypeOf(recipe) === Object.prototype
          ? Object.fromEntries(Object.entries(recipe).map(([k, v]) => [k, materialize(v)]))
          : materialize(recipe);
      const out = await attemptAsync(() => openEngine(options as never));
      expectResultOrAllocationError(out, `openEngine(${label(options)})`);
      if (out.ok) expect(out.value.naturalSort(['b10', 'b9'])).toEqual(['b9', 'b10']);
    }
  });

  it('estimateMemory: hostile sources and options reject with AllocationError', async () => {
    const bytes = writeGguf(llamaSpec({ blocks: 2, embedding: 64, heads: 4, kvHeads: 2, ffn: 32, vocab: 6 }));
    const parsed = await readGgufHeaderFromBytes(bytes);
    const options = { contextLength: 2048, parallel: 2, batch: 256, kvCacheType: 'q8_0', flashAttention: true, gpus: [24 * 2 ** 30, 8 * 2 ** 30] };
    const expected = await estimateMemory(bytes, options as never);
    const edits = fc.sample(
      fc.oneof(
        hostileEdit(parsed).map((e) => ({ on: 'source' as const, e })),
        hostileEdit(options).map((e) => ({ on: 'options' as const, e })),
      ),
      { seed: 7, numRuns: depth(100, 300) },
    );
    for (const { on, e } of edits) {
      const source = on === 'source' ? applyEdit(parsed, e) : bytes;
      const opts = on === 'options' ? applyEdit(options, e) : options;
      deepFreeze(source);
      deepFreeze(opts);
      const before = snapshot([source, opts]);
      const out = await attemptAsync(() => estimateMemory(source as never, opts as never));
      expectResultOrAllocationError(out, `estimateMemory ${on} ${e.kind} ${JSON.stringify(e.path)} ${e.key ?? ''} = ${label(e.value)}`);
      expect(snapshot([source, opts])).toBe(before);
    }
    // Truncated and bit-flipped files.
    for (let cut = 0; cut < bytes.length; cut += 37) expectResultOrAllocationError(await attemptAsync(() => estimateMemory(bytes.slice(0, cut))), `truncated at ${cut}`);
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const flipped = bytes.slice();
      for (let k = 0; k < 6; k++) flipped[(seed * 7919 * (k + 1)) % flipped.length] ^= 1 << (k % 8);
      expectResultOrAllocationError(await attemptAsync(() => estimateMemory(flipped, options as never)), `bit flips seed ${seed}`);
    }
    // Paths that are not files, cannot be opened, or hold nothing.
    for (const path of ['/', '.', '/dev/null', '/dev/zero', 'a\u0000b', '\uD800', 'x'.repeat(5000), 'no/such/model.gguf']) {
      expectResultOrAllocationError(await attemptAsync(() => estimateMemory(path)), `estimateMemory(${JSON.stringify(path).slice(0, 40)})`);
    }
    expect(await estimateMemory(bytes, options as never)).toEqual(expected);
  });
});
