// Quick timing of allocateAligned on 16-GPU nodes, every size, both policies and backends:
// node dist/bench/reference/aligned-timing.js (after npm run build:ts). Prints microseconds per call.

import type { AlignedPolicy } from '../../src/devices/aligned.js';
import { openEngine } from '../../src/engine.js';
import type { Topology } from '../../src/hardware/topology.js';
import { presetTopology, unstructuredTopology } from '../inputs.js';

const nodes: Array<[string, Topology]> = [
  ['dgx2', presetTopology('dgx2')],
  ['random16', unstructuredTopology(16, 42)],
];
const engines = [await openEngine({ backend: 'wasm' }), await openEngine({ backend: 'ts' })];
const rows: string[] = [];
for (const [name, topology] of nodes) {
  const available = Array.from({ length: topology.gpus }, (_, g) => g);
  for (const policy of ['besteffort', 'topology'] as AlignedPolicy[]) {
    const cells: string[] = [];
    for (const e of engines) {
      const times: string[] = [];
      for (let size = 1; size <= 16; size++) {
        const req = { topology, available, size, policy };
        for (let k = 0; k < 5; k++) e.allocateAligned(req);
        // The fastest of five 30 ms batches: the machine is shared, the minimum is the steadiest figure.
        let best = Number.POSITIVE_INFINITY;
        for (let batch = 0; batch < 5; batch++) {
          let reps = 0;
          const t0 = performance.now();
          while (performance.now() - t0 < 30 || reps < 2) {
            e.allocateAligned(req);
            reps++;
          }
          best = Math.min(best, (1000 * (performance.now() - t0)) / reps);
        }
        times.push(best.toFixed(0));
      }
      cells.push(`${e.backend}: ${times.join(' ')}`);
    }
    rows.push(`${name} ${policy} (µs per call, sizes 1..16)\n  ${cells.join('\n  ')}`);
  }
}
console.log(rows.join('\n'));
