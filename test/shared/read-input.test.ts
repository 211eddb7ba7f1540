import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/hardware/presets.js';
import { AllocationError } from '../../src/shared/errors.js';
import { readInput } from '../../src/shared/validate.js';
import { engines } from '../support/engines.js';

describe('readInput', () => {
  it('copies plain data and keeps __proto__ an ordinary key', () => {
    const input = JSON.parse('{"a": [1, {"b": 2}], "__proto__": {"x": 1}}');
    const copy = readInput('request', input, false) as Record<string, unknown>;
    expect(copy).not.toBe(input);
    expect(copy.a).toEqual([1, { b: 2 }]);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ x: 1 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('names the path of a getter that throws, and of a cycle', () => {
    const bad = {
      links: [
        { a: 0 },
        {
          get b() {
            throw new Error('boom');
          },
        },
      ],
    };
    expect(() => readInput('topology', bad)).toThrow(/topology\.links\[1\]\.b: reading the value threw \(Error: boom\)/);
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic.list as unknown[]).push(cyclic);
    expect(() => readInput('request', cyclic, false)).toThrow(AllocationError);
    expect(() => readInput('request', cyclic, false)).toThrow(/^list\[0\]: expected plain data/);
  });

  it("copies on every call: an in-place edit between calls is read, and the copy is never the caller's object", () => {
    const topology = { gpus: 2, links: [{ a: 0, b: 1, nvlink: 2 }] };
    const first = readInput('topology', topology) as typeof topology;
    expect(first).toEqual(topology);
    expect(first).not.toBe(topology);
    expect(first.links[0]).not.toBe(topology.links[0]);
    topology.links[0].nvlink = 1;
    expect((readInput('topology', topology) as typeof topology).links[0].nvlink).toBe(1);
    expect(first.links[0].nvlink).toBe(2);
  });

  it('reads each getter exactly once per call', () => {
    let reads = 0;
    const value = {
      get gpus() {
        reads++;
        return 2;
      },
    };
    readInput('topology', value);
    expect(reads).toBe(1);
    readInput('topology', value);
    expect(reads).toBe(2);
  });

  it('allocateAligned notices an in-place edit of a topology it has seen before', async () => {
    const { wasm, ts } = await engines();
    for (const engine of [wasm, ts]) {
      const inventory = getPreset('dgx1-volta');
      const topology = { gpus: inventory.gpus.length, links: inventory.links.map((l) => ({ ...l })) };
      const request = { topology, available: [0, 1, 2, 3, 4, 5, 6, 7], size: 2, policy: 'besteffort' as const };
      expect(engine.allocateAligned(request).devices).toEqual([0, 3]);
      // Make 6-7 the best pair by far: the cached copy must not hide the edit.
      topology.links.find((l) => l.a === 6 && l.b === 7)!.nvlink = 12;
      expect(engine.allocateAligned(request).devices).toEqual([6, 7]);
    }
  });
});
