// Plans across nodes on a cluster state of 5,000 labelled DGX H100 nodes (8 × 80 GB, NVSwitch):
// cliques of 18 nodes (nvidia.com/gpu.clique, as on GB200 NVL72-style domains), 4 cliques a rack,
// 5 zones; a tenth of the nodes hold a 40 GB slot on one GPU, so they cannot take a tensor-parallel
// 8 part of a large model. One timed operation: one ClusterState.plan (16 options), on each backend.
// Prints a table, writes bench/multi-node-results.json.
//   npm run bench:multi-node [-- --quick] [-- --out=FILE]
import { loadavg } from 'node:os';
import { Bench } from 'tinybench';
import { table } from '../src/cli/lib/common.js';
import { nodeFromInventory } from '../src/cluster/node.js';
import type { ClusterNode, ClusterPlanRequest } from '../src/cluster/state.js';
import { createEngine } from '../src/engine.js';
import { getPreset } from '../src/hardware/presets.js';
import { argValue, machineInfo, resultsPath, writeResults } from './store.bench.js';

/** Nodes of the cluster, nodes per clique, cliques per rack, zones. */
export const SHAPE = { nodes: 5000, clique: 18, cliquesPerRack: 4, zones: 5 } as const;

const GB = 1e9;

/** The cluster: every node a DGX H100, labelled, a tenth with a 40 GB slot on GPU 0. */
export function labelledNodes(count: number): ClusterNode[] {
  const h100 = getPreset('dgx-h100');
  return Array.from({ length: count }, (_, k): ClusterNode => {
    const clique = Math.floor(k / SHAPE.clique);
    const node: ClusterNode = {
      ...nodeFromInventory(h100, { id: `node-${k}` }),
      labels: { 'nvidia.com/gpu.clique': `c${clique}`, rack: `r${Math.floor(clique / SHAPE.cliquesPerRack)}`, 'topology.kubernetes.io/zone': `z${clique % SHAPE.zones}` },
    };
    if (k % 10 === 3) node.slots = [{ id: `busy-${k}`, gpus: [0], memoryPerGpu: 40 * GB, model: 'small' }];
    return node;
  });
}

/** The plans timed: Llama 3.1 405B in BF16 (810 GB), a 1.5 TB model (3 nodes), and one no clique can hold. */
export const PLANS: Array<{ name: string; request: ClusterPlanRequest }> = [
  { name: '810 GB (Llama 3.1 405B BF16), no topology', request: { memory: 810 * GB, model: 'llama-405b' } },
  { name: '810 GB, preferred clique, rack, zone', request: { memory: 810 * GB, topology: { preferred: ['nvidia.com/gpu.clique', 'rack', 'topology.kubernetes.io/zone'] } } },
  { name: '810 GB, required clique', request: { memory: 810 * GB, topology: { required: 'nvidia.com/gpu.clique' } } },
  { name: '1.5 TB (3 nodes), preferred clique', request: { memory: 1500 * GB, topology: { preferred: ['nvidia.com/gpu.clique'] } } },
  { name: '20 TB, required clique: infeasible (no clique holds it)', request: { memory: 20_000 * GB, topology: { required: 'nvidia.com/gpu.clique' } } },
];

type Row = { plan: string; backend: string; nodes: number; options: number; first: string; p50Ms: number; meanMs: number; p99Ms: number; samples: number };

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const out = argValue('out') ?? resultsPath('multi-node-results.json');
  const loadStart = loadavg();
  const nodes = labelledNodes(SHAPE.nodes);
  const rows: Row[] = [];
  for (const backend of ['wasm', 'ts'] as const) {
    const engine = await createEngine({ backend });
    const t0 = performance.now();
    const state = engine.createClusterState({ nodes });
    const setupMs = performance.now() - t0;
    process.stderr.write(`${backend}: createClusterState of ${SHAPE.nodes} nodes in ${setupMs.toFixed(0)} ms\n`);
    for (const { name, request } of PLANS) {
      const once = state.plan(request);
      const bench = new Bench({ time: quick ? 200 : 1000, iterations: quick ? 3 : 10, warmup: true, warmupIterations: 2 });
      bench.add(name, () => void state.plan(request));
      await bench.run();
      const task = bench.tasks[0]!;
      const r = task.result as unknown as { latency: { p50: number; mean: number; p99: number; samplesCount: number } };
      const o = once.options[0];
      rows.push({
        plan: name,
        backend,
        nodes: SHAPE.nodes,
        options: once.options.length,
        first: o === undefined ? (once.reason?.code ?? '-') : `${o.parts!.map((p) => p.node).join('+')} ${o.tensorParallel}×${o.pipelineParallel}`,
        p50Ms: r.latency.p50,
        meanMs: r.latency.mean,
        p99Ms: r.latency.p99,
        samples: r.latency.samplesCount,
      });
    }
  }
  const m = machineInfo();
  const text =
    `Plans across nodes, ${SHAPE.nodes.toLocaleString('en-US')} labelled DGX H100 nodes (cliques of ${SHAPE.clique}), 16 options a plan, time per plan:\n` +
    table(
      ['PLAN', 'BACKEND', 'OPTIONS', 'BEST', 'P50 MS', 'MEAN MS', 'P99 MS', 'SAMPLES'],
      rows.map((r) => [r.plan, r.backend, r.options, r.first, r.p50Ms.toFixed(2), r.meanMs.toFixed(2), r.p99Ms.toFixed(2), r.samples]),
    ) +
    `machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${loadStart[0]!.toFixed(1)} → ${m.loadavg[0]!.toFixed(1)} (a shared machine: medians are what the code does when it runs)\n`;
  process.stdout.write(text);
  writeResults(out, { machine: m, loadavgStart: loadStart, quick, shape: SHAPE, rows });
}

await main();
