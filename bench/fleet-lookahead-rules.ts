// The lookahead and end-game ideas of bench/fleet-ideas-lookahead.ts (docs/fleet.md, "Lookahead and
// the end game"), each built on fgd-lp's share rule and bench/fleet-ideas.ts's rules.
import type { NodeSpec, Pod } from '../src/fleet/types.js';
import { type Fleet, plan, type Rules, ruleOf } from './fleet-ideas.js';

/** A candidate placement: node, GPU (−1: whole GPUs or none) and score. */
export type Candidate = { node: number; gpu: number; score: number };

/** An idea: its rules (bench/fleet-ideas.ts), a global switch its scores depend on (the cache is cleared when it changes), and a hook that may change the pick from the best candidates (up to 8, best first). */
export type Idea = {
  rules: Rules | 'fgd';
  epoch?: (f: Fleet, ctx: RunContext) => number;
  decide?: (f: Fleet, p: Pod, top: readonly Candidate[], ctx: RunContext) => Candidate;
  /** Called before each pod (to keep state of its own). */
  before?: (f: Fleet, p: Pod, ctx: RunContext) => void;
};

/** What an idea may read of the run: GPU capacity (milli), the milli arrived so far (this pod included), the node ranks, the workload; and a count it keeps. */
export type RunContext = { capacity: number; arrived: number; ranks: readonly number[]; pods: readonly Pod[] /** Decisions an idea looked ahead on. */; lookups: number };

/** A base idea of bench/fleet-ideas.ts with the global switch its scores read (f.idle for scarce, best-fit-end and decline: below x % of the GPUs; f.idle8 for the reserve: at most n). */
export async function baseIdea(name: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<Idea> {
  const rules = await ruleOf(name, nodes, pods);
  if (rules === 'fgd') return { rules };
  const gpus = nodes.reduce((a, x) => a + x.gpus, 0);
  const below = /^(?:scarce(?:-plan)?|best-fit-end|decline-810):([0-9.]+)$/.exec(name);
  if (below !== null) return { rules, epoch: (f) => (f.idle < (Number(below[1]) / 100) * gpus ? 1 : 0) };
  const reserve = /\+reserve:([0-9]+)$/.exec(name);
  if (reserve !== null) return { rules, epoch: (f) => (f.idle8 <= Number(reserve[1]) ? 1 : 0) };
  return { rules };
}

const isShare = (p: { gpus: number; milli: number }) => p.gpus === 1 && p.milli > 0 && p.milli < 1000;

/** Milli-CPU per GPU milli that the workload's GPU pods ask (CPU-only pods not counted). */
function cpuPerMilli(pods: readonly Pod[]): number {
  let cpu = 0;
  let milli = 0;
  for (const p of pods) if (p.gpus > 0 && p.milli > 0) (cpu += p.cpu), (milli += p.gpus * p.milli);
  return cpu / milli;
}

/**
 * Soft stranding: the GPU milli of node k (on GPUs with 100 free or more) left after a placement that
 * the node's CPU left cannot serve at the workload's CPU per GPU milli: max(0, free − cpuLeft / rho).
 */
function softStranded(f: Fleet, k: number, rho: number, cpu: number, i: number, milli: number, whole: number): number {
  const g = f.g[k]!;
  let free = 0;
  for (let j = 0, w = whole; j < g.length; j++) {
    let v = j === i ? g[j]! - milli : g[j]!;
    if (w > 0 && v === 1000) (v = 0), w--;
    if (v >= 100) free += v;
  }
  return Math.max(0, free - (f.cpu[k]! - cpu) / rho);
}

/** Adds a penalty (in stranded milli, w/100 per milli, capped as strand's) to every score of `rules`. */
function penalized(rules: Rules, pen: (f: Fleet, k: number, p: Pod, i: number) => number, w: number): Rules {
  const cpuOf = rules.cpu ?? ((f: Fleet, k: number, _p: Pod, q: number) => q * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0));
  const wholeOf = rules.whole ?? ((f: Fleet, k: number, p: Pod, q: number) => q * 8589934592 + (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1)));
  return {
    ...rules,
    share: (f, k, p, i, v, q) => rules.share(f, k, p, i, v, q) - Math.min(900, Math.round((w * pen(f, k, p, i)) / 100)),
    cpu: (f, k, p, q) => cpuOf(f, k, p, q) - Math.min(90, Math.round((w * pen(f, k, p, -1)) / 100)) * 1e6,
    whole: (f, k, p, q) => wholeOf(f, k, p, q) - Math.min(90, Math.round((w * pen(f, k, p, -1)) / 100)) * 8589934592,
  };
}

