// One cluster state, both request kinds: a model placed by memory and pods placed by share on the
// same GPUs see one another (bytes are the one unit), through the one commit path. Both backends.
import { describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('pods and memory-placed models on one state (%s)', (_name, engine) => {
  const node = { id: 'box', gpus: [{ index: 0, memoryTotal: 80 * G }], cpu: 32000, hostMemory: 256 * G, gpuModel: 'A100' };
  const pod = (id: string, milli: number) => ({ id, cpu: 1000, memoryMiB: 1024, gpus: 1, milli });

  it('a 40 GiB model leaves 500 milli: 600 is infeasible with a reason, 500 fits; releasing the model gives 1000 back', () => {
    const state = engine.createClusterState({ nodes: [node] });
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      expect(pods.view('box').gpus).toEqual([1000]);
      const model = state.plan({ memory: 40 * G, model: 'llama' }).options[0];
      const modelSlot = state.commit(model);
      expect(pods.view('box').gpus).toEqual([500]);
      const big = pods.plan(pod('big', 600));
      expect(big.options).toEqual([]);
      expect(big.reason?.code).toBe('NO_NODE_FITS');
      expect(big.reason?.message).toMatch(/pod big: .*600 milli free.*0 the free GPUs/);
      const half = pods.plan(pod('half', 500));
      expect(half.options).toEqual([{ node: 'box', gpus: [0], memoryPerGpu: 40 * G, evict: [], score: 0, milli: 500, cpu: 1000, hostMemory: 1024 * 2 ** 20 }]);
      state.commit(half.options[0], { id: 'half' });
      expect(pods.view('box')).toEqual({ cpu: 31000, memoryMiB: 256 * 1024 - 1024, gpus: [0] });
      // The GPU is full in bytes too: the memory planner sees no room, and the share as allocated memory.
      expect(state.plan({ memory: G, tensorParallelSizes: [1], allowEviction: false }).options).toEqual([]);
      expect(state.usage()[0].allocated).toBe(80 * G);
      state.release(modelSlot);
      expect(pods.view('box').gpus).toEqual([500]);
      state.release('half');
      expect(pods.view('box')).toEqual({ cpu: 32000, memoryMiB: 256 * 1024, gpus: [1000] });
      expect(pods.plan(pod('whole', 1000)).options[0]).toMatchObject({ gpus: [0], memoryPerGpu: 80 * G, milli: 1000 });
    } finally {
      pods.close();
    }
  });

  it('memory used by other processes lowers the shares (floor of the free fraction); a whole GPU then never fits', () => {
    const state = engine.createClusterState({ nodes: [{ ...node, gpus: [{ index: 0, memoryTotal: 80 * G, memoryUsed: 8 * G + 1 }] }] });
    const pods = state.podScheduler({ policy: 'fgd', typical: [pod('t', 300)] });
    try {
      // (72 GiB − 1 byte) / 80 GiB = 0.8999…: 899 milli.
      expect(pods.view('box').gpus).toEqual([899]);
      expect(pods.plan(pod('p900', 900)).options).toEqual([]);
      expect(pods.plan(pod('p899', 899)).options).toHaveLength(1);
      expect(pods.plan({ id: 'w', cpu: 0, memoryMiB: 0, gpus: 1 }).reason?.code).toBe('NO_NODE_FITS');
    } finally {
      pods.close();
    }
  });

  it('a model placed by memory sees the bytes that pods hold', () => {
    const state = engine.createClusterState({
      nodes: [
        {
          ...node,
          gpus: [
            { index: 0, memoryTotal: 80 * G },
            { index: 1, memoryTotal: 80 * G },
          ],
        },
      ],
    });
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      for (const id of ['a', 'b']) state.commit(pods.plan(pod(id, 750)).options[0], { id });
      // bestfit stacks nothing here (750 + 750 > 1000): one share per GPU, each charged 60 GiB.
      expect(state.listSlots().map((s) => [s.gpus, s.memoryPerGpu])).toEqual([
        [[0], 60 * G],
        [[1], 60 * G],
      ]);
      // 20 GiB free on each GPU: 40 GiB over two GPUs fits exactly, 40 GiB + 2 bytes does not.
      expect(state.plan({ memory: 40 * G, tensorParallelSizes: [2] }).options.map((o) => o.gpus)).toEqual([[0, 1]]);
      const over = state.plan({ memory: 40 * G + 2, tensorParallelSizes: [2] });
      expect(over.options).toEqual([]);
      expect(over.rejected.map((r) => [r.gpu, r.shortBy])).toEqual([
        [0, 1],
        [1, 1],
      ]);
    } finally {
      pods.close();
    }
  });
});
