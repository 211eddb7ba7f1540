// The set-up cost of the node-lp value on every openb trace: the engine's node-level LP (nodeLpPrices:
// the share LP, then the node LP by src/fleet/policies/simplex.ts), its tables for the research's
// best name N (nodeValueTables, θ 1/8..16, shapes expected 30 times or more: the LP again and 15 × 25
// knapsack tables of 1,001 entries), and HiGHS's solve of the same LP in the research copy
// (bench/fleet-ideas-node-lp.ts's nodePrices, which also loads HiGHS each call), in one run.
//   npm run build && node dist/bench/fleet-node-value.bench.js [--quick]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { nodeLpPrices, nodeValueTables } from '../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { validateNodes, validatePods } from '../src/fleet/types.js';
import { nodePrices } from './fleet-ideas-node-lp.js';
import { openbRoot } from './openb-root.js';
import { isMain, machineInfo, resultsPath, writeResults } from './store.bench.js';
import { formatLatency, formatRatio, renderTable } from './table.js';

const TRACES = ['default', 'gpushare40', 'gpuspec33', 'multigpu20'];
const N = { thetas: [0.125, 0.25, 0.5, 1, 2, 4, 8, 16], least: 30 };

/** Median milliseconds of each task on one trace (medians: robust to a noisy machine). */
export async function timeTrace(trace: string, quick: boolean): Promise<{ trace: string; lpMs: number; tablesMs: number; highsMs: number; lpCpuMs: number; tablesCpuMs: number; highsCpuMs: number }> {
  const root = openbRoot(import.meta.url);
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
  const bench = new Bench({ time: quick ? 200 : 2000, iterations: quick ? 2 : 5, warmupIterations: 1 });
  bench.add('lp', () => void nodeLpPrices(nodes, pods));
  bench.add('tables', () => void nodeValueTables(nodes, pods, N));
  bench.add('highs', async () => void (await nodePrices(nodes, pods)));
  await bench.run();
  // CPU time (user + system) of single calls, the least of a few: on a shared machine wall time counts other processes' turns.
  const cpuMs = async (run: () => unknown) => {
    let best = Number.POSITIVE_INFINITY;
    for (let k = 0; k < (quick ? 2 : 5); k++) {
      const start = process.cpuUsage();
      await run();
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / 1000);
    }
    return best;
  };
  const cpu = { lp: await cpuMs(() => nodeLpPrices(nodes, pods)), tables: await cpuMs(() => nodeValueTables(nodes, pods, N)), highs: await cpuMs(() => nodePrices(nodes, pods)) };
  const ms = (name: string) => {
    const r = bench.getTask(name)?.result;
    if (r?.state !== 'completed') throw new Error(`fleet-node-value bench: ${name} on ${trace}: ${r?.state}`);
    return r.latency.p50;
  };
  return { trace, lpMs: ms('lp'), tablesMs: ms('tables'), highsMs: ms('highs'), lpCpuMs: cpu.lp, tablesCpuMs: cpu.tables, highsCpuMs: cpu.highs };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const rows = [];
  for (const trace of TRACES) rows.push(await timeTrace(trace, quick));
  process.stdout.write(
    `${renderTable(
      ['trace', 'engine LP (median wall / least CPU)', 'engine tables (N)', 'HiGHS LP (research copy)', 'HiGHS / engine LP (CPU)'],
      rows.map((r) => [
        r.trace,
        `${formatLatency(r.lpMs * 1000)} / ${formatLatency(r.lpCpuMs * 1000)}`,
        `${formatLatency(r.tablesMs * 1000)} / ${formatLatency(r.tablesCpuMs * 1000)}`,
        `${formatLatency(r.highsMs * 1000)} / ${formatLatency(r.highsCpuMs * 1000)}`,
        formatRatio(r.highsCpuMs / r.lpCpuMs),
      ]),
    )}\n`,
  );
  writeResults(resultsPath('fleet-node-value-results.json'), { schema: 1, date: new Date().toISOString(), quick, machine: machineInfo(), rows });
}
