// The research copy of the fleet simulator behind docs/fleet.md's "Ideas tried" table: the FGD
// protocol (src/simulation/simulate.ts prepareWorkload: the same shuffle, tuning and ranks) over plain
// arrays, every node scanned for every pod, with the share rule swapped per idea. For fgd, fgd-close
// and fgd-lp it gives the engine's runs (the same figures per seed); its time per pod is that of a
// scan, so read it against its own fgd-close row. Prints mean ± sd over the seeds at 100 % arrived.
//   npm run build && node dist/bench/fleet-ideas.js --ideas=fgd-close,plan --seeds=42..46 [--trace=default]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanRemainders, deadHole } from '../src/fleet/policies/ours.js';
import { shareCounts, sharePrices } from '../src/fleet/policies/share-values.js';
import { Prng } from '../src/fleet/prng.js';
import { parseSeeds } from '../src/fleet/seeds.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { type NodeSpec, type Pod, validateNodes, validatePods } from '../src/fleet/types.js';
import { typicalPods } from '../src/fleet/typical.js';
import { binCurve, prepareWorkload, rint, round2 } from '../src/simulation/simulate.js';
import { loadSolver } from './fleet-bound-lp.js';
import { openbRoot } from './openb-root.js';

const THR = Float64Array.from({ length: 99 }, (_, j) => 1000 * Math.log((j + 1) / (99 - j)));
/** ⌊100·σ(delta/1000)⌋ (src/fleet/policies/fgd.ts). */
export function quantize(delta: number): number {
  let lo = 0;
  let hi = 99;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (delta >= THR[mid]!) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export type Typical = { cpu: number; milli: number; gpus: number; mask: number; w: number };

/** The cluster as plain arrays, and the scores every idea shares (src/baseline/fleet.ts, without caches). */
export class Fleet {
  readonly n: number;
  readonly g: Int32Array[];
  readonly cpu: Float64Array;
  readonly mem: Float64Array;
  readonly model: Int32Array;
  readonly wanted: Uint8Array;
  readonly frag: Float64Array;
  readonly typ: Typical[];
  readonly clean: Int32Array;
  /** Wholly free GPUs in the cluster, counted before each pod (for the adaptive ideas). */
  idle = 0;
  /** Wholly free 8-GPU nodes, counted before each pod (for the reserve). */
  idle8 = 0;
  private readonly models = new Map<string, number>();

  constructor(nodes: readonly NodeSpec[], pods: readonly Pod[]) {
    this.n = nodes.length;
    this.g = nodes.map((x) => new Int32Array(x.gpus).fill(1000));
    this.cpu = Float64Array.from(nodes, (x) => x.cpu);
    this.mem = Float64Array.from(nodes, (x) => x.memory);
    this.model = Int32Array.from(nodes, (x) => {
      if (!this.models.has(x.model)) this.models.set(x.model, 1 << this.models.size);
      return this.models.get(x.model) as number;
    });
    const typical = typicalPods(pods);
    this.typ = typical.map((t) => ({ cpu: t.cpu, milli: t.milli, gpus: t.gpus, mask: this.mask(t.models), w: t.weight }));
    let wanted = 0;
    for (const t of this.typ) if (t.gpus > 0 && t.mask !== -1) wanted |= t.mask;
    this.wanted = Uint8Array.from(this.model, (b) => ((b & wanted) !== 0 ? 1 : 0));
    this.clean = cleanRemainders(typical, deadHole(pods));
    this.frag = Float64Array.from(this.g, (g, k) => this.fragOf(g, this.cpu[k]!, this.model[k]!));
  }

  mask(models: readonly string[]): number {
    return models.length === 0 ? -1 : models.reduce((m, s) => m | (this.models.get(s) ?? 0), 0);
  }

  /** Frag of GPUs g with cpuLeft (src/fleet/frag.ts). */
  fragOf(g: Int32Array, cpuLeft: number, bit: number): number {
    let free = 0;
    for (const v of g) free += v;
    let frag = 0;
    for (const t of this.typ) {
      if (t.milli === 0 || (t.mask & bit) === 0) {
        frag += t.w * free;
        continue;
      }
      let fit = 0;
      let small = 0;
      for (const v of g) {
        if (v >= t.milli) fit++;
        else small += v;
      }
      frag += fit >= t.gpus && cpuLeft >= t.cpu ? t.w * small : t.w * free;
    }
    return frag;
  }

  full(k: number): number {
    let f = 0;
    for (const v of this.g[k]!) if (v === 1000) f++;
    return f;
  }

  fits(k: number, p: Pod, mask: number): boolean {
    if (this.cpu[k]! < p.cpu || this.mem[k]! < p.memory) return false;
    if (p.gpus === 0) return true;
    if (this.g[k]!.length === 0 || (mask & this.model[k]!) === 0) return false;
    if (p.gpus === 1) return this.g[k]!.some((v) => v >= p.milli);
    return this.full(k) >= p.gpus;
  }

  /** FGD's quantized score of node k for pod p with GPU i taking the share (i < 0: whole GPUs or none). */
  fgd(k: number, p: Pod, i: number): number {
    const g = Int32Array.from(this.g[k]!);
    if (i >= 0) g[i]! -= p.milli;
    else if (p.milli > 0) for (let j = 0, left = p.gpus; j < g.length && left > 0; j++) if (g[j] === 1000) (g[j] = 0), left--;
    return quantize(this.frag[k]! - this.fragOf(g, this.cpu[k]! - p.cpu, this.model[k]!));
  }
}

/** A share rule: the score of share p on GPU i of node k (free milli v); the highest wins, then the node's rank. */
export type ShareRule = (f: Fleet, k: number, p: Pod, i: number, v: number, q: number) => number;
/** An idea: its share rule, and optionally its scores of CPU-only and whole-GPU pods on node k (FGD's q given) and a veto on the chosen placement (outside the protocol's rules: a pod that fits is dropped). */
export type Rules = {
  share: ShareRule;
  cpu?: (f: Fleet, k: number, p: Pod, q: number) => number;
  whole?: (f: Fleet, k: number, p: Pod, q: number) => number;
  decline?: (f: Fleet, k: number, p: Pod, i: number) => boolean;
};

/** Prices of the min-GPU configuration LP over the given pods' share sizes: value and price tables (src/fleet/policies/share-values.ts). */
export function plan(pods: readonly { gpus: number; milli: number }[], prices?: Map<number, number>): { value: Float64Array; price: (m: number) => number } {
  const { sizes, counts } = shareCounts(pods);
  const solved = prices === undefined ? sharePrices(sizes, counts) : [];
  const y = prices ?? new Map(sizes.map((s, i) => [s, solved[i]!])); // sharePrices prices every size
  const value = new Float64Array(1001);
  for (let r = 1; r <= 1000; r++) {
    value[r] = value[r - 1]!;
    for (const [s, v] of y) if (s <= r && value[r - s]! + v > value[r]!) value[r] = value[r - s]! + v;
  }
  return { value, price: (m) => y.get(m) ?? 0 };
}

/** Prices of the max-allocation LP (GPUs left to shares fixed at the expected count; `force`: sizes that must all be placed), by HiGHS. */
async function maxAllocationPrices(nodes: readonly NodeSpec[], pods: readonly Pod[], force: number[]): Promise<Map<number, number>> {
  const highs = await loadSolver();
  const capacity = nodes.reduce((a, x) => a + x.gpus, 0);
  const scale = capacity / (pods.reduce((a, p) => a + p.gpus * p.milli, 0) / 1000);
  const whole = pods.reduce((a, p) => a + (p.milli === 1000 ? p.gpus : 0), 0);
  const { sizes, counts } = shareCounts(pods);
  const configs: number[][] = [];
  const pick = sizes.map(() => 0);
  const walk = (i: number, room: number): void => {
    if (i === sizes.length) return void (pick.some((x) => x > 0) && configs.push([...pick]));
    for (let k = 0; k <= Math.ceil(counts[i]! * scale) && k * sizes[i]! <= room; k++) (pick[i] = k), walk(i + 1, room - k * sizes[i]!);
    pick[i] = 0;
  };
  walk(0, 1000);
  const lines = ['Maximize', ` obj: ${configs.map((c, j) => `${c.reduce((a, k, i) => a + k * sizes[i]!, 0)} x${j}`).join(' + ')}`, 'Subject To'];
  lines.push(` bins: ${configs.map((_, j) => `x${j}`).join(' + ')} <= ${capacity - whole * scale}`);
  sizes.forEach((s, i) =>
    lines.push(
      ` s${s}: ${configs
        .map((c, j) => (c[i]! > 0 ? `${c[i]} x${j}` : ''))
        .filter((t) => t !== '')
        .join(' + ')} ${force.includes(s) ? '>=' : '<='} ${counts[i]! * scale}`,
    ),
  );
  lines.push('End');
  const solution = highs.solve(lines.join('\n'));
  if (solution.Status !== 'Optimal') throw new Error(`HiGHS: ${solution.Status}`);
  const dual = (i: number) => {
    const row = solution.Rows[i]!;
    return 'Dual' in row ? row.Dual : Number.NaN;
  };
  // A share's worth is what it adds beyond its price: (size − dual) / 1000 of a GPU.
  return new Map(sizes.map((s, i) => [s, (s - dual(i + 1)) / 1000]));
}

/** The share rule of each idea (the names of docs/fleet.md's table). */
export async function ruleOf(idea: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<Rules | 'fgd'> {
  if (idea === 'fgd') return 'fgd';
  const cleanOf = (f: Fleet, p: Pod, v: number) => v === 1000 || f.clean[v - p.milli] !== 0;
  if (idea === 'fgd-close') return { share: (f, _k, p, _i, v, q) => q + (cleanOf(f, p, v) ? 1000 : 0) };
  const typicalShares = typicalPods(pods).flatMap((t) => Array.from({ length: t.count }, () => ({ gpus: t.gpus, milli: t.milli })));
  const facePrices = new Map(shareCounts(pods).sizes.map((s) => [s, s / 1000]));
  const tables: Record<string, () => Promise<ReturnType<typeof plan>>> = {
    typical: async () => plan(typicalShares),
    'face-value': async () => plan(pods, facePrices),
    'max-allocation': async () => plan(pods, await maxAllocationPrices(nodes, pods, [])),
    'max-allocation-810': async () => plan(pods, await maxAllocationPrices(nodes, pods, [810])),
  };
  const { value, price } = await (tables[idea] ?? (async () => plan(pods)))();
  const loss = (p: Pod, v: number) => value[v]! - price(p.milli) - value[v - p.milli]!;
  const on = (p: Pod, v: number) => loss(p, v) < 1e-9;
  const planRule: ShareRule = (_f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0);
  const rules: Record<string, ShareRule> = {
    plan: planRule,
    graded: (_f, _k, p, _i, v, q) => q - Math.round(loss(p, v) * 1000) * 1000,
    'plan-partial': (_f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0) + (v < 1000 ? 100 : 0),
    'plan-idle': (_f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0) + (v === 1000 ? 100 : 0),
    'plan+clean': (f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0) + (cleanOf(f, p, v) ? 1000 : 0),
    'plan>clean': (f, _k, p, _i, v, q) => q + (on(p, v) ? 2000 : 0) + (cleanOf(f, p, v) ? 1000 : 0),
    'clean>plan': (f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0) + (cleanOf(f, p, v) ? 2000 : 0),
  };
  // Adaptive: when fewer than x % of the GPUs are wholly free, partly used GPUs (on plan, for 'scarce-plan') come first.
  const scarce = /^scarce(-plan)?:([0-9.]+)$/.exec(idea);
  if (scarce !== null) {
    const below = (Number(scarce[2]) / 100) * nodes.reduce((a, x) => a + x.gpus, 0);
    return { share: (f, _k, p, _i, v, q) => q + (on(p, v) ? 1000 : 0) + (f.idle < below && v < 1000 && (scarce[1] === undefined || on(p, v)) ? 2000 : 0) };
  }
  const gpus = nodes.reduce((a, x) => a + x.gpus, 0);
  // End game: once fewer than x % of the GPUs are wholly free, on plan first, then the tightest GPU, then FGD.
  const end = /^best-fit-end:([0-9.]+)$/.exec(idea);
  if (end !== null) {
    const below = (Number(end[1]) / 100) * gpus;
    return { share: (f, k, p, i, v, q) => (f.idle < below ? (on(p, v) ? 1e6 : 0) + (1000 - (v - p.milli)) * 128 + q : planRule(f, k, p, i, v, q)) };
  }
  // CPU-stranded GPU milli (strand-all:w+reserve:n adds the reserve below): on plan first, then FGD's score less w/100 per milli the placement leaves on GPUs of its node that no share
  // fitting them has the CPU for ('strand'); 'strand-all' scores CPU-only and whole-GPU pods the same way inside FGD's score.
  const strand = /^strand(-all)?:([0-9.]+)(?:\+reserve:([0-9]+))?$/.exec(idea);
  if (strand !== null) {
    const w = Number(strand[2]);
    const stranded = strandedMilli(pods);
    const share: ShareRule = (f, k, p, i, v, q) => q + (on(p, v) ? 1000 : 0) - Math.min(900, Math.round((w * stranded(f, k, p.cpu, i, p.milli, 0)) / 100));
    if (strand[1] === undefined) return { share };
    const pen = (f: Fleet, k: number, p: Pod) => Math.min(90, Math.round((w * stranded(f, k, p.cpu, -1, 0, p.gpus)) / 100));
    const rules: Rules = {
      share,
      cpu: (f, k, p, q) => (q - pen(f, k, p)) * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0),
      whole: (f, k, p, q) => (q - pen(f, k, p)) * 8589934592 + (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1)),
    };
    if (strand[3] === undefined) return rules;
    // Reserve: once at most n 8-GPU nodes are wholly free, no share, CPU-only or one- or two-GPU pod goes to a node (4 GPUs or more) that is wholly free while another node fits.
    const n = Number(strand[3]);
    const held = (f: Fleet, k: number) => f.g[k]!.length >= 4 && f.full(k) === f.g[k]!.length && f.idle8 <= n;
    return {
      share: (f, k, p, i, v, q) => rules.share(f, k, p, i, v, q) - (held(f, k) ? 3000 : 0),
      cpu: (f, k, p, q) => (rules.cpu as NonNullable<Rules['cpu']>)(f, k, p, q) - (held(f, k) ? 1e9 : 0),
      whole: (f, k, p, q) => (rules.whole as NonNullable<Rules['whole']>)(f, k, p, q) - (p.gpus < 4 && held(f, k) ? 1e13 : 0),
    };
  }
  // Outside the protocol's rules: an 810 that would open a wholly free GPU is dropped once fewer than x % of the GPUs are wholly free.
  const decline = /^decline-810:([0-9.]+)$/.exec(idea);
  if (decline !== null) {
    const below = (Number(decline[1]) / 100) * gpus;
    return { share: planRule, decline: (f, k, p, i) => p.milli === 810 && f.g[k]![i] === 1000 && f.idle < below };
  }
  const rule = rules[idea] ?? (idea in tables ? planRule : undefined);
  if (rule === undefined)
    throw new Error(
      `unknown idea ${idea}: fgd, fgd-close, ${[...Object.keys(rules), ...Object.keys(tables)].join(', ')}, scarce:x, best-fit-end:x, strand:w, strand-all:w, strand-all:w+reserve:n, decline-810:x`,
    );
  return { share: rule };
}

