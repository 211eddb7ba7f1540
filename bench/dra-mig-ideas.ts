// Online look-ahead and reservation ideas for the DynamicMIG streams, tried on the abstract fleet of
// bench/dra-mig-sim.ts before any of them goes into the scored objective (docs/benchmarks.md, "DRA
// placement quality", has the table). Each idea places a claim knowing only the state and the
// workload's shape distribution (the stream's mix, or openb's shape counts), never the stream.
//   npx tsc -p tsconfig.json && node dist/bench/dra-mig-ideas.js [--ideas=ff,rollout:8:20,…]
// `pair:<h>:<flags>`: the look-ahead of h claims, used GPU first, and pairing (a MIG claim on a carved
// GPU that closes its last placement of a shape the workload asks for more often costs more than a
// fresh GPU); flags joined by `+`: `big` (only shapes bigger than the claim's), `sup` (unless the
// node's other carved GPUs that still take the shape number at least its weight over the claim's),
// `sup1` / `sup2` (… at least 1 / 2), `any` (counting the GPU itself), `room` (only shapes the
// GPU's free compute could hold), `bigmem` (only shapes with more memory slices), `free<k>` (only
// on nodes with k or more free GPUs), `tie` (closing costs as much as a fresh GPU), `exp` (unless the
// fleet's other carved GPUs that take the shape number at least its claims expected before the fleet
// is full: free compute ÷ the workload's mean size × the shape's share; the engine's rule), `expn`
// (the node's carved GPUs only), `expnn` (… and the node's free compute).
import { buildFleet, openbShapes, openbStream, rng, seededStream, shapeMix } from './dra-fleets/index.js';
import { actions, apply, bestFit, firstFit, freeGpus, GPUS_PER_NODE, type Policy, replay, type SimAction, SimFleet, type SimShape, simShape } from './dra-mig-sim.js';
import { openbRoot } from './openb-root.js';
import { argValue, isMain } from './store.bench.js';

const GPUS = 64;

/** Samples shapes from a distribution (weights), seeded. */
function sampler(dist: ReadonlyArray<{ shape: SimShape; weight: number }>, seed: number): () => SimShape {
  const next = rng(seed);
  const total = dist.reduce((a, d) => a + d.weight, 0);
  return () => {
    let r = next() * total;
    for (const d of dist) if ((r -= d.weight) < 0) return d.shape;
    return dist[dist.length - 1]!.shape;
  };
}

/**
 * Rollouts: every distinct placement is followed by `k` sampled futures of `depth` claims from the
 * workload, placed first-fit (the same futures for every placement: common random numbers, seeded
 * by the arrival); the placement whose futures allocate most on average wins (ties: first-fit's).
 * `stop`: a future ends at its first claim that fails (what a claim that cannot be placed costs).
 */
function rollout(dist: ReadonlyArray<{ shape: SimShape; weight: number }>, k: number, depth: number, stop: boolean, base: Policy = firstFit): Policy {
  return (f, s, i) => {
    const ff = base(f, s, i);
    if (ff === undefined) return undefined;
    const futures: SimShape[][] = [];
    for (let j = 0; j < k; j++) {
      const draw = sampler(dist, 1000003 * (i + 1) + j);
      futures.push(Array.from({ length: depth }, draw));
    }
    const value = (a: SimAction): number => {
      let sum = 0;
      for (const fut of futures) {
        const g = f.clone();
        apply(g, s, a);
        const before = g.allocated;
        for (const c of fut) {
          const b = base(g, c, i);
          if (b === undefined) {
            if (stop) break;
            continue;
          }
          apply(g, c, b);
        }
        sum += g.allocated - before;
      }
      return sum / k;
    };
    let best = ff;
    let bestValue = value(ff);
    for (const a of actions(f, s)) {
      const v = value(a);
      if (v > bestValue + 1e-9) [best, bestValue] = [a, v];
    }
    return best;
  };
}

/**
 * Reservation: a claim that would open a free GPU on a node with `keep` or more free GPUs goes
 * elsewhere when another node can take it without doing so (first-fit order otherwise): the nodes
 * that can still take a ×keep claim are kept for one.
 */
