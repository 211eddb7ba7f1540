// Lookahead and end-game ideas for the fleet's share rule (docs/fleet.md, "Lookahead and the end
// game"): the research simulator of bench/fleet-ideas.ts (the same protocol, rules and runs), made
// cheap enough for many ideas by a per-node score cache (a node's score for a pod shape is kept
// until the node changes or the idea's global switch flips), with hooks that an idea may use to
// look ahead on the best two candidates, and a breakdown of where the allocation is lost at 100 %
// arrived (which pods fail and why, and the free milli left by hole size).
//   npm run build && node dist/bench/fleet-ideas-lookahead.js --ideas=plan,strand-all:2+reserve:10 --seeds=42..46 [--trace=default] [--loss]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Prng } from '../src/fleet/prng.js';
import { parseSeeds } from '../src/fleet/seeds.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { type NodeSpec, type Pod, validateNodes, validatePods } from '../src/fleet/types.js';
import { binCurve, prepareWorkload, rint, round2 } from '../src/simulation/simulate.js';
import { Fleet } from './fleet-ideas.js';
import { baseIdea, type Candidate, type Idea, lookaheadIdea, type RunContext } from './fleet-lookahead-rules.js';
import { openbRoot } from './openb-root.js';

/** Where the allocation is lost: failed GPU milli by pod class and reason, and the free milli at the end of the 100 % bin by hole size (all in milli). */
export type Loss = { failed: Map<string, number>; free: Map<string, number>; firstWholeFail: number };

function podClass(p: Pod): string {
  if (p.gpus === 0 || p.milli === 0) return 'cpu-only';
  if (p.milli < 1000) return p.milli >= 800 ? 'share 800+' : p.milli >= 450 ? 'share 450-799' : p.milli >= 200 ? 'share 200-449' : 'share <200';
  return p.gpus === 1 ? '1 GPU' : p.gpus === 8 ? '8 GPUs' : '2-4 GPUs';
}

/** Why pod p found no node: 'gpu' when no node has the GPU room for it (model included), else 'cpu' when none of those has the CPU, else 'memory'. */
function failReason(f: Fleet, p: Pod, mask: number): string {
  let gpuRoom = false;
  let cpuToo = false;
  for (let k = 0; k < f.n; k++) {
    const g = f.g[k]!;
    let room = p.gpus === 0;
    if (!room && g.length > 0 && (mask & f.model[k]!) !== 0) room = p.gpus === 1 ? g.some((v) => v >= p.milli) : f.full(k) >= p.gpus;
    if (!room) continue;
    gpuRoom = true;
    if (f.cpu[k]! >= p.cpu) cpuToo = true;
  }
  return !gpuRoom ? 'no GPU room' : !cpuToo ? 'GPU room only where CPU is short' : 'GPU room only where memory is short';
}

function snapshotFree(f: Fleet, free: Map<string, number>): void {
  free.clear();
  const add = (key: string, v: number) => free.set(key, (free.get(key) ?? 0) + v);
  for (let k = 0; k < f.n; k++) {
    const g = f.g[k]!;
    const full = f.full(k);
    for (const v of g) {
      if (v === 0) continue;
      if (v === 1000)
        add(f.typ.some((t) => t.gpus > 0 && t.cpu <= f.cpu[k]! && (t.mask & f.model[k]!) !== 0 && (t.milli < 1000 || t.gpus <= full)) ? 'idle GPU' : 'idle GPU, no typical pod has the CPU', v);
      else add(v < 100 ? 'hole <100' : v <= 190 ? 'hole 100-190' : v < 300 ? 'hole 191-299' : 'hole 300+', v);
    }
  }
}

/** How many of the best candidates an idea's lookahead may see. */
const TOP = 8;