/** The GPU milli of node k left, after a pod takes `cpu`, `milli` of GPU i and `whole` wholly free GPUs, on GPUs (100 milli free or more) that no share of the workload fitting them has the CPU for. */
export function strandedMilli(pods: readonly Pod[]): (f: Fleet, k: number, cpu: number, i: number, milli: number, whole: number) => number {
  const least = new Map<number, number>();
  for (const p of pods) if (p.gpus === 1 && p.milli > 0 && p.milli < 1000) least.set(p.milli, Math.min(least.get(p.milli) ?? Number.POSITIVE_INFINITY, p.cpu));
  const sizes = [...least.keys()].sort((a, b) => a - b);
  return (f, k, cpu, i, milli, whole) => {
    const left = f.cpu[k]! - cpu;
    const g = f.g[k]!;
    let stranded = 0;
    for (let j = 0, w = whole; j < g.length; j++) {
      const free = g[j]!;
      let v = j === i ? free - milli : free;
      if (w > 0 && v === 1000) (v = 0), w--;
      if (v < 100) continue;
      let served = false;
      for (const m of sizes) {
        if (m > v) break;
        if ((least.get(m) as number) <= left) {
          served = true;
          break;
        }
      }
      if (!served) stranded += v;
    }
    return stranded;
  };
}

