// A page that only places models: gpualloc/placement and the wasm core, nothing else. With
// ?backend=ts it opens the TypeScript backend instead (its kernels come in a chunk of their own).
import { openPlacementEngine } from 'gpualloc/placement';

const G = 2 ** 30;
const backend = new URLSearchParams(location.search).get('backend') ?? undefined;
const engine = await openPlacementEngine(backend === undefined ? {} : { backend });
const plan = engine.planPlacement({
  gpus: [
    { index: 0, memoryTotal: 80 * G },
    { index: 1, memoryTotal: 80 * G },
  ],
  memory: 100 * G,
});
document.getElementById('result').textContent = `${engine.backend} ${plan.options.length} options, best on GPUs ${plan.options[0].gpus.join(',')}`;
