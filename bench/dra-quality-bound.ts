// How far any placement could go on the MIG-heavy `h100-dynamic-mig` streams of the placement-quality
// benchmark (bench/dra-quality.bench.ts), per seed, on the abstract fleet of bench/dra-mig-sim.ts:
// - first-fit replayed (checked against the benchmark's first-fit rows: the same GPUs allocated);
// - the must-place bound (an upper bound on what any policy, online or clairvoyant, allocates when it
//   must place every claim some node can take, as the protocol's scheduler does) from an integer
//   program solved with HiGHS, maximized over τ, the first arrival that finds no wholly free GPU;
// - a clairvoyant pilot search (a placement sequence that exists: each claim's placement chosen by
//   replaying the rest of the stream first-fit after each choice), a lower bound on the offline best.
//   npx tsc -p tsconfig.json && node dist/bench/dra-quality-bound.js [--seeds=5] [--out=FILE]
import { buildFleet, type Fleet, openbShapes, openbStream, type StreamClaim, seededStream, shapeMix } from './dra-fleets/index.js';
import { actions, apply, bestFit, firstFit, GPUS_PER_NODE, H100_PROFILES, type Policy, ROOTS_PER_NODE, replay, type SimAction, SimFleet, type SimShape, simShape } from './dra-mig-sim.js';
import { checkPlan, keepNodePairPlan, realizePlan, replayPlanInEngine } from './dra-quality-exact.js';
import { loadSolver, type Solver } from './fleet-bound-lp.js';
import { openbRoot } from './openb-root.js';
import { argValue, isMain, machineInfo, resultsPath, writeResults } from './store.bench.js';

const NODES = 8;
const GPUS = NODES * GPUS_PER_NODE;

/** Every MIG configuration of one GPU, as counts per profile (distinct multisets only). */
export function gpuConfigurations(): number[][] {
  const profiles = Object.values(H100_PROFILES);
  const seen = new Set<string>();
  const out: number[][] = [];
  const f = new SimFleet(1);
  const counts = profiles.map(() => 0);
  const walk = (from: number) => {
    const key = counts.join(',');
    if (!seen.has(key) && counts.some((c) => c > 0)) {
      seen.add(key);
      out.push([...counts]);
    }
    // Placements in a fixed order, each at or after the last (multisets once).
    let k = 0;
    profiles.forEach((p, pi) => {
      for (const start of p.starts) {
        if (k++ < from) continue;
        if (!f.fitsMig(0, p, start)) continue;
        f.placeMig(0, p, start);
        counts[pi]!++;
        walk(k);
        counts[pi]!--;
        f.placeMig(0, p, start, -1);
      }
    });
  };
  walk(0);
  return out;
}

/** Node patterns of whole-GPU claims: counts of ×8, ×4, ×2, ×1, pairs, and GPUs left for MIG. */
function nodePatterns(): number[][] {
  const out: number[][] = [];
  for (let n8 = 0; n8 <= 1; n8++)
    for (let n4 = 0; n4 <= 2; n4++)
      for (let n2 = 0; n2 <= 4; n2++)
        for (let n1 = 0; n1 <= 8; n1++)
          for (let np = 0; np <= ROOTS_PER_NODE; np++) {
            const used = 8 * n8 + 4 * n4 + 2 * n2 + n1 + np;
            if (used > GPUS_PER_NODE) continue;
            for (let m = 0; m <= GPUS_PER_NODE - used; m++) out.push([n8, n4, n2, n1, np, m]);
          }
  return out;
}

/** Whole-GPU shapes and their sizes (a pair takes one GPU and its root's NIC). */
const WHOLE = ['gpu:8', 'gpu:4', 'gpu:2', 'gpu:1', 'pair'] as const;
const WHOLE_SIZE = [8, 4, 2, 1, 1];
const PROFILE_NAMES = Object.keys(H100_PROFILES);
/** The profile that takes a whole GPU (all its memory slices). */
const WHOLE_PROFILE = '7g.80gb';

const sizeOf = (shape: string): number => (shape.startsWith('gpu:') ? Number(shape.slice(4)) : shape === 'pair' ? 1 : 0);

/**
 * Whether pair i fits some node whatever was placed before: the claims before it hold at most T
 * GPUs (a MIG claim one, a ×k claim k), so at least 64 − T are wholly free, under at least
 * ⌈(64 − T) / 2⌉ roots, and only earlier pairs took NICs.
 */
