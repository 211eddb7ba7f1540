// Sizes at and past LIMITS: 10^6-element arrays are answered or refused fast with LIMIT_EXCEEDED,
// 10^5-character and lone-surrogate IDs work on both backends alike, huge sparse arrays and deep
// nesting are refused without hanging.
import { describe, expect, it } from 'vitest';
import type { AllocationError } from '../../src/shared/errors.js';
import { LIMITS } from '../../src/shared/limits.js';
import { codeOf, engines } from '../support/engines.js';
import { longId } from '../support/fuzz/hostile.js';

const { wasm, ts } = await engines();

describe('arrays of 10^6 and more', () => {
  it('naturalSort of exactly LIMITS.maxIds IDs: both backends agree; one more is LIMIT_EXCEEDED', () => {
    const ids = Array.from({ length: LIMITS.maxIds }, (_, k) => `gpu${(k * 7919) % LIMITS.maxIds}`);
    const w = wasm.naturalSort(ids);
    expect(w[0]).toBe('gpu0');
    expect(w[LIMITS.maxIds - 1]).toBe(`gpu${LIMITS.maxIds - 1}`);
    expect(ts.naturalSort(ids.slice(0, 100_000))).toEqual(wasm.naturalSort(ids.slice(0, 100_000)));
    ids.push('one-more');
    for (const e of [wasm, ts]) expect(codeOf(() => e.naturalSort(ids))).toBe('LIMIT_EXCEEDED');
  });

  it('10^6-element and sparse 2^32-1-element arrays in every list field are refused or answered, never hang', () => {
    const big = new Array(1_000_001).fill(0);
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    for (const list of [big, sparse]) {
      for (const e of [wasm, ts]) {
        expect(codeOf(() => e.allocateReplicas({ devices: list as string[], available: [], size: 0 }))).toBe('LIMIT_EXCEEDED');
        expect(codeOf(() => e.allocateAligned({ topology: { gpus: 2, links: [] }, available: list as number[], size: 1 }))).toBe('LIMIT_EXCEEDED');
        expect(codeOf(() => e.planPlacement({ gpus: list as never, memory: 1 }))).toBe('LIMIT_EXCEEDED');
        expect(codeOf(() => e.splitDevices({ agents: list as string[], mode: 'shared', devices: {} }))).toBe('LIMIT_EXCEEDED');
        expect(codeOf(() => e.createClusterState({ nodes: list as never }))).toBe('LIMIT_EXCEEDED');
      }
    }
    // 10^6 GPUs in one topology, 10^6 slots on a node: refused by their own limits.
    const gpus = Array.from({ length: 100 }, (_, index) => ({ index, memoryTotal: 1 }));
    expect(codeOf(() => wasm.planPlacement({ gpus, memory: 1 }))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(() => wasm.allocateAligned({ topology: { gpus: 1_000_000, links: [] }, available: [0], size: 1 }))).toMatch(/^(LIMIT_EXCEEDED|INVALID_ARGUMENT)$/);
  });

  it('nesting deeper than 64 levels and a cycle are INVALID_ARGUMENT (no stack overflow)', () => {
    let deep: unknown = 'cuda0';
    for (let k = 0; k < 100_000; k++) deep = [deep];
    const cyclic: Record<string, unknown> = { agents: ['a'], mode: 'shared' };
    cyclic.devices = { cuda: ['cuda0'], self: cyclic };
    for (const e of [wasm, ts]) {
      expect(codeOf(() => e.naturalSort(deep as string[]))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => e.splitDevices(cyclic as never))).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('long and odd IDs', () => {
  it('10^5-character IDs, lone surrogates and __proto__ sort and allocate the same on both backends', () => {
    const ids = [longId(100_000), longId(100_000).slice(1) + '8', '\uD800', '\uDC00', '__proto__', 'constructor', 'cuda1', 'cuda01', ''];
    expect(wasm.naturalSort(ids)).toEqual(ts.naturalSort(ids));
    const devices = ids.filter((id, k) => ids.indexOf(id) === k);
    const req = { devices, available: devices, size: 4, parents: { __proto__: 'p1', constructor: 'p1' } as Record<string, string> };
    expect(wasm.allocateReplicas(req)).toEqual(ts.allocateReplicas(req));
    const split = { agents: ['__proto__', 'constructor', longId(100_000)], mode: 'auto-split' as const, devices: { cuda: devices } };
    const w = wasm.splitDevices(split);
    expect(w).toEqual(ts.splitDevices(split));
    expect(Object.keys(w.assignments)).toEqual(split.agents);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an ID over LIMITS.maxIdLength is LIMIT_EXCEEDED with a bounded message', () => {
    const id = 'x'.repeat(LIMITS.maxIdLength + 1);
    for (const e of [wasm, ts]) {
      let caught: unknown;
      try {
        e.naturalSort([id]);
      } catch (error) {
        caught = error;
      }
      expect((caught as AllocationError).code).toBe('LIMIT_EXCEEDED');
      expect((caught as AllocationError).message.length).toBeLessThan(300);
    }
  });
});
