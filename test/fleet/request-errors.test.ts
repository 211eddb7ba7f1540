// engine.simulateFleet: malformed requests are AllocationErrors naming the field and the value;
// a pod that fits nowhere is not an error (it is counted as failed).
import { describe, expect, it } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const nodes = [{ id: 'n0', cpu: 8000, memoryMiB: 1024, gpus: 2, model: 'T4' }];
const pods = [{ id: 'p0', cpu: 1000, memoryMiB: 10, gpus: 1, milli: 500 }];

function error(fn: () => unknown): AllocationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AllocationError) return e;
    throw e;
  }
  throw new Error('expected an AllocationError');
}

describe('fleet request validation', async () => {
  const { wasm } = await engines();
  it('unknown keys, bad numbers and bad shares name their field', () => {
    expect(error(() => wasm.simulateFleet({ nodes, pods, sead: 1 } as never))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'request.sead' });
    expect(error(() => wasm.simulateFleet({ nodes: [{ ...nodes[0], gpuz: 1 }], pods } as never))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'request.nodes[0].gpuz' });
    const e = error(() => wasm.simulateFleet({ nodes, pods: [{ id: 'p', cpu: 1, memoryMiB: 1, gpus: 2, milli: 500 }] }));
    expect([e.code, e.field]).toEqual(['INVALID_ARGUMENT', 'request.pods[0].milli']);
    expect(e.message).toContain('500');
    expect(error(() => wasm.simulateFleet({ nodes, pods: [{ id: 'p', cpu: -1, memoryMiB: 1, gpus: 0 }] }))).toMatchObject({ field: 'request.pods[0].cpu' });
    expect(error(() => wasm.simulateFleet({ nodes: [{ id: 'n', cpu: 1, memoryMiB: 1, gpus: 1 }], pods }))).toMatchObject({ field: 'request.nodes[0].model' });
    expect(error(() => wasm.simulateFleet({ nodes: [...nodes, nodes[0]], pods }))).toMatchObject({ field: 'request.nodes[1].id' });
    expect(error(() => wasm.simulateFleet({ nodes, pods, tune: 0 }))).toMatchObject({ field: 'request.tune' });
  });
  it('an unknown policy is UNKNOWN_POLICY listing the policies', () => {
    // @ts-expect-error a misspelt policy name does not compile; at run time it is refused
    const e = error(() => wasm.simulateFleet({ nodes, pods, policy: 'fgdd' }));
    expect(e.code).toBe('UNKNOWN_POLICY');
    expect(e.message).toMatch(/'fgd'.*'fgd-close'.*got "fgdd"/);
  });
  it('a pod that fits nowhere is a failed attempt, not an error', () => {
    const run = wasm.simulateFleet({
      nodes,
      pods: [...pods, { id: 'p1', cpu: 1, memoryMiB: 1, gpus: 1, milli: 100, models: ['A100'] }, { id: 'p2', cpu: 9000, memoryMiB: 1, gpus: 0 }],
      tune: 0.35,
      events: true,
    });
    const byPod = new Map(run.events!.map((e) => [e.pod, e.node]));
    expect([byPod.get('p0'), byPod.get('p1'), byPod.get('p2')]).toEqual(['n0', null, null]);
  });
});
