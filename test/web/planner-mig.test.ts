// The page follows the whole-GPU rule: on a node of dgx-a100-mig, its aligned request and its model
// plans leave the GPUs in MIG mode out (the model plan rejects them with MIG_MODE), while replicas
// still hand out their slices.
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/index.js';
import { Planner } from '../../web/planner/model.js';
import type { ModelRequest } from '../../web/planner/types.js';

const G = 2 ** 30;

describe('the page planner on GPUs in MIG mode', () => {
  it('picks whole GPUs and places models among the GPUs not in MIG mode', async () => {
    const { planner: p } = await Planner.create();
    p.addType('preset:dgx-a100-mig', 'dgx-a100-mig', getPreset('dgx-a100-mig'), 'preset dgx-a100-mig');
    const [id] = p.addNodes('preset:dgx-a100-mig', 1);
    p.selected = id;
    expect(p.freeWholeGpus()).toEqual([5, 6, 7]);
    expect(p.allocateAligned(3, 'topology').value.devices).toEqual([5, 6, 7]);
    expect(p.allocateAligned(4, 'topology').value.reason?.code).toBe('INSUFFICIENT_DEVICES');
    const plan = p.planNode({ memory: 140 * G } as ModelRequest).value;
    expect(plan.options[0].gpus).toEqual([6, 7]);
    expect(plan.rejected.filter((r) => r.code === 'MIG_MODE').map((r) => r.gpu)).toEqual([0, 1, 2, 3, 4]);
    expect(p.planCluster({ memory: 140 * G } as ModelRequest).value.options.every((o) => o.gpus.every((g) => g >= 5))).toBe(true);
    // Replicas are the slices of the MIG GPUs (and replicas of the others).
    expect(p.replicaDevices(1).devices.filter((d) => d.startsWith('MIG-')).length).toBe(7 + 7 + 4 + 2 + 1);
  });
});