function reserve(keep: number): Policy {
  return (f, s) => {
    const all = actions(f, s);
    if (all.length === 0) return undefined;
    const ff = firstFit(f, s)!;
    const breaks = (a: SimAction): boolean => {
      const free = freeGpus(f, a.node);
      const opens = a.gpus.filter((g) => f.free(g)).length;
      return free >= keep && free - opens < keep;
    };
    if (!breaks(ff)) return ff;
    const order = f.packOrder();
    const ok = all.filter((a) => !breaks(a)).sort((a, b) => order.indexOf(a.node) - order.indexOf(b.node) || a.gpus[0]! - b.gpus[0]! || a.start - b.start);
    return ok[0] ?? ff;
  };
}

/**
 * Best fit inside the GPU: a MIG claim goes, on first-fit's node, to the GPU and placement that
 * leaves the most of the workload's MIG shapes placeable on that GPU (weighted), fullest GPU first.
 */
function migValue(dist: ReadonlyArray<{ shape: SimShape; weight: number }>): Policy {
  return (f, s) => {
    const ff = firstFit(f, s);
    if (ff === undefined || s.kind !== 'mig') return ff;
    const n = ff.node;
    const placeable = (gpu: number): number => {
      let v = 0;
      for (const d of dist) if (d.shape.kind === 'mig' && d.shape.profile!.starts.some((st) => f.fitsMig(gpu, d.shape.profile!, st))) v += d.weight;
      return v;
    };
    let best = ff;
    let bestKey = [Infinity, Infinity];
    for (let i = 0; i < GPUS_PER_NODE; i++) {
      const gpu = n * GPUS_PER_NODE + i;
      for (const st of s.profile!.starts) {
        if (!f.fitsMig(gpu, s.profile!, st)) continue;
        const fresh = f.free(gpu) ? 1 : 0;
        f.placeMig(gpu, s.profile!, st);
        const lost = -placeable(gpu);
        f.placeMig(gpu, s.profile!, st, -1);
        const key = [fresh, lost];
        if (key[0]! < bestKey[0]! || (key[0] === bestKey[0] && key[1]! < bestKey[1]!)) [best, bestKey] = [{ node: n, gpus: [gpu], start: st }, key];
      }
    }
    return best;
  };
}

/**
 * A GPU's value under the workload, h steps ahead: each step a shape is drawn from the MIG part of
 * the workload (a whole-GPU shape takes an empty GPU); the GPU takes it where that is worth more
 * than passing it on (to another GPU), at the placement worth most. V_0 = 0.
 */
/** What a shape is worth: its compute slices / 7, or (SHARE_MASS) the engine's partition share (mean over the counters), or (SM_MASS) its multiprocessors / 132. */
const SHARE_MASS = process.env.SHARE_MASS === '1';
const SM_MASS = process.env.SM_MASS === '1';
function massOf(s: SimShape): number {
  if (SM_MASS && s.kind === 'mig') return s.profile!.sm / 132;
  if (!SHARE_MASS || s.kind !== 'mig') return s.kind === 'mig' ? s.mass : 1;
  const p = s.profile!;
  const ce = p.g === 7 ? 8 : p.g;
  return (p.sm / 132 + ce / 8 + p.g / 7 + p.g / 7 + (p.g === 7 ? 1 : 0) + p.size / 8 + p.size) / 14;
}