function pairSurelyFits(shapes: readonly string[], i: number): boolean {
  let held = 0;
  let pairs = 0;
  for (let j = 0; j < i; j++) {
    const s = shapes[j]!;
    held += Math.max(1, sizeOf(s));
    if (s === 'pair') pairs++;
  }
  return Math.ceil(Math.max(0, GPUS - held) / 2) > pairs;
}

/** Bounds on what a final allocation holds, for one integer program. */
interface Limits {
  /** Per MIG profile: at least, at most placed. */
  migLo: number[];
  migHi: number[];
  /** Per whole shape (WHOLE order): at least, at most placed. */
  wholeLo: number[];
  wholeHi: number[];
  /** Every GPU in use (τ within the stream). */
  allUsed: boolean;
  /** GPUs with MIG placements, at most (each touched by a MIG claim before τ). */
  migGpus: number;
}

/** An optimum of one integer program: GPUs allocated, the MIG GPUs (counts per profile each) and the node patterns. */
export interface Packing {
  gpus: number;
  migGpus: number[][];
  nodes: number[][];
}

/** The integer program's optimum for `limits`, or gpus −1 when infeasible. */
function solveLimits(solver: Solver, limits: Limits): Packing {
  const configs = CONFIGS;
  const patterns = PATTERNS;
  const gOf = PROFILE_NAMES.map((p) => H100_PROFILES[p]!.g);
  const wholeOf = (p: number[]) => p.slice(0, 5).reduce((a, k, i) => a + k * WHOLE_SIZE[i]!, 0);
  const obj = [...configs.map((c, j) => `${c.reduce((a, k, i) => a + k * gOf[i]!, 0)} z${j}`), ...patterns.flatMap((p, t) => (wholeOf(p) > 0 ? [`${7 * wholeOf(p)} y${t}`] : []))];
  const lines = ['Maximize', ` obj: ${obj.join(' + ')}`, 'Subject To'];
  lines.push(` nodes: ${patterns.map((_, t) => `y${t}`).join(' + ')} <= ${NODES}`);
  lines.push(` migGpus: ${configs.map((_, j) => `z${j}`).join(' + ')} - ${patterns.map((p, t) => `${p[5]} y${t}`).join(' - ')} <= 0`);
  lines.push(` migTouched: ${configs.map((_, j) => `z${j}`).join(' + ')} <= ${limits.migGpus}`);
  if (limits.allUsed) lines.push(` allUsed: ${[...configs.map((_, j) => `z${j}`), ...patterns.flatMap((p, t) => (wholeOf(p) > 0 ? [`${wholeOf(p)} y${t}`] : []))].join(' + ')} = ${GPUS}`);
  PROFILE_NAMES.forEach((_, i) => {
    const terms = configs.flatMap((c, j) => (c[i]! > 0 ? [`${c[i]} z${j}`] : [])).join(' + ');
    lines.push(` mig${i}hi: ${terms} <= ${limits.migHi[i]}`);
    if (limits.migLo[i]! > 0) lines.push(` mig${i}lo: ${terms} >= ${limits.migLo[i]}`);
  });
  WHOLE.forEach((_, i) => {
    const terms = patterns.flatMap((p, t) => (p[i]! > 0 ? [`${p[i]} y${t}`] : [])).join(' + ');
    lines.push(` w${i}hi: ${terms} <= ${limits.wholeHi[i]}`);
    if (limits.wholeLo[i]! > 0) lines.push(` w${i}lo: ${terms} >= ${limits.wholeLo[i]}`);
  });
  lines.push('General', ` ${[...configs.map((_, j) => `z${j}`), ...patterns.map((_, t) => `y${t}`)].join(' ')}`, 'End');
  const solution = solver.solve(lines.join('\n'));
  if (solution.Status === 'Infeasible') return { gpus: -1, migGpus: [], nodes: [] };
  if (solution.Status !== 'Optimal') throw new Error(`HiGHS: ${solution.Status}`);
  const copies = (name: string) => Math.round((solution.Columns[name] as { Primal?: number } | undefined)?.Primal ?? 0);
  return {
    gpus: solution.ObjectiveValue / 7,
    migGpus: configs.flatMap((c, j) => Array.from({ length: copies(`z${j}`) }, () => c)),
    nodes: patterns.flatMap((p, t) => Array.from({ length: copies(`y${t}`) }, () => p)),
  };
}

