// allocateReplicas on random resources: wasm = ts = a naive reference written from the rules, and the
// properties each policy promises.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReplicaPolicy, ReplicaRequest } from '../../src/devices/replicas.js';
import { compareNatural } from '../../src/shared/natural-order.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

function keyOf(id: string, parents?: Record<string, string>): string {
  if (parents !== undefined && Object.prototype.hasOwnProperty.call(parents, id)) return parents[id];
  const cut = id.indexOf('::');
  return cut >= 0 ? id.slice(0, cut) : id;
}

/** The rules of issue 3, literally: re-scan every candidate before every pick. */
function reference(req: ReplicaRequest): string[] | null {
  const required = req.required ?? [];
  const candidates = req.available.filter((id) => !required.includes(id));
  const needed = req.size - required.length;
  if (candidates.length < needed) return null;
  const allocated = new Map<string, number>();
  const picked = new Map<string, number>();
  for (const id of req.devices) {
    const k = keyOf(id, req.parents);
    allocated.set(k, (allocated.get(k) ?? 0) + 1);
    picked.set(k, 0);
  }
  for (const id of candidates) allocated.set(keyOf(id, req.parents), allocated.get(keyOf(id, req.parents))! - 1);
  const policy = req.policy ?? 'distributed';
  const order = (a: string, b: string): number => {
    const ka = keyOf(a, req.parents);
    const kb = keyOf(b, req.parents);
    const da = allocated.get(ka)! - allocated.get(kb)!;
    const dp = picked.get(ka)! - picked.get(kb)!;
    const primary = policy === 'distributed' ? [da, dp] : policy === 'pack' ? [-da, dp] : [dp, da];
    for (const d of primary) if (d !== 0) return d;
    return compareNatural(ka, kb) || compareNatural(a, b);
  };
  const left = candidates.slice();
  const out = required.slice();
  for (let n = 0; n < needed; n++) {
    let best = 0;
    for (let c = 1; c < left.length; c++) if (order(left[c], left[best]) < 0) best = c;
    const id = left.splice(best, 1)[0];
    const k = keyOf(id, req.parents);
    allocated.set(k, allocated.get(k)! + 1);
    picked.set(k, picked.get(k)! + 1);
    out.push(id);
  }
  return out;
}

const gpuName = fc.oneof(
  fc.nat({ max: 30 }).map((n) => `gpu${n}`),
  fc.nat({ max: 30 }).map((n) => `GPU-${n.toString(16)}`),
  fc.constantFrom('MIG-a', 'mig-B', 'cuda', 'x1y', 'X01y'),
);

/** A random resource: replicated GPUs, MIG-like slices with parents, plain IDs; a random availability and request. */
const request: fc.Arbitrary<ReplicaRequest> = fc
  .record({
    gpus: fc.uniqueArray(fc.tuple(gpuName, fc.integer({ min: 1, max: 6 })), { selector: ([n]) => n, minLength: 0, maxLength: 8 }),
    plain: fc.uniqueArray(
      fc.nat({ max: 40 }).map((n) => `dev${n}`),
      { maxLength: 5 },
    ),
    slices: fc.array(fc.nat({ max: 3 }), { maxLength: 6 }),
    useParents: fc.boolean(),
    policy: fc.option(fc.constantFrom<ReplicaPolicy>('distributed', 'pack', 'spread'), { nil: undefined }),
    seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  })
  .map(({ gpus, plain, slices, useParents, policy, seed }) => {
    const devices: string[] = [];
    for (const [name, replicas] of gpus) for (let r = 0; r < replicas; r++) devices.push(`${name}::${r}`);
    devices.push(...plain);
    const parents: Record<string, string> = {};
    slices.forEach((parent, k) => {
      devices.push(`MIG-s${k}`);
      parents[`MIG-s${k}`] = `parent${parent}`;
    });
    let s = 0;
    const rand = () => seed[s++ % seed.length] + s;
    const shuffled = devices
      .map((id, k) => [rand() * 7919 + k, id] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, id]) => id);
    const available = shuffled.filter(() => rand() % 4 !== 0);
    const required = available.filter(() => rand() % 7 === 0);
    const size = required.length + (rand() % (available.length - required.length + 3));
    const req: ReplicaRequest = { devices, available, required, size };
    if (policy !== undefined) req.policy = policy;
    if (useParents) req.parents = parents;
    return req;
  });