/** A small seeded generator for the rollouts (xorshift32). */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/**
 * A rollout on one node: GPU milli that `samples` sequences of pods (drawn from the workload, those
 * the node's model serves) would place on node k's state (GPUs g, CPU and memory left), each pod that
 * fits placed greedily (a share on the tightest GPU, whole GPUs on wholly free ones; with `onPlan`, a
 * share only on a GPU where it is on fgd-lp's plan: elsewhere the policy would send it to another
 * node). The same sequences for every state compared (common random numbers).
 */
function rolloutFill(g0: Int32Array, cpu0: number, mem0: number, seqs: readonly (readonly Pod[])[], onPlan?: (m: number, v: number) => boolean): number {
  let total = 0;
  const g = new Int32Array(g0.length);
  for (const seq of seqs) {
    g.set(g0);
    let cpu = cpu0;
    let mem = mem0;
    for (const p of seq) {
      if (p.cpu > cpu || p.memory > mem) continue;
      if (p.gpus === 0 || p.milli === 0) {
        cpu -= p.cpu;
        mem -= p.memory;
        continue;
      }
      if (isShare(p)) {
        let best = -1;
        for (let j = 0; j < g.length; j++) if (g[j]! >= p.milli && (best < 0 || g[j]! < g[best]!) && (onPlan === undefined || onPlan(p.milli, g[j]!))) best = j;
        if (best < 0) continue;
        g[best]! -= p.milli;
      } else {
        let full = 0;
        for (const v of g) if (v === 1000) full++;
        if (full < p.gpus) continue;
        for (let j = 0, left = p.gpus; j < g.length && left > 0; j++) if (g[j] === 1000) (g[j] = 0), left--;
      }
      cpu -= p.cpu;
      mem -= p.memory;
      total += p.gpus * p.milli;
    }
  }
  return total / seqs.length;
}