const CONFIGS = gpuConfigurations();
const PATTERNS = nodePatterns();

/**
 * The must-place bound for one stream (shapes as the stream names them): the most GPUs any policy
 * allocates when every claim some node can take is placed. Free GPUs only decrease, per node too:
 * - τ, the first arrival that finds no wholly free GPU (or none): every MIG and ×1 claim before τ
 *   finds one and is placed; from τ on whole-GPU claims fail; at τ every GPU is in use, each MIG
 *   GPU by a MIG claim before τ; MIG claims from τ on may be placed or not.
 * - λ_k (k = 2, 4, 8), the last placed claim of k or more whole GPUs: at its arrival some node had
 *   that many free, so every earlier claim of at most as many GPUs fitted that node and was placed;
 *   none of k or more after it was. The ×2, ×4, ×8 claims placed are exactly those up to λ_2, λ_4, λ_8.
 * - a pair is placed where it surely fits (pairSurelyFits), else may be.
 * For each λ the final allocation is at most the optimum of an integer program (node patterns of
 * whole-GPU claims, at most one pair per root; MIG configurations of single GPUs: every multiset of
 * placements the memory slices, compute slices and multiprocessors allow; counts per shape between
 * what is forced and what arrived), maximized over τ by branch and bound over ranges of τ (a range
 * [a, b] relaxes to the MIG claims before a forced, those before b touching GPUs, ×1 claims before b
 * allowed): a range no better than the best found is dropped.
 */
export function mustPlaceBound(solver: Solver, shapes: readonly string[]): { gpus: number; tau: number; solves: number; packing: Packing } {
  const L = shapes.length;
  const idx = (min: number) => [-1, ...shapes.flatMap((s, i) => (sizeOf(s) >= min && s !== 'pair' ? [i] : []))];
  let best = { gpus: -1, tau: -1, solves: 0, packing: { gpus: -1, migGpus: [] as number[][], nodes: [] as number[][] } };
  const prefix = (kind: (s: string) => boolean, upTo: number) => shapes.slice(0, Math.max(0, upTo)).filter(kind).length;
  const limitsFor = (l2: number, l4: number, l8: number, a: number, b: number): Limits => {
    const migLo = PROFILE_NAMES.map((p) => prefix((s) => s === `mig:${p}`, a));
    // A 7g.80gb needs a wholly free GPU: like a ×1, none is placed from τ on.
    const migHi = PROFILE_NAMES.map((p) => prefix((s) => s === `mig:${p}`, p === WHOLE_PROFILE ? b : L));
    const count = (shape: string, upTo: number) => prefix((s) => s === shape, upTo + 1);
    // Exact counts of ×8, ×4, ×2 from λ; ×1: forced before λ_2 and before a, allowed before b; pairs: forced where sure, allowed before b.
    const x8 = l8 < 0 ? 0 : count('gpu:8', l8);
    const x4 = l4 < 0 ? 0 : count('gpu:4', l4);
    const x2 = l2 < 0 ? 0 : count('gpu:2', l2);
    const x1lo = prefix((s) => s === 'gpu:1', Math.max(a, l2));
    const x1hi = prefix((s) => s === 'gpu:1', b);
    let pairLo = 0;
    for (let i = 0; i < Math.min(b, L); i++) if (shapes[i] === 'pair' && pairSurelyFits(shapes, i)) pairLo++;
    const pairHi = prefix((s) => s === 'pair', b);
    return {
      migLo,
      migHi,
      wholeLo: [x8, x4, x2, x1lo, Math.min(pairLo, pairHi)],
      wholeHi: [x8, x4, x2, x1hi, pairHi],
      allUsed: b < L,
      migGpus: prefix((s) => s.startsWith('mig:'), b),
    };
  };
  for (const l8 of idx(8))
    for (const l4 of idx(4)) {
      // λ_4 at a ×8 claim is λ_8; λ_2 at a claim of 4 or more is λ_4.
      if (l4 < l8 || (l4 >= 0 && sizeOf(shapes[l4]!) >= 8 && l4 !== l8)) continue;
      for (const l2 of idx(2)) {
        if (l2 < l4 || (l2 >= 0 && sizeOf(shapes[l2]!) >= 4 && l2 !== l4)) continue;
        // τ after λ_2 (whole-GPU claims fail from τ on).
        const ranges: Array<[number, number]> = [[l2 + 1, L]];
        while (ranges.length > 0) {
          const [a, b] = ranges.pop()!;
          const packing = solveLimits(solver, limitsFor(l2, l4, l8, a, b));
          const v = packing.gpus;
          best.solves++;
          if (v <= best.gpus + 1e-9) continue;
          if (a === b) {
            best = { gpus: v, tau: a, solves: best.solves, packing };
            continue;
          }
          const m = (a + b) >> 1;
          ranges.push([a, m], [m + 1, b]);
        }
      }
    }
  return best;
}