describe('allocateReplicas parity and properties', () => {
  it('wasm, ts and the reference agree on random resources', () => {
    fc.assert(
      fc.property(request, (req) => {
        const a = wasm.allocateReplicas(req);
        const b = ts.allocateReplicas(req);
        expect(a).toEqual(b);
        const expected = reference(req);
        if (expected === null) {
          expect(a.devices).toEqual([]);
          expect(a.reason?.code).toBe('INSUFFICIENT_DEVICES');
        } else {
          expect(a).toEqual({ devices: expected });
        }
      }),
      { numRuns: depth(150, 600) },
    );
  });

  it('no duplicate picks, required first, exactly size devices', () => {
    fc.assert(
      fc.property(request, (req) => {
        const { devices, reason } = wasm.allocateReplicas(req);
        if (reason !== undefined) return;
        expect(devices.length).toBe(req.size);
        expect(new Set(devices).size).toBe(devices.length);
        expect(devices.slice(0, req.required!.length)).toEqual(req.required);
        for (const id of devices) expect(req.available).toContain(id);
      }),
      { numRuns: depth(75, 300) },
    );
  });

  /** Final allocated / picked counts per key and each key's remaining candidates. */
  function tally(req: ReplicaRequest, picks: string[]) {
    const allocated = new Map<string, number>();
    const picked = new Map<string, number>();
    const remaining = new Map<string, number>();
    const chosen = new Set([...(req.required ?? []), ...picks]);
    const availableSet = new Set(req.available);
    for (const id of req.devices) {
      const k = keyOf(id, req.parents);
      picked.set(k, 0);
      const free = availableSet.has(id) && !chosen.has(id);
      allocated.set(k, (allocated.get(k) ?? 0) + (free ? 0 : 1));
      remaining.set(k, (remaining.get(k) ?? 0) + (free ? 1 : 0));
    }
    for (const id of picks) picked.set(keyOf(id, req.parents), picked.get(keyOf(id, req.parents))! + 1);
    return { allocated, picked, remaining };
  }

  it('distributed never leaves allocated counts further apart than necessary', () => {
    fc.assert(
      fc.property(request, (req0) => {
        const req = { ...req0, policy: 'distributed' as const };
        const { devices, reason } = ts.allocateReplicas(req);
        if (reason !== undefined) return;
        const { allocated, picked, remaining } = tally(req, devices.slice(req.required!.length));
        // A GPU we picked from was the least allocated when we last did; any GPU still open had at least that many.
        for (const [a, p] of picked) {
          if (p === 0) continue;
          for (const [b, left] of remaining) if (left > 0) expect(allocated.get(a)! - 1).toBeLessThanOrEqual(allocated.get(b)!);
        }
      }),
      { numRuns: depth(75, 300) },
    );
  });

  it('packed never opens a new GPU while a touched one still has candidates', () => {
    fc.assert(
      fc.property(request, (req0) => {
        const req = { ...req0, policy: 'pack' as const };
        const { devices, reason } = wasm.allocateReplicas(req);
        if (reason !== undefined) return;
        const picks = devices.slice(req.required!.length);
        const chosen = new Set(req.required);
        const touched = new Set<string>();
        for (const id of picks) {
          const k = keyOf(id, req.parents);
          if (!touched.has(k)) {
            for (const t of touched) {
              const open = req.available.some((x) => keyOf(x, req.parents) === t && !chosen.has(x));
              expect(open).toBe(false);
            }
            touched.add(k);
          }
          chosen.add(id);
        }
      }),
      { numRuns: depth(75, 300) },
    );
  });

  it('spread keeps per-GPU pick counts within one of each other among open GPUs', () => {
    fc.assert(
      fc.property(request, (req0) => {
        const req = { ...req0, policy: 'spread' as const };
        const { devices, reason } = wasm.allocateReplicas(req);
        if (reason !== undefined) return;
        const { picked, remaining } = tally(req, devices.slice(req.required!.length));
        for (const [, p] of picked) {
          if (p === 0) continue;
          for (const [b, left] of remaining) if (left > 0) expect(p - 1).toBeLessThanOrEqual(picked.get(b)!);
        }
      }),
      { numRuns: depth(75, 300) },
    );
  });

  it('the result does not depend on the order of devices or available', () => {
    fc.assert(
      fc.property(request, (req) => {
        const reversed = { ...req, devices: req.devices.slice().reverse(), available: req.available.slice().reverse() };
        expect(wasm.allocateReplicas(reversed)).toEqual(wasm.allocateReplicas(req));
      }),
      { numRuns: depth(50, 200) },
    );
  });

  it('keeps WASM memory stable over 10^5 calls after warm-up', () => {
    const devices = Array.from({ length: 64 }, (_, k) => `GPU-${k >> 3}::${k & 7}`);
    const req: ReplicaRequest = { devices, available: devices, size: 12, policy: 'distributed' };
    for (let k = 0; k < 1000; k++) wasm.allocateReplicas(req);
    const pages = wasm.memoryPages();
    for (let k = 0; k < 100_000; k++) wasm.allocateReplicas(req);
    expect(wasm.memoryPages()).toBe(pages);
  });

  it('handles a large plain-device resource the same on both backends', () => {
    const devices = Array.from({ length: 20_000 }, (_, k) => `nvme${(k * 7919) % 20_000}n1`);
    const req: ReplicaRequest = { devices, available: devices.filter((id) => Number(id.slice(4, -2)) % 3 !== 0), size: 5000, policy: 'spread' };
    const a = wasm.allocateReplicas(req);
    expect(a).toEqual(ts.allocateReplicas(req));
    expect(a.devices.slice(0, 3)).toEqual(['nvme1n1', 'nvme2n1', 'nvme4n1']);
  });
});
