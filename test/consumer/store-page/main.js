// A page that keeps a cluster state in gpualloc/store's MemoryStore: the store runs in a browser
// (no Buffer, no node-postgres, no file system on its path).
import { openPlacementEngine } from 'gpualloc/placement';
import { MemoryStore, openClusterState } from 'gpualloc/store';

const G = 2 ** 30;
const engine = await openPlacementEngine();
const store = MemoryStore.create(engine, {
  nodes: [
    {
      id: 'n1',
      gpus: [
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 80 * G },
      ],
    },
  ],
});
const state = await openClusterState(engine, store);
const result = await state.commitWithRetry({ memory: 100 * G });
document.getElementById('result').textContent =
  result.reason === undefined ? `stored ${result.committed} on ${result.plan.options[result.option ?? 0].node} GPUs ${state.listSlots()[0].gpus.join(',')}` : `not stored: ${result.reason.code}`;