/**
 * A clairvoyant pilot search: at each arrival, every distinct placement is tried and the rest of
 * the stream replayed first-fit after it; the placement whose replay allocates most is kept (ties:
 * first-fit's own choice first, then the order of `actions`). What it allocates is reached by an
 * actual placement sequence: a lower bound on the clairvoyant best.
 */
export function pilot(stream: readonly SimShape[], bases: readonly Policy[]): number {
  const fleet = new SimFleet(NODES);
  const value = (f: SimFleet, from: number) => Math.max(...bases.map((b) => replay(stream, b, f.clone(), from)));
  for (let i = 0; i < stream.length; i++) {
    const s = stream[i]!;
    const first = bases[0]!(fleet, s, i);
    if (first === undefined) continue;
    let best = first;
    let bestValue = value(cloneWith(fleet, s, first), i + 1);
    for (const a of actions(fleet, s)) {
      const v = value(cloneWith(fleet, s, a), i + 1);
      if (v > bestValue + 1e-9) [best, bestValue] = [a, v];
    }
    apply(fleet, s, best);
  }
  return fleet.allocated;
}

function cloneWith(f: SimFleet, s: SimShape, a: SimAction): SimFleet {
  const g = f.clone();
  apply(g, s, a);
  return g;
}

export interface BoundRow {
  stream: 'mix' | 'openb';
  seed: number;
  claims: number;
  /** Unallocated shares (of the fleet's GPUs). */
  firstFit: number;
  fluid: number;
  pilot: number;
  /** The pilot over best fit and first-fit replays (the better of the two after each choice). */
  pilotBestFit: number;
  /** Best fit (bench/dra-mig-sim.ts), online, told the stream's shape counts. */
  bestFit: number;
  mustPlaceBound: number;
  tau: number;
  solves: number;
  /** The best plan built (the bound's packing realized, or keepNodePairPlan), valid on the copy; its source. */
  planned: number;
  plan: 'packing' | 'keep-node' | 'none';
  /** What the engine allocates replaying that plan (unallocated share), or null when it refuses a step. */
  engine: number | null;
  /** The exact optimum when the plan reaches the bound (and the engine agrees), else null. */
  optimum: number | null;
  /** The arrivals the plan leaves out, and the plan: per arrival `node/gpu,…@start` or null. */
  leftOut: number[];
  steps: Array<string | null>;
}

/**
 * The better of two plans, valid on the copy (checkPlan): the bound's packing realized
 * (realizePlan) and keepNodePairPlan; replayed through the engine (replayPlanInEngine).
 */
function bestPlan(fleet: Fleet, claims: readonly StreamClaim[], packing: Packing): Pick<BoundRow, 'planned' | 'plan' | 'engine' | 'optimum' | 'leftOut' | 'steps'> {
  const names = claims.map((c) => c.shape);
  const shapes = names.map(simShape);
  const tried = [
    { plan: 'packing' as const, steps: realizePlan(names, packing) },
    { plan: 'keep-node' as const, steps: keepNodePairPlan(shapes) },
  ].flatMap((t) => {
    const check = checkPlan(shapes, t.steps);
    return check.error === null ? [{ ...t, allocated: check.allocated }] : [];
  });
  const best = tried.reduce<(typeof tried)[number] | undefined>((b, t) => (b === undefined || t.allocated > b.allocated + 1e-9 ? t : b), undefined);
  if (best === undefined) return { planned: 1, plan: 'none', engine: null, optimum: null, leftOut: [], steps: [] };
  const engine = replayPlanInEngine(fleet, claims, best.steps);
  return {
    planned: 1 - best.allocated / GPUS,
    plan: best.plan,
    engine: engine.error === null ? 1 - engine.allocated / GPUS : null,
    optimum: null,
    leftOut: best.steps.flatMap((a, i) => (a === null ? [i] : [])),
    steps: best.steps.map((a) => (a === null ? null : `${a.node}/${a.gpus.map((g) => g % GPUS_PER_NODE).join(',')}@${a.start}`)),
  };
}