/** One run: the allocation at 100 % arrived and the CPU µs per pod attempt; `placed` hears of every pod's node and GPU (-1: none). */
export function run(nodes: readonly NodeSpec[], pods: readonly Pod[], rule: Rules | 'fgd', seed: number, placed?: (p: Pod, node: number, gpu: number) => void): { at100: number; us: number } {
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  const f = new Fleet(nodes, pods);
  const gpus = nodes.reduce((a, x) => a + x.gpus, 0);
  const bins: number[] = [];
  const alloc: number[] = [];
  let arrived = 0;
  let used = 0;
  const start = process.cpuUsage();
  for (const p of order) {
    arrived += p.gpus * p.milli;
    if (arrived / gpus / 10 > 101) break;
    const mask = p.gpus === 0 ? -1 : f.mask(p.models);
    f.idle = 0;
    f.idle8 = 0;
    for (let k = 0; k < f.n; k++) {
      const full = f.full(k);
      f.idle += full;
      if (full === 8 && f.g[k]!.length === 8) f.idle8++;
    }
    const sharing = p.gpus === 1 && p.milli > 0 && p.milli < 1000;
    let best = -Infinity;
    let node = -1;
    let gpu = -1;
    for (let k = 0; k < f.n; k++) {
      if (!f.fits(k, p, mask)) continue;
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
      if (node < 0 || score > best || (score === best && ranks[k]! < ranks[node]!)) (best = score), (node = k), (gpu = choice);
    }
    if (node >= 0 && rule !== 'fgd' && rule.decline?.(f, node, p, gpu) === true) node = -1;
    placed?.(p, node, gpu);
    if (node >= 0) {
      f.cpu[node]! -= p.cpu;
      f.mem[node]! -= p.memory;
      const g = f.g[node]!;
      if (sharing) g[gpu]! -= p.milli;
      else if (p.milli > 0) for (let j = 0, left = p.gpus; j < g.length && left > 0; j++) if (g[j] === 1000) (g[j] = 0), left--;
      f.frag[node] = f.fragOf(g, f.cpu[node]!, f.model[node]!);
      used += p.gpus * p.milli;
    }
    bins.push(rint(arrived / gpus / 10));
    alloc.push(round2(used / gpus / 10));
  }
  const cpu = process.cpuUsage(start);
  const at100 = binCurve(bins, alloc)[100];
  if (at100 === undefined) throw new Error('no allocation at 100 % arrived load (the trace arrives less)');
  return { at100, us: (cpu.user + cpu.system) / bins.length };
}