function gpuValue(dist: ReadonlyArray<{ shape: SimShape; weight: number }>, h: number): (f: SimFleet, gpu: number) => number {
  const total = dist.reduce((a, d) => a + d.weight, 0);
  const memo = new Map<string, number>();
  const one = new SimFleet(1);
  const v = (depth: number): number => {
    if (depth === 0) return 0;
    const key = `${depth}:${one.whole[0]}:${one.mask[0]}:${one.g[0]}:${one.sm[0]}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const pass = v(depth - 1);
    let sum = 0;
    for (const d of dist) {
      let best = pass;
      const s = d.shape;
      if (s.kind === 'mig') {
        for (const st of s.profile!.starts) {
          if (!one.fitsMig(0, s.profile!, st)) continue;
          one.placeMig(0, s.profile!, st);
          best = Math.max(best, massOf(s) + v(depth - 1));
          one.placeMig(0, s.profile!, st, -1);
        }
      } else if (one.free(0)) best = Math.max(best, 1);
      sum += (d.weight / total) * best;
    }
    memo.set(key, sum);
    return sum;
  };
  return (f, gpu) => {
    one.whole[0] = f.whole[gpu]!;
    one.mask[0] = f.mask[gpu]!;
    one.g[0] = f.g[gpu]!;
    one.sm[0] = f.sm[gpu]!;
    return v(h);
  };
}

/** MIG claims by gpuValue: the placement losing least value (placed mass + value after − value before), used GPUs first; whole GPUs as bestFit. */
export function dpValue(dist: ReadonlyArray<{ shape: SimShape; weight: number }>, h: number, freshFirst: boolean, wholeFirstFit = false, pair = ''): Policy {
  const value = gpuValue(dist, h);
  const weightOf = (p: string): number => dist.find((d) => d.shape.kind === 'mig' && d.shape.profile!.name === p)?.weight ?? 0;
  const placeable = (f: SimFleet, gpu: number, p: SimShape['profile']): boolean => p!.starts.some((st) => f.fitsMig(gpu, p!, st));
  /** Σ weight × GPUs a claim takes (compute slices / 7 for a profile), over the workload. */
  const taken = dist.reduce((a, d) => a + d.weight * d.shape.mass, 0);
  /** Whether placing s at `start` on carved GPU `gpu` closes its last placement of a shape the workload asks for more often than s. */
  const closes = (f: SimFleet, gpu: number, s: SimShape, start: number): boolean => {
    const own = weightOf(s.profile!.name);
    const more = dist.filter((d) => d.shape.kind === 'mig' && d.shape.profile!.name !== s.profile!.name && d.weight > own && placeable(f, gpu, d.shape.profile));
    if (more.length === 0) return false;
    const keep = /free(\d+)/.exec(pair);
    if (keep !== null && freeGpus(f, Math.floor(gpu / GPUS_PER_NODE)) < Number(keep[1])) return false;
    f.placeMig(gpu, s.profile!, start);
    let closed = false;
    for (const d of more) {
      if (placeable(f, gpu, d.shape.profile)) continue;
      if (pair.includes('exp')) {
        // Supply against demand: the carved GPUs elsewhere that still take d (the fleet's; `expn`: the node's) against d's claims
        // expected before the fleet is full (its free compute over the workload's mean size, times d's share; `expnn`: the node's free compute).
        const n0 = Math.floor(gpu / GPUS_PER_NODE);
        let holes = 0;
        let free = 0;
        for (let g = 0; g < f.whole.length; g++) {
          if (f.whole[g] === 1) continue;
          const here = Math.floor(g / GPUS_PER_NODE) === n0;
          if (!pair.includes('expnn') || here) free += (7 - f.g[g]!) / 7 + (g === gpu ? s.profile!.g / 7 : 0);
          if (g === gpu || f.free(g) || (pair.includes('expn') && !here)) continue;
          if (placeable(f, g, d.shape.profile)) holes++;
        }
        if (holes >= (free * d.weight) / taken) continue;
      }
      if (pair.includes('sup')) {
        const n = Math.floor(gpu / GPUS_PER_NODE);
        let carved = 0;
        for (let i = 0; i < GPUS_PER_NODE; i++) {
          const g = n * GPUS_PER_NODE + i;
          if (!f.free(g) && (pair.includes('any') || g !== gpu) && placeable(f, g, d.shape.profile)) carved++;
        }
        if (carved >= (pair.includes('sup1') ? 1 : pair.includes('sup2') ? 2 : d.weight / own)) continue;
      }
      if (pair === 'room' && 7 - f.g[gpu]! < d.shape.profile!.g) continue;
      if (pair.includes('big') && d.shape.profile!.g <= s.profile!.g) continue;
      if (pair === 'bigmem' && d.shape.profile!.size <= s.profile!.size) continue;
      closed = true;
    }
    f.placeMig(gpu, s.profile!, start, -1);
    return closed;
  };
  const fallback = wholeFirstFit ? firstFit : bestFit(dist);
  return (f, s, i) => {
    if (s.kind !== 'mig') return fallback(f, s, i);
    const all = actions(f, s);
    if (all.length === 0) return undefined;
    let best: SimAction | undefined;
    let bestKey: number[] = [];
    for (const a of all) {
      const gpu = a.gpus[0]!;
      const fresh = f.free(gpu) ? 1 : 0;
      const before = value(f, gpu);
      f.placeMig(gpu, s.profile!, a.start);
      const after = value(f, gpu);
      f.placeMig(gpu, s.profile!, a.start, -1);
      const loss = before - after - massOf(s);
      // Pairing: closing a likelier partner's hole costs 2 (a fresh GPU wins), or 1 with `tie` (the look-ahead decides).
      const gate = pair !== '' && fresh === 0 && closes(f, gpu, s, a.start) ? (pair.includes('tie') ? 1 : 2) : fresh;
      const key = freshFirst ? [gate, loss, fresh, freeGpus(f, a.node)] : [loss, fresh, freeGpus(f, a.node)];
      let better = best === undefined;
      for (let k = 0; k < key.length && !better; k++) {
        if (Math.abs(key[k]! - bestKey[k]!) < 1e-12) continue;
        better = key[k]! < bestKey[k]!;
        break;
      }
      if (better) [best, bestKey] = [a, key];
    }
    return best;
  };
}

function parse(idea: string, dist: ReadonlyArray<{ shape: SimShape; weight: number }>): Policy {
  const [name, a, b, c] = idea.split(':');
  if (name === 'ff') return firstFit;
  if (name === 'rollout') return rollout(dist, Number(a ?? 8), Number(b ?? 20), c === 'stop');
  if (name === 'rollbf') return rollout(dist, Number(a ?? 8), Number(b ?? 20), c === 'stop', bestFit(dist));
  if (name === 'reserve') return reserve(Number(a ?? 4));
  if (name === 'migvalue') return migValue(dist);
  if (name === 'dp') return dpValue(dist, Number(a ?? 2), b !== 'loss', c === 'ff');
  if (name === 'pair') return dpValue(dist, Number(a ?? 6), true, false, b ?? 'plain');
  if (name === 'bestfit') return bestFit(dist, a === 'value');
  throw new Error(`unknown idea ${idea}`);
}

if (isMain(import.meta.url)) {
  const [from, to] = (argValue('seeds') ?? '1-5').split('-').map(Number);
  const seeds = Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  const ideas = (argValue('ideas') ?? 'ff,reserve:4,migvalue,rollout:8:20').split(',');
  const fleet = buildFleet('h100-dynamic-mig');
  const mix = shapeMix(fleet);
  const openb = openbShapes(openbRoot(import.meta.url));
  const openbCounts = new Map<string, number>();
  for (const s of openb) openbCounts.set(s, (openbCounts.get(s) ?? 0) + 1);
  const streams = [
    { kind: 'mix', of: (seed: number) => seededStream(fleet, mix, seed), dist: mix.map((m) => ({ shape: simShape(m.shape), weight: m.weight })) },
    { kind: 'openb', of: (seed: number) => openbStream(fleet, openb, seed), dist: [...openbCounts].map(([s, w]) => ({ shape: simShape(s), weight: w })) },
  ];
  for (const st of streams) {
    for (const idea of ideas) {
      const t0 = performance.now();
      const un = seeds.map(
        (seed) =>
          1 -
          replay(
            st.of(seed).map((c) => simShape(c.shape)),
            parse(idea, st.dist),
          ) /
            GPUS,
      );
      const mean = un.reduce((a, x) => a + x, 0) / un.length;
      process.stdout.write(
        `${st.kind} ${idea}: ${(mean * 100).toFixed(2)} % (${un.length <= 5 ? un.map((x) => (x * 100).toFixed(2)).join(' / ') : `seeds ${from}–${to}`}) ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
  }
}