/** The fluid reference: every claim placed while its GPUs fit the free total. */
function fluid(stream: readonly SimShape[]): number {
  let a = 0;
  for (const s of stream) if (a + s.mass <= GPUS + 1e-9) a += s.mass;
  return a;
}

export async function runBound(options: { seeds?: number; out?: string | null } = {}): Promise<BoundRow[]> {
  const solver = await loadSolver();
  const fleet = buildFleet('h100-dynamic-mig');
  const mix = shapeMix(fleet);
  const openb = openbShapes(openbRoot(import.meta.url));
  const rows: BoundRow[] = [];
  const seeds = Array.from({ length: options.seeds ?? 5 }, (_, i) => i + 1);
  for (const stream of ['mix', 'openb'] as const) {
    for (const seed of seeds) {
      const claims = stream === 'mix' ? seededStream(fleet, mix, seed) : openbStream(fleet, openb, seed);
      const names = claims.map((c) => c.shape);
      const shapes = names.map(simShape);
      const counts = new Map<string, number>();
      for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
      const weights = [...counts].map(([n, w]) => ({ shape: simShape(n), weight: w }));
      const bound = mustPlaceBound(solver, names);
      const row: BoundRow = {
        stream,
        seed,
        claims: shapes.length,
        firstFit: 1 - replay(shapes, firstFit) / GPUS,
        fluid: 1 - fluid(shapes) / GPUS,
        pilot: 1 - pilot(shapes, [firstFit]) / GPUS,
        pilotBestFit: 1 - pilot(shapes, [bestFit(weights), firstFit]) / GPUS,
        bestFit: 1 - replay(shapes, bestFit(weights)) / GPUS,
        mustPlaceBound: 1 - bound.gpus / GPUS,
        tau: bound.tau,
        solves: bound.solves,
        ...bestPlan(fleet, claims, bound.packing),
      };
      row.optimum = row.engine !== null && Math.abs(row.engine - row.mustPlaceBound) < 1e-9 ? row.mustPlaceBound : null;
      rows.push(row);
      process.stdout.write(
        `${stream} seed ${seed}: ${row.claims} claims; unallocated first-fit ${pct(row.firstFit)}, best fit ${pct(row.bestFit)}, pilot ${pct(row.pilot)}, pilot over best fit ${pct(row.pilotBestFit)}, must-place bound ${pct(row.mustPlaceBound)} (τ ${row.tau}, ${row.solves} solves), fluid ${pct(row.fluid)}; plan (${row.plan}) ${pct(row.planned)}, engine ${row.engine === null ? 'refused' : pct(row.engine)}${row.optimum !== null ? ', the exact optimum' : ''}, left out ${row.leftOut.join(' ')}\n`,
      );
    }
  }
  for (const stream of ['mix', 'openb'] as const) {
    const r = rows.filter((x) => x.stream === stream);
    const m = (k: keyof BoundRow) => r.reduce((a, x) => a + (x[k] as number), 0) / r.length;
    process.stdout.write(
      `${stream} mean: first-fit ${pct(m('firstFit'))}, best fit ${pct(m('bestFit'))}, pilot ${pct(m('pilot'))} (${(m('pilot') / m('firstFit')).toFixed(2)}×), pilot over best fit ${pct(m('pilotBestFit'))} (${(m('pilotBestFit') / m('firstFit')).toFixed(2)}×), must-place bound ${pct(m('mustPlaceBound'))} (${(m('mustPlaceBound') / m('firstFit')).toFixed(2)}×), plans ${pct(m('planned'))} (${(m('planned') / m('firstFit')).toFixed(2)}×), fluid ${pct(m('fluid'))}\n`,
    );
  }
  const staticFleet = buildFleet('a100-static-mig');
  const staticMix = shapeMix(staticFleet);
  const staticRows = seeds.map((seed) => {
    const names = seededStream(staticFleet, staticMix, seed).map((c) => c.shape);
    const best = staticMigBest(names);
    const row = { seed, claims: names.length, best: 1 - best.gpus / GPUS, migUnallocated: 32 - best.mig, wholeUnallocated: 32 - best.whole };
    process.stdout.write(
      `a100-static-mig seed ${seed}: ${names.length} claims; the best placement leaves ${pct(row.best)} unallocated (${row.migUnallocated.toFixed(2)} of the 32 MIG GPUs, ${row.wholeUnallocated} of the 32 whole ones)\n`,
    );
    return row;
  });
  process.stdout.write(`a100-static-mig mean: the best placement leaves ${pct(staticRows.reduce((a, r) => a + r.best, 0) / staticRows.length)} unallocated\n`);
  if (options.out !== null) writeResults(options.out ?? resultsPath('dra-quality-bound.json'), { schema: 1, date: new Date().toISOString(), machine: machineInfo(), rows, staticMig: staticRows });
  return rows;
}