/** The idea of a name (a base idea of bench/fleet-ideas.ts, then modifiers after '|'), or undefined when it has no modifier of this file. */
export async function lookaheadIdea(name: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<Idea | undefined> {
  const [baseName, ...mods] = name.split('|');
  if (mods.length === 0) return undefined;
  const idea = await baseIdea(baseName ?? '', nodes, pods);
  if (idea.rules === 'fgd') throw new Error('the lookahead modifiers apply to the rules of fgd-close and later, not to fgd');
  const gpus = nodes.reduce((a, x) => a + x.gpus, 0);
  const rho = cpuPerMilli(pods);
  let wholeMilli = 0;
  let allMilli = 0;
  for (const p of pods) (allMilli += p.gpus * p.milli), (wholeMilli += p.milli === 1000 ? p.gpus * 1000 : 0);
  const wholeFrac = wholeMilli / allMilli;
  for (const mod of mods) {
    const [kind, ...args] = mod.split(':');
    const a = args.map(Number);
    const rules = idea.rules as Rules;
    const epoch = idea.epoch;
    if (kind === 'soft') {
      // Soft stranding: the GPU milli the node's CPU left cannot serve at the workload's CPU per GPU milli, w/100 per milli.
      idea.rules = penalized(rules, (f, k, p, i) => softStranded(f, k, rho, p.cpu, i, isShare(p) ? p.milli : 0, isShare(p) ? 0 : p.milli > 0 ? p.gpus : 0), a[0]!);
    } else if (kind === 'end') {
      // End game by expected demand: once the wholly free GPUs are fewer than W × the whole GPUs the remaining arrivals (to 100 %) are expected to ask, shares go to partly used GPUs first (mode 1: above on plan; mode 0: below it).
      const w = a[0]!;
      const above = (a[1] ?? 1) === 1;
      const late = (f: Fleet, ctx: RunContext) => f.idle < w * ((ctx.capacity - ctx.arrived) / 1000) * wholeFrac;
      let on = false;
      idea.before = (f, _p, ctx) => void (on = late(f, ctx));
      idea.epoch = (f, ctx) => (epoch?.(f, ctx) ?? 0) * 2 + (late(f, ctx) ? 1 : 0);
      idea.rules = { ...rules, share: (f, k, p, i, v, q) => rules.share(f, k, p, i, v, q) + (on && v < 1000 ? (above ? 2000 : 500) : 0) };
    } else if (kind === 'roll' || kind === 'rollp' || kind === 'rollh') {
      // Rollouts on close decisions: among the best n nodes (2 unless given) that score within delta of the best, the one whose state the pod damages least, over M sampled continuations of K pods each (scope 0: shares only; 1: every GPU pod; 2: every pod).
      const [delta = 0, m = 1, len = 1] = a;
      const scope = a[3] ?? 0;
      const rng = xorshift(0x9e3779b9);
      const byModel = new Map<number, Pod[]>();
      const sampleFor = (f: Fleet, k: number): Pod[] => {
        const bit = f.model[k]!;
        let list = byModel.get(bit);
        if (list === undefined) byModel.set(bit, (list = pods.filter((p) => p.gpus === 0 || f.mask(p.models) & bit)));
        return list;
      };
      const among = a[4] ?? 2;
      const { value, price } = plan(pods);
      // rollh: continuations as long as alpha (argument 6, default 2) × the pods each node can still expect before 100 % arrived, 2 to K.
      const alpha = a[5] ?? 2;
      let podMilli = 0;
      for (const p of pods) podMilli += p.gpus * p.milli;
      podMilli /= pods.length;
      const horizon = (ctx: RunContext) => (kind !== 'rollh' ? len : Math.max(2, Math.min(len, Math.ceil((alpha * Math.max(0, ctx.capacity - ctx.arrived)) / podMilli / nodes.length))));
      const onPlan = kind === 'rollp' ? (m: number, v: number) => value[v]! - price(m) - value[v - m]! < 1e-9 : undefined;
      idea.decide = (f, p, top, ctx) => {
        const close = top.filter((c) => top[0]!.score - c.score <= delta).slice(0, among);
        if (close.length < 2) return top[0]!;
        if (scope === 0 ? !isShare(p) : scope === 1 ? p.gpus === 0 || p.milli === 0 : false) return top[0]!;
        ctx.lookups++;
        // The damage of a placement: the GPU milli the sampled continuations place on its node without the pod, less with it.
        let pick = top[0]!;
        let least = Infinity;
        for (const c of close) {
          const list = sampleFor(f, c.node);
          const seqs = Array.from({ length: m }, () => Array.from({ length: horizon(ctx) }, () => list[rng() % list.length]!));
          const g = Int32Array.from(f.g[c.node]!);
          if (isShare(p)) g[c.gpu]! -= p.milli;
          else if (p.milli > 0) for (let j = 0, left = p.gpus; j < g.length && left > 0; j++) if (g[j] === 1000) (g[j] = 0), left--;
          const damage = rolloutFill(f.g[c.node]!, f.cpu[c.node]!, f.mem[c.node]!, seqs, onPlan) - rolloutFill(g, f.cpu[c.node]! - p.cpu, f.mem[c.node]! - p.memory, seqs, onPlan);
          if (damage < least) (least = damage), (pick = c);
        }
        return pick;
      };
    } else
      throw new Error(
        `unknown modifier ${mod}: soft:w, end:W[:1|0], roll:delta:M:K[:scope[:n]], rollp:… (the same, continuations on plan), rollh:delta:M:K:scope:n:alpha (continuations shortening to the end)`,
      );
  }
  void gpus;
  return idea;
}