/** One run: the allocation at 100 % arrived, the CPU µs per pod attempt, and (with `loss`) the breakdown. */
export function simulate(nodes: readonly NodeSpec[], pods: readonly Pod[], idea: Idea, seed: number, loss?: Loss): { at100: number; us: number; lookups: number; lookUs: number } {
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  const f = new Fleet(nodes, pods);
  const gpus = nodes.reduce((a, x) => a + x.gpus, 0);
  const capacity = gpus * 1000;
  const ctx: RunContext = { capacity, arrived: 0, ranks, pods, lookups: 0 };
  const rule = idea.rules;
  const cache: Map<string, Float64Array>[] = nodes.map(() => new Map());
  const fullOf = Int32Array.from(nodes, (_, k) => f.full(k));
  f.idle = fullOf.reduce((a, b) => a + b, 0);
  f.idle8 = nodes.reduce((a, x, k) => a + (x.gpus === 8 && fullOf[k] === 8 ? 1 : 0), 0);
  let epoch = Number.NaN;
  const bins: number[] = [];
  const alloc: number[] = [];
  let used = 0;
  let lookMs = 0;
  const start = process.cpuUsage();
  for (const p of order) {
    ctx.arrived += p.gpus * p.milli;
    if (ctx.arrived / gpus / 10 > 101) break;
    const bin = rint(ctx.arrived / gpus / 10);
    if (loss !== undefined && bin > 100 && bins.length > 0 && bins[bins.length - 1] === 100) snapshotFree(f, loss.free);
    idea.before?.(f, p, ctx);
    const e = idea.epoch?.(f, ctx) ?? 0;
    if (e !== epoch) {
      epoch = e;
      for (const c of cache) c.clear();
    }
    const mask = p.gpus === 0 ? -1 : f.mask(p.models);
    const key = `${p.cpu}|${p.gpus}|${p.milli}|${mask}`;
    const sharing = p.gpus === 1 && p.milli > 0 && p.milli < 1000;
    // The best TOP candidates, best first (score, then rank).
    const top: Candidate[] = [];
    for (let k = 0; k < f.n; k++) {
      if (!f.fits(k, p, mask)) continue;
      let hit = cache[k]!.get(key);
      if (hit === undefined) {
        let score = -Infinity;
        let choice = -1;
        if (!sharing) {
          const q = f.fgd(k, p, -1);
          if (rule === 'fgd') score = q;
          else if (p.gpus === 0 || p.milli === 0) score = rule.cpu !== undefined ? rule.cpu(f, k, p, q) : q * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0);
          else score = rule.whole !== undefined ? rule.whole(f, k, p, q) : q * 8589934592 + (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1));
        } else {
          const g = f.g[k]!;
          for (let i = 0; i < g.length; i++) {
            if (g[i]! < p.milli || g.subarray(0, i).includes(g[i]!)) continue;
            const q = f.fgd(k, p, i);
            const s = rule === 'fgd' ? q : rule.share(f, k, p, i, g[i]!, q);
            if (s > score) (score = s), (choice = i);
          }
        }
        hit = Float64Array.of(score, choice);
        cache[k]!.set(key, hit);
      }
      const c: Candidate = { node: k, gpu: hit[1]!, score: hit[0]! };
      const before = (a: Candidate, b: Candidate) => a.score > b.score || (a.score === b.score && ranks[a.node]! < ranks[b.node]!);
      if (top.length === TOP && !before(c, top[TOP - 1]!)) continue;
      if (top.length < TOP) top.push(c);
      else top[TOP - 1] = c;
      for (let at = top.length - 1; at > 0 && before(top[at]!, top[at - 1]!); at--) [top[at], top[at - 1]] = [top[at - 1]!, top[at]!];
    }
    let pick: Candidate | null = top.length === 0 ? null : top[0]!;
    if (pick !== null && idea.decide !== undefined) {
      const t0 = process.cpuUsage();
      pick = idea.decide(f, p, top, ctx);
      const t1 = process.cpuUsage(t0);
      lookMs += (t1.user + t1.system) / 1000;
    }
    if (pick !== null && rule !== 'fgd' && rule.decline?.(f, pick.node, p, pick.gpu) === true) pick = null;
    if (pick !== null) {
      const node = pick.node;
      f.cpu[node]! -= p.cpu;
      f.mem[node]! -= p.memory;
      const g = f.g[node]!;
      if (sharing) g[pick.gpu]! -= p.milli;
      else if (p.milli > 0) for (let j = 0, left = p.gpus; j < g.length && left > 0; j++) if (g[j] === 1000) (g[j] = 0), left--;
      f.frag[node] = f.fragOf(g, f.cpu[node]!, f.model[node]!);
      used += p.gpus * p.milli;
      const full = f.full(node);
      f.idle += full - fullOf[node]!;
      if (g.length === 8) f.idle8 += (full === 8 ? 1 : 0) - (fullOf[node] === 8 ? 1 : 0);
      fullOf[node] = full;
      cache[node]!.clear();
    } else if (loss !== undefined && bin <= 100) {
      const key2 = `${podClass(p)} / ${failReason(f, p, mask)}`;
      loss.failed.set(key2, (loss.failed.get(key2) ?? 0) + p.gpus * p.milli);
      if (p.milli === 1000 && p.gpus === 1 && loss.firstWholeFail < 0) loss.firstWholeFail = (ctx.arrived / capacity) * 100;
    }
    bins.push(bin);
    alloc.push(round2(used / gpus / 10));
  }
  const cpu = process.cpuUsage(start);
  return { at100: binCurve(bins, alloc)[100]!, us: (cpu.user + cpu.system) / bins.length, lookups: ctx.lookups / bins.length, lookUs: (lookMs * 1000) / bins.length };
}

