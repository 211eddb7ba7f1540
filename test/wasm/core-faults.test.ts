import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';

describe('WebAssembly core faults', () => {
  for (const [kind, what] of [
    [0, 'unreachable'],
    [1, 'an out-of-bounds load'],
    [2, 'running out of memory'],
  ] as const) {
    it(`reports ${what} as INTERNAL, re-instantiates the core, and the next call works`, async () => {
      const engine = await openEngine({ backend: 'wasm' });
      expect(engine.naturalSort(['cuda10', 'cuda2'])).toEqual(['cuda2', 'cuda10']);
      const generation = engine.core!.generation;
      let caught: unknown;
      try {
        engine._debugTrap(kind);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AllocationError);
      expect((caught as AllocationError).code).toBe('INTERNAL');
      expect((caught as AllocationError).message).toMatch(/trapped .*re-instantiated/);
      expect(engine.core!.restarts).toBe(1);
      expect(engine.core!.generation).toBe(generation + 1);
      expect(engine.naturalSort(['cuda10', 'cuda2', 'cuda1'])).toEqual(['cuda1', 'cuda2', 'cuda10']);
      const split = engine.splitDevices({ agents: ['a', 'b'], mode: 'auto-split', devices: { cuda: ['cuda0', 'cuda1', 'cuda2'] } });
      expect(split.assignments.a.cuda).toEqual(['cuda0', 'cuda1']);
    });
  }

  it('loads the debug build, which answers as the release build does', async () => {
    const [debug, release] = await Promise.all([openEngine({ build: 'debug' }), openEngine({ build: 'release' })]);
    const ids = ['nvme0n1p10', 'cuda10', 'cuda2', 'nvme0n1p2', 'GPU-1', 'gpu-01'];
    expect(debug.naturalSort(ids)).toEqual(release.naturalSort(ids));
    const request = { agents: ['a', 'b', 'c'], mode: 'auto-split' as const, devices: { cuda: ['cuda4', 'cuda0', 'cuda3', 'cuda1', 'cuda2'] } };
    expect(debug.splitDevices(request)).toEqual(release.splitDevices(request));
    await expect(openEngine({ build: 'fast' as never })).rejects.toThrow(/options\.build/);
  });

  it("needs only the loader's env.abort, and no function has optional parameters (the engine calls the instance's own exports)", () => {
    for (const build of ['release', 'debug']) {
      const module = new WebAssembly.Module(readFileSync(new URL(`../../build/${build}.wasm`, import.meta.url)));
      expect(WebAssembly.Module.imports(module)).toEqual([{ module: 'env', name: 'abort', kind: 'function' }]);
      expect(WebAssembly.Module.exports(module).map((e) => e.name)).not.toContain('__setArgumentsLength');
    }
  });

  it("words the runtime's abort (the loader's) with its message and place, read from the core's memory", async () => {
    for (const build of ['release', 'debug'] as const) {
      const engine = await openEngine({ backend: 'wasm', build });
      let caught: unknown;
      try {
        engine._debugTrap(2);
      } catch (error) {
        caught = error;
      }
      // An allocation past the heap's limit aborts in AssemblyScript's allocator (~lib/rt/…).
      expect((caught as AllocationError).message).toMatch(/trapped \(abort: [A-Za-z][^)]* at ~lib\/rt\/[a-z]+\.ts:\d+:\d+\)/);
      expect(engine.naturalSort(['cuda10', 'cuda2'])).toEqual(['cuda2', 'cuda10']);
    }
  });

  it('the ts backend has no core to trap', async () => {
    const engine = await openEngine({ backend: 'ts' });
    expect(() => engine._debugTrap(0)).toThrow(/ts backend has no WebAssembly core/);
  });

  it('rejects an unknown backend naming the value', async () => {
    await expect(openEngine({ backend: 'cuda' as never })).rejects.toThrow(/options\.backend: expected 'wasm' or 'ts', got "cuda"/);
  });
});
