// A state with pod resources (node cpu / hostMemory / gpuModel; slots with milli, cpu, hostMemory,
// CPU-only slots without GPUs) survives toJSON → restore → toJSON byte for byte, and the strict
// state-file reader accepts those keys while still refusing unknown ones.
import { describe, expect, it } from 'vitest';
import { ledgerJSON, stateFileText } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { restoreText } from '../../src/store/file.js';

/** The strict state-file reader (JsonFileStore's), restored through `engine`. */
const stateFromText = (engine: Engine, text: string, file: string) => engine.restoreClusterState(ledgerJSON(restoreText(text, file)));

import { codeOf, engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const M = 2 ** 20;

function podState() {
  return {
    version: 1 as const,
    nextSlot: 1,
    nodes: [
      {
        id: 'a100-0',
        gpus: [
          { index: 0, memoryTotal: 80 * G, memoryUsed: G },
          { index: 1, memoryTotal: 80 * G },
        ],
        cpu: 64000,
        hostMemory: 512 * G,
        gpuModel: 'A100',
        slots: [
          { id: 'llama', model: 'llama', gpus: [0], memoryPerGpu: 40 * G, stale: true, lastActivity: 5 },
          { id: 'pod-share', gpus: [1], memoryPerGpu: Math.floor((300 * 80 * G) / 1000), milli: 300, cpu: 4000, hostMemory: 8192 * M },
          { id: 'pod-cpu', gpus: [], memoryPerGpu: 0, cpu: 2000, hostMemory: 0 },
        ],
      },
      { id: 'cpu-box', gpus: [], cpu: 32000, slots: [{ id: 'pod-mem', gpus: [], memoryPerGpu: 0, hostMemory: 4 * G }] },
      { id: 'plain', gpus: [{ index: 0, memoryTotal: 16 * G }], slots: [] },
    ],
  };
}

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('pod fields in the state (%s)', (_name, engine) => {
  it('toJSON → restore → toJSON is byte for byte, new fields included, absent ones stay absent', () => {
    const state = engine.restoreClusterState(podState());
    const text = stateFileText(state);
    expect(JSON.parse(text)).toEqual(podState());
    expect(stateFileText(engine.restoreClusterState(text))).toBe(text);
    // listSlots and usage still work with pod slots: the share's bytes count as allocated.
    expect(state.listSlots('cpu-box')).toEqual([{ id: 'pod-mem', gpus: [], memoryPerGpu: 0, hostMemory: 4 * G }]);
    expect(state.usage()[1].allocated).toBe(Math.floor((300 * 80 * G) / 1000));
  });

  it('the strict reader accepts the new keys and still refuses an unknown one', () => {
    const text = JSON.stringify(podState(), null, 2);
    expect(stateFileText(stateFromText(engine, text, 'state.json'))).toBe(stateFileText(engine.restoreClusterState(podState())));
    const bad = podState() as unknown as { nodes: Array<Record<string, unknown>> };
    bad.nodes[0].gpuModle = 'A100';
    expect(() => stateFromText(engine, JSON.stringify(bad, null, 2), 'state.json')).toThrow(/state\.json:\d+:\d+: unknown key nodes\[0\]\.gpuModle \(did you mean gpuModel\?\)/);
  });

  it("refuses slots over the node's cpu or host memory, and bad pod fields, by field", () => {
    const over = podState();
    (over.nodes[0].slots[2] as { cpu?: number }).cpu = 60001;
    expect(codeOf(() => engine.restoreClusterState(over))).toBe('INVALID_STATE');
    expect(() => engine.restoreClusterState(over)).toThrow(/64000/);
    const noGpus = podState();
    delete (noGpus.nodes[1].slots[0] as { hostMemory?: number }).hostMemory;
    expect(() => engine.restoreClusterState(noGpus)).toThrow(/state\.nodes\[1\]\.slots\[0\]\.gpus/);
    const milli = podState();
    (milli.nodes[0].slots[1] as { milli?: number }).milli = 1001;
    expect(() => engine.restoreClusterState(milli)).toThrow(/state\.nodes\[0\]\.slots\[1\]\.milli.*1001/);
    const cpu = podState() as unknown as { nodes: Array<Record<string, unknown>> };
    cpu.nodes[0].cpu = -1;
    expect(() => engine.restoreClusterState(cpu)).toThrow(/state\.nodes\[0\]\.cpu.*-1/);
  });
});