/** The idea of a name: this file's lookahead ideas first, then bench/fleet-ideas.ts's. */
export async function ideaOf(name: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<Idea> {
  const own = await lookaheadIdea(name, nodes, pods);
  if (own !== undefined) return own;
  return baseIdea(name, nodes, pods);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = openbRoot(import.meta.url);
  const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const trace = arg('trace', 'default');
  const seeds = parseSeeds('--seeds', arg('seeds', '42..46'), 10000);
  const names = arg('ideas', 'plan').split(',');
  const wantLoss = process.argv.includes('--loss');
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
  const capacity = nodes.reduce((a, x) => a + x.gpus, 0) * 1000;
  process.stdout.write(`${trace}, seeds ${arg('seeds', '42..46')}: GPU allocation at 100 % arrived (mean ± sd), CPU µs per pod attempt (cached scan; compare within this table)\n`);
  for (const name of names) {
    const idea = await ideaOf(name, nodes, pods);
    const losses: Loss[] = [];
    const runs = seeds.map((seed) => {
      const loss: Loss = { failed: new Map(), free: new Map(), firstWholeFail: -1 };
      losses.push(loss);
      return simulate(nodes, pods, idea, seed, wantLoss ? loss : undefined);
    });
    const v = runs.map((r) => r.at100);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, v.length - 1));
    const us = runs.reduce((a, r) => a + r.us, 0) / runs.length;
    const lookups = runs.reduce((a, r) => a + r.lookups, 0) / runs.length;
    const lookUs = runs.reduce((a, r) => a + r.lookUs, 0) / runs.length;
    process.stdout.write(
      `${name.padEnd(28)} ${mean.toFixed(3)} ± ${sd.toFixed(3)}  [${v.join(' ')}]  ${us.toFixed(0)} µs  ${(lookups * 100).toFixed(1)} % of pods looked ahead, ${lookUs.toFixed(1)} CPU µs a pod in the lookahead\n`,
    );
    if (!wantLoss) continue;
    // The breakdown, in % of the cluster's GPUs, mean over the seeds.
    const pct = (x: number) => ((x / capacity / seeds.length) * 100).toFixed(3);
    const sum = (key: (l: Loss) => Map<string, number>) => {
      const all = new Map<string, number>();
      for (const l of losses) for (const [k, x] of key(l)) all.set(k, (all.get(k) ?? 0) + x);
      return [...all].sort((a, b) => b[1] - a[1]);
    };
    process.stdout.write(`  failed GPU demand by pod class / reason (% of cluster, arrivals up to the 100 % bin):\n`);
    for (const [k, x] of sum((l) => l.failed)) process.stdout.write(`    ${k.padEnd(36)} ${pct(x)}\n`);
    process.stdout.write(`  free GPU milli at the end of the 100 % bin (% of cluster):\n`);
    for (const [k, x] of sum((l) => l.free)) process.stdout.write(`    ${k.padEnd(36)} ${pct(x)}\n`);
    process.stdout.write(`  first one-GPU pod failing at ${losses.map((l) => l.firstWholeFail.toFixed(2)).join(', ')} % arrived\n`);
  }
}
