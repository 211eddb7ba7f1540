// Engine policies run by the simulator's loop (src/simulation/simulate.ts) over a PodScheduler, per
// seed, with the CPU time of each pick: fgd-node with the engine's node values or the research copy's
// (`--tables=research`: bench/fleet-ideas-node-lp.ts, HiGHS), its lookahead on or off (`--lookahead=off`).
//   npm run build && node dist/bench/fleet-node-engine.js --policies=fgd-node,fgd --seeds=42..46 --backend=wasm --search=index
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterState } from '../src/cluster/state.js';
import { openEngine } from '../src/engine.js';
import { PodScheduler, policyByName } from '../src/fleet/index.js';
import { Prng } from '../src/fleet/prng.js';
import { parseSeeds } from '../src/fleet/seeds.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { validateNodes, validatePods } from '../src/fleet/types.js';
import { typicalPods } from '../src/fleet/typical.js';
import { binCurve, fleetClusterNodes, prepareWorkload, rint, round2 } from '../src/simulation/simulate.js';
import { flatNodeValues, lagrangianGrid, nodePrices } from './fleet-ideas-node-lp.js';
import { openbRoot } from './openb-root.js';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const root = openbRoot(import.meta.url);
const trace = arg('trace', 'default');
const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
const engine = await openEngine({ backend: arg('backend', 'wasm') as 'wasm' | 'ts' });
const pr = arg('tables', 'engine') === 'research' ? await nodePrices(nodes, pods) : undefined;
const values = pr !== undefined ? flatNodeValues(pr, lagrangianGrid(pr, [0.125, 0.25, 0.5, 1, 2, 4, 8, 16], false, false, 30)) : undefined;
for (const policyName of arg('policies', 'fgd-node').split(',')) {
  const out: number[] = [];
  const times: number[] = [];
  const named = policyByName(policyName);
  const policy = arg('lookahead', 'on') === 'off' ? { ...named, lookahead: undefined } : named;
  for (const seed of parseSeeds('--seeds', arg('seeds', '42..46'), 10000)) {
    const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
    const state = ClusterState.create(engine.kernels, { nodes: fleetClusterNodes(nodes) });
    const fleet = new PodScheduler(engine.kernels, state.nodeView(), policy, typicalPods(pods), ranks, pods, seed, undefined, arg('search', 'index') as 'index', pods, values);
    const gpus = nodes.reduce((a, n) => a + n.gpus, 0);
    const bins: number[] = [];
    const alloc: number[] = [];
    let arrived = 0;
    let used = 0;
    let pickCpu = 0;
    for (const pod of order) {
      arrived += pod.gpus * pod.milli;
      const t0 = process.cpuUsage();
      const at = fleet.planWithDraws(pod, 0, 0);
      const t1 = process.cpuUsage(t0);
      pickCpu += t1.user + t1.system;
      if (at !== null) {
        state.commit(at);
        used += pod.gpus * pod.milli;
      }
      bins.push(rint(arrived / gpus / 10));
      alloc.push(round2(used / gpus / 10));
    }
    const looked = fleet.lookaheadDecisions();
    fleet.close();
    const at100 = binCurve(bins, alloc)[100]!;
    out.push(at100);
    times.push(pickCpu / order.length);
    process.stdout.write(`${policyName} seed ${seed}: ${at100}  pick ${(pickCpu / order.length).toFixed(1)} µs/pod CPU  lookahead on ${looked}\n`);
  }
  const mean = out.reduce((a, b) => a + b, 0) / out.length;
  const sd = Math.sqrt(out.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, out.length - 1));
  process.stdout.write(`${policyName}: ${mean.toFixed(3)} ± ${sd.toFixed(3)}  [${out.join(' ')}]  pick ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(1)} µs/pod CPU\n`);
}
