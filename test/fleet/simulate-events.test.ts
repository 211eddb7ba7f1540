// gpualloc simulate --events on the published default trace, replayed by an independent checker:
// every placement is feasible when it happens (CPU, memory, GPU model, per-GPU room, whole GPUs for
// several), failed pods really fit nowhere by the filters, and the totals match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir, ROOT } from '../support/cli.js';

const NODES = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const PODS = join(ROOT, 'data/openb/openb_pod_list_gpuspec33.csv');

type Event = { pod: string; node: string | null; gpus: number[]; milli: number; cpu: number; memoryMiB: number; arrived: number; used: number };

/** The CSVs read with nothing from src/. */
function table(file: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
}

describe('gpualloc simulate --events: an independent replay', () => {
  for (const policy of ['fgd-node', 'fgd-close', 'random']) {
    it(`${policy}: every placement feasible, every failure infeasible, totals match`, async () => {
      await inTempDir('gpualloc-events-', async (dir) => {
        const file = join(dir, 'events.jsonl');
        const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', policy, '--seeds', '7', '--events', file, '--json']);
        expect(r.code).toBe(0);
        const run = JSON.parse(r.stdout).runs[0];
        const events: Event[] = readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(events.length).toBe(run.pods);
        const nodes = new Map(table(NODES).map((n) => [n.sn, { cpu: Number(n.cpu_milli), mem: Number(n.memory_mib), model: n.model, gpus: Array(Number(n.gpu)).fill(1000) as number[] }]));
        const pods = new Map(table(PODS).map((p) => [p.name, p]));
        let arrived = 0;
        let used = 0;
        let failed = 0;
        let clones = false;
        const seen = new Set<string>();
        for (const e of events) {
          expect(seen.has(e.pod)).toBe(false);
          seen.add(e.pod);
          const tuned = /^(.*)-tuned-\d+$/.exec(e.pod);
          if (tuned) clones = true;
          else expect(clones).toBe(false); // every original before any clone
          const p = pods.get(tuned ? tuned[1] : e.pod)!;
          const num = Number(p.num_gpu);
          const milli = num === 0 ? 0 : Number(p.gpu_milli);
          expect([e.cpu, e.memoryMiB, e.milli]).toEqual([Number(p.cpu_milli), Number(p.memory_mib), milli]);
          const models = p.gpu_spec ? p.gpu_spec.split('|') : [];
          arrived += num * milli;
          const fitsOn = (n: { cpu: number; mem: number; model: string; gpus: number[] }) =>
            n.cpu >= e.cpu &&
            n.mem >= e.memoryMiB &&
            (num === 0 || (n.gpus.length > 0 && (models.length === 0 || models.includes(n.model)) && (num === 1 ? n.gpus.some((g) => g >= milli) : n.gpus.filter((g) => g === 1000).length >= num)));
          if (e.node === null) {
            failed++;
            expect([...nodes.values()].some(fitsOn)).toBe(false);
          } else {
            const n = nodes.get(e.node)!;
            const ok = fitsOn(n) && e.gpus.length === num && new Set(e.gpus).size === num && e.gpus.every((g) => n.gpus[g] >= milli && (num === 1 || n.gpus[g] === 1000));
            if (!ok) expect({ event: e, node: n }).toBe('a feasible placement');
            for (const g of e.gpus) {
              n.gpus[g] -= milli;
            }
            n.cpu -= e.cpu;
            n.mem -= e.memoryMiB;
            used += num * milli;
          }
          if (e.arrived !== arrived || e.used !== used) expect([e.arrived, e.used]).toEqual([arrived, used]);
        }
        expect(failed).toBe(run.failed);
        expect(clones).toBe(true);
        // The tuned workload reaches 130 % of the GPU capacity (the stop rule may pass it by one pod).
        expect(arrived).toBeGreaterThan(1.3 * run.capacityMilli - 1000);
        expect(run.capacityMilli).toBe(6212 * 1000);
      });
    });
  }
});