/** The table: each idea's mean ± sd over the seeds (`extra`: more ideas, as bench/fleet-ideas-node-lp.ts adds). */
export async function main(extra?: (idea: string, nodes: readonly NodeSpec[], pods: readonly Pod[]) => Promise<Rules | undefined>): Promise<void> {
  const root = openbRoot(import.meta.url);
  const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const trace = arg('trace', 'default');
  const seeds = parseSeeds('--seeds', arg('seeds', '42..46'), 10000);
  const ideas = arg('ideas', 'fgd,fgd-close,plan').split(',');
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
  process.stdout.write(`${trace}, seeds ${arg('seeds', '42..46')}: GPU allocation at 100 % arrived (mean ± sd), CPU µs per pod attempt (a scan; compare within this table)\n`);
  for (const idea of ideas) {
    const rule = (await extra?.(idea, nodes, pods)) ?? (await ruleOf(idea, nodes, pods));
    const runs = seeds.map((seed) => run(nodes, pods, rule, seed));
    const v = runs.map((r) => r.at100);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, v.length - 1));
    const us = runs.reduce((a, r) => a + r.us, 0) / runs.length;
    process.stdout.write(`${idea.padEnd(20)} ${mean.toFixed(3)} ± ${sd.toFixed(3)}  [${v.join(' ')}]  ${us.toFixed(0)} µs\n`);
  }
}

// The table, when run as a program (bench/fleet-ideas-lookahead.ts imports the pieces above).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
