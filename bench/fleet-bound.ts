// An upper bound on the GPU allocation ratio that ANY policy (online or offline) can reach at 100 %
// arrived on an OpenB trace, per seed, under the FGD protocol (src/simulation/simulate.ts prepareWorkload:
// the same shuffle and tuning). For the pods arrived by the last event of the 100 % bin, it relaxes
// the cluster to loose GPUs: no nodes (a k-GPU pod takes any k GPUs), no CPU, memory or GPU-model
// limits. Each relaxation only raises the bound. Then:
//   - whole-GPU pods fill their GPUs exactly, so an optimal packing places all of them (swapping a
//     placed whole-GPU pod for shares never gains), as long as there are GPUs for them;
//   - the shares go into the remaining GPUs; the most share milli that fits is at most the optimum
//     of the configuration LP (Gilmore–Gomory): a variable per multiset of share sizes that fits one
//     GPU (sum ≤ 1000), at most R GPUs in all, at most n_i shares of size i. Solved with HiGHS.
// The allocation ratio never decreases during a run, so the bound at the bin's last event bounds
// every event of the bin, and hence the bin's mean. For scale, the table also shows what an offline
// best-fit-decreasing packing of the same relaxation reaches. With --must-place, also the must-place
// bound (fleet-bound-lp.ts mustPlaceBound: the same relaxation for a policy that places every pod
// that fits, as the protocol's scheduler must; about 30 s of CPU per seed). Prints a table and writes JSON.
//   npm run bench:fleet-bound            (builds first)
//   node dist/bench/fleet-bound.js --traces=default --seeds=42..51 --out=/tmp/bound.json
//   node dist/bench/fleet-bound.js --traces=default --seeds=42..46 --must-place --out=bench/fleet-bound-must-place.json
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Prng } from '../src/fleet/prng.js';
import { parseSeeds } from '../src/fleet/seeds.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { type Pod, validateNodes, validatePods } from '../src/fleet/types.js';
import { prepareWorkload, rint } from '../src/simulation/simulate.js';
import { allocationBound, bestFitDecreasing, loadSolver, mustPlaceBound } from './fleet-bound-lp.js';
import { openbRoot } from './openb-root.js';

const root = openbRoot(import.meta.url);
const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const traces = arg('traces', 'default,gpushare40,multigpu20,gpuspec33').split(',');
const seedArg = arg('seeds', '42..51');
const seeds = parseSeeds('--seeds', seedArg, 10000);
const out = arg('out', join(root, 'bench', 'fleet-bound.json'));
const mustPlace = process.argv.includes('--must-place');

const highs = await loadSolver();
const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
const gpus = nodes.reduce((a, n) => a + n.gpus, 0);

/** The bound at the last event of the 100 % bin of one seed, in % of the GPU capacity. */
function boundAt100(pods: Pod[], seed: number): { bound: number; bfd: number; configurations: number; mustPlace?: number; tau?: number } {
  const { order } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  let arrived = 0;
  let last = -1;
  for (let i = 0; i < order.length; i++) {
    arrived += order[i]!.gpus * order[i]!.milli;
    const bin = rint(arrived / gpus / 10);
    if (bin === 100) last = i;
    if (bin > 100) break;
  }
  const arrivedPods = order.slice(0, last + 1);
  const b = allocationBound(highs, arrivedPods, gpus);
  const row = { bound: (100 * b.milli) / (gpus * 1000), bfd: (100 * bestFitDecreasing(arrivedPods, gpus)) / (gpus * 1000), configurations: b.configurations };
  if (!mustPlace) return row;
  const m = mustPlaceBound(highs, arrivedPods, gpus);
  // τ as the arrived percent of the capacity before the pod that finds no free GPU.
  const tau = (100 * arrivedPods.slice(0, m.tau).reduce((a, p) => a + p.gpus * p.milli, 0)) / (gpus * 1000);
  return { ...row, mustPlace: (100 * m.milli) / (gpus * 1000), tau };
}

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v: number[]) => Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / Math.max(1, v.length - 1));
type Result = { trace: string; seeds: number[]; bounds: number[]; mean: number; sd: number; bfdMean: number; configurations: number; mustPlace?: number[]; mustPlaceMean?: number; tau?: number[] };
const results: Result[] = [];
process.stdout.write(`Upper bound on the GPU allocation ratio at 100 % arrived (any policy), ${nodes.length} nodes, ${gpus} GPUs, seeds ${seedArg}\n`);
process.stdout.write(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n\n`);
process.stdout.write(
  `${'trace'.padEnd(12)}${'bound mean'.padStart(12)}${'sd'.padStart(7)}${'min'.padStart(8)}${'max'.padStart(8)}${'configs'.padStart(9)}${'offline BFD'.padStart(13)}${mustPlace ? 'must-place'.padStart(12) : ''}\n`,
);
for (const trace of traces) {
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
  const rows = seeds.map((seed) => boundAt100(pods, seed));
  const bounds = rows.map((r) => r.bound);
  const row: Result = { trace, seeds, bounds, mean: mean(bounds), sd: sd(bounds), bfdMean: mean(rows.map((r) => r.bfd)), configurations: Math.max(...rows.map((r) => r.configurations)) };
  if (mustPlace) {
    row.mustPlace = rows.map((r) => r.mustPlace as number);
    row.mustPlaceMean = mean(row.mustPlace);
    row.tau = rows.map((r) => r.tau as number);
  }
  results.push(row);
  process.stdout.write(
    `${trace.padEnd(12)}${row.mean.toFixed(2).padStart(12)}${row.sd.toFixed(2).padStart(7)}${Math.min(...bounds)
      .toFixed(2)
      .padStart(8)}${Math.max(...bounds)
      .toFixed(2)
      .padStart(8)}${String(row.configurations).padStart(9)}${row.bfdMean.toFixed(2).padStart(13)}${row.mustPlaceMean === undefined ? '' : row.mustPlaceMean.toFixed(2).padStart(12)}\n`,
  );
}
writeFileSync(out, JSON.stringify({ machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version }, results }, null, 2) + '\n');
process.stdout.write(`\nwrote ${out}\n`);