const pct = (x: number): string => `${(x * 100).toFixed(2)} %`;

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const seeds = argValue('seeds', args);
  await runBound({ out: argValue('out', args), ...(seeds !== undefined ? { seeds: Number(seeds) } : {}) });
}

/**
 * `a100-static-mig`, exactly: the most GPUs any placement allocates (must-place, clairvoyant). MIG
 * claims select a profile and every device of a profile is alike, so they place min(arrived,
 * devices) per profile whatever the choice; whole-GPU claims take GPUs 4–7 of a node (two PCIe
 * roots of two GPUs, one NIC each; a pair takes a GPU and its root's NIC). A dynamic program over
 * the whole-GPU claims in arrival order, over fleet states up to node and root order, tries every
 * placement of each claim (every split of a ×k claim between a node's roots), skipping a claim only
 * when none exists.
 */
export function staticMigBest(shapes: readonly string[]): { gpus: number; whole: number; mig: number } {
  const devices: Record<string, number> = { 'mig:1g.10gb': 64, 'mig:2g.20gb': 32, 'mig:3g.40gb': 32 };
  const g: Record<string, number> = { 'mig:1g.10gb': 1, 'mig:2g.20gb': 2, 'mig:3g.40gb': 3 };
  let mig = 0;
  for (const [p, n] of Object.entries(devices)) mig += (Math.min(n, shapes.filter((s) => s === p).length) * g[p]!) / 7;
  const whole = shapes.filter((s) => s === 'pair' || s.startsWith('gpu:'));
  // A root: free GPUs × 2 + NIC free; a node: its two roots sorted; the fleet: its nodes sorted.
  type Fleet = number[][];
  const key = (f: Fleet) => f.map((n) => `${n[0]}${n[1]}`).join(',');
  const norm = (f: Fleet): Fleet => f.map((n) => [...n].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  const memo = new Map<string, number>();
  const best = (i: number, f: Fleet): number => {
    if (i === whole.length) return 0;
    const k = `${i}|${key(f)}`;
    const known = memo.get(k);
    if (known !== undefined) return known;
    const s = whole[i]!;
    const size = s === 'pair' ? 1 : Number(s.slice(4));
    let value = -1;
    const seen = new Set<string>();
    f.forEach((node, n) => {
      const free = (r: number) => node[r]! >> 1;
      const nic = (r: number) => node[r]! & 1;
      const options: number[][] = [];
      if (s === 'pair') {
        for (let r = 0; r < 2; r++) if (free(r) > 0 && nic(r) === 1) options.push(r === 0 ? [node[0]! - 3, node[1]!] : [node[0]!, node[1]! - 3]);
      } else {
        for (let a = 0; a <= Math.min(size, free(0)); a++) if (size - a <= free(1)) options.push([node[0]! - 2 * a, node[1]! - 2 * (size - a)]);
      }
      for (const o of options) {
        const next = norm(f.map((m, j) => (j === n ? o : m)));
        const kk = key(next);
        if (seen.has(kk)) continue;
        seen.add(kk);
        value = Math.max(value, size + best(i + 1, next));
      }
    });
    if (value < 0) value = best(i + 1, f);
    memo.set(k, value);
    return value;
  };
  const empty = norm(Array.from({ length: NODES }, () => [5, 5]));
  const w = best(0, empty);
  return { gpus: mig + w, whole: w, mig };
}
