// Fractional multi-resource placement: the hot loop of the fleet simulator (the TypeScript twin is
// src/baseline/fleet.ts, the layout src/fleet/layout.ts). A fleet's state lives in one block of the
// core's heap (fleetAlloc): an i32 region `s` and an f64 region `f`. fleetPick finds the node with
// the highest score for a pod, the smallest rank on a tie, among those that fit: through the pod
// index (per-class tournament trees over the cached scores, src/fleet/layout.ts) where the fleet has
// one and the pod's shape has a class, else by the scan (filter every node, score the feasible ones
// from the per-(class, node) score cache where it is not stale). The state lives in ClusterState:
// after a change to a node, its pod scheduler writes the node's resources and fleetRefresh
// recomputes only that node's totals and fragmentation and marks its scores stale.
import { H_NODES, H_MAXG, H_STRIDE, H_CLASSES, H_NODE_AT, H_OUT_AT, H_CACHE_AT, H_F_CACHE, H_INDEX, H_TREES, H_TREE_AT, H_STALE_AT, H_CLASS_AT, H_F_FRAG, H_FRAG_SINCE, H_F_VALUE, H_LAMBDAS, H_IDLE8, H_RESERVE, TREE_FIELDS, STALE, N_CPU, N_MEM, N_MODEL, N_GPUS, N_RANK, N_FREE, N_FULL, N_MAXFREE, N_TAGS, P_RANDOM, POLICY_COUNT, si, ss, fi, fs } from './fleet-layout';
import { chosenGpu, nodeFrag, nodeValue, scoreNode, fits } from './fleet-score';
import { buildAggregates, pickIndexed } from './fleet-index';
import { lookChoose, lookOffer, lookStart, rolloutGpu } from './fleet-rollout';

/** A zero-filled block of `ints` i32 then `floats` f64 (8-aligned); 0 base of the f64 region at fleetFloats(). */
export function fleetAlloc(ints: i32, floats: i32): usize {
  if (ints < 0 || floats < 0) unreachable();
  const intBytes = ((<usize>ints << 2) + 15) & ~(<usize>15);
  const bytes = intBytes + (<usize>floats << 3);
  const p = heap.alloc(bytes);
  memory.fill(p, 0, bytes);
  return p;
}

/** The f64 region of a block of `ints` i32. */
export function fleetFloats(block: usize, ints: i32): usize {
  return block + (((<usize>ints << 2) + 15) & ~(<usize>15));
}

/** Node n's totals and fragmentation; its scores marked stale in every class, and listed in every built class (src/baseline/fleet.ts derive). */
function derive(s: usize, f: usize, n: i32): void {
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
  const gpus = si(s, base + N_GPUS);
  let free = 0;
  let full = 0;
  let most = 0;
  for (let i = 0; i < gpus; i++) {
    const g = si(s, gAt + i);
    free += g;
    if (g == 1000) full++;
    if (g > most) most = g;
  }
  const idle8 = si(s, H_IDLE8);
  const now8 = idle8 + (gpus == 8 && full == 8 ? 1 : 0) - (gpus == 8 && si(s, base + N_FULL) == 8 ? 1 : 0);
  ss(s, base + N_FREE, free);
  ss(s, base + N_FULL, full);
  ss(s, base + N_MAXFREE, most);
  ss(s, H_IDLE8, now8);
  const frag = nodeFrag(s, f, gAt, gpus, si(s, base + N_CPU), si(s, base + N_MODEL));
  const total = si(s, H_F_FRAG);
  fs(f, total, fi(f, total) + (frag - fi(f, n)));
  fs(f, n, frag);
  const since = si(s, H_FRAG_SINCE) + 1;
  ss(s, H_FRAG_SINCE, since);
  if (since >= si(s, H_NODES)) sumFragmentation(s, f);
  if (si(s, H_LAMBDAS) != 0) fs(f, si(s, H_F_VALUE) + n, nodeValue(s, f, base, si(s, base + N_CPU), si(s, base + N_MEM), -1, 0, 0));
  markStale(s, n);
  // fgd-node's reserve turned on or off: every node it holds (4 GPUs or more, all wholly free) scores anew.
  const reserve = si(s, H_RESERVE);
  if (reserve >= 0 && (idle8 <= reserve) != (now8 <= reserve)) {
    const stride = si(s, H_STRIDE);
    const nodes = si(s, H_NODES);
    for (let k = 0, b = si(s, H_NODE_AT); k < nodes; k++, b += stride) if (si(s, b + N_GPUS) >= 4 && si(s, b + N_FULL) == si(s, b + N_GPUS)) markStale(s, k);
  }
}

/** Marks node n's scores stale in every class, and lists it in every built class (src/baseline/fleet.ts markStale). */
function markStale(s: usize, n: i32): void {
  const classes = si(s, H_CLASSES);
  const nodes = si(s, H_NODES);
  const indexed = si(s, H_INDEX) != 0;
  let g = si(s, H_CACHE_AT) + n;
  for (let c = 0; c < classes; c++, g += nodes) {
    if (si(s, g) == STALE) continue;
    ss(s, g, STALE);
    if (!indexed) continue;
    const state = si(s, H_CLASS_AT) + 2 * c;
    if (si(s, state) != 0) {
      const count = si(s, state + 1);
      ss(s, si(s, H_STALE_AT) + c * nodes + count, n);
      ss(s, state + 1, count + 1);
    }
  }
}

/** Sums every node's fragmentation afresh, in node order. */
function sumFragmentation(s: usize, f: usize): void {
  const nodes = si(s, H_NODES);
  let sum: f64 = 0;
  for (let k = 0; k < nodes; k++) sum += fi(f, k);
  fs(f, si(s, H_F_FRAG), sum);
  ss(s, H_FRAG_SINCE, 0);
}

/** Derives every node's totals and fragmentation; empties the score cache; builds the index's aggregates. */
export function fleetInit(s: usize, f: usize): void {
  const nodes = si(s, H_NODES);
  const cAt = si(s, H_CACHE_AT);
  const classes = si(s, H_CLASSES);
  for (let k = 0; k < nodes * classes; k++) ss(s, cAt + k, STALE);
  const indexed = si(s, H_INDEX) != 0;
  if (indexed) {
    for (let k = 0; k < 2 * classes; k++) ss(s, si(s, H_CLASS_AT) + k, 0);
    for (let k = 0; k < si(s, H_TREES); k++) ss(s, si(s, H_TREE_AT) + k * TREE_FIELDS + 2, 0);
  }
  for (let n = 0; n < nodes; n++) derive(s, f, n);
  sumFragmentation(s, f);
  if (indexed) buildAggregates(s);
}

/** The chosen node for one pod, through the pod index or by the scan (src/fleet/kernels.ts fleetPick). */
export function fleetPick(s: usize, f: usize, policy: i32, cls: i32, tree: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32, u1: f64, u2: f64): i32 {
  if (<u32>policy >= <u32>POLICY_COUNT) unreachable();
  const nodes = si(s, H_NODES);
  const stride = si(s, H_STRIDE);
  const at = si(s, H_NODE_AT);
  const out = si(s, H_OUT_AT);
  const sharing = num == 1 && milli > 0 && milli < 1000;
  ss(s, out, 0);
  let pick = -1;
  let gpu = -1;
  if (policy == P_RANDOM) {
    let count = 0;
    for (let n = 0; n < nodes; n++) if (fits(s, at + n * stride, cpu, mem, num, milli, mask)) count++;
    if (count == 0) return -1;
    let k = <i32>Math.floor(u1 * <f64>count);
    for (let n = 0; n < nodes; n++) {
      if (!fits(s, at + n * stride, cpu, mem, num, milli, mask)) continue;
      if (k == 0) {
        pick = n;
        break;
      }
      k--;
    }
    if (sharing) {
      const base = at + pick * stride;
      const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
      const gpus = si(s, base + N_GPUS);
      let room = 0;
      for (let i = 0; i < gpus; i++) if (si(s, gAt + i) >= milli) room++;
      let r = <i32>Math.floor(u2 * <f64>room);
      for (let i = 0; i < gpus; i++) {
        if (si(s, gAt + i) < milli) continue;
        if (r == 0) {
          gpu = i;
          break;
        }
        r--;
      }
    }
  } else if (si(s, H_INDEX) != 0 && tree >= 0 && tree < si(s, H_TREES) && si(s, si(s, H_TREE_AT) + tree * TREE_FIELDS) == cls) {
    const look = lookStart(s, num, milli);
    pick = pickIndexed(s, f, policy, cls, tree, cpu, mem, num, milli, mask, look);
    if (pick < 0) return -1;
    gpu = si(s, si(s, H_CACHE_AT) + cls * nodes + pick);
    const chosen = look ? lookChoose(s, f, cpu, mem, num, milli) : -1;
    if (chosen >= 0) {
      pick = chosen;
      gpu = rolloutGpu;
    }
  } else {
    // The scan: every node filtered, scored from the cache where its score is not stale (a fleet with an index keeps no cache for the scan).
    const classes = si(s, H_CLASSES);
    const cached = cls >= 0 && cls < classes && si(s, H_INDEX) == 0;
    const cAt = si(s, H_CACHE_AT);
    const fAt = si(s, H_F_CACHE);
    let best: f64 = 0;
    let bestRank = 0;
    const look = lookStart(s, num, milli);
    for (let n = 0; n < nodes; n++) {
      const base = at + n * stride;
      if (!fits(s, base, cpu, mem, num, milli, mask)) continue;
      let score: f64;
      let g: i32;
      const slot = cls * nodes + n;
      if (cached && si(s, cAt + slot) != STALE) {
        score = fi(f, fAt + slot);
        g = si(s, cAt + slot);
      } else {
        score = scoreNode(s, f, policy, n, cpu, mem, num, milli);
        g = chosenGpu;
        if (cached) {
          fs(f, fAt + slot, score);
          ss(s, cAt + slot, g);
        }
      }
      const rank = si(s, base + N_RANK);
      if (look) lookOffer(s, f, n, score, rank, g);
      if (pick < 0 || score > best || (score == best && rank < bestRank)) {
        pick = n;
        best = score;
        bestRank = rank;
        gpu = g;
      }
    }
    if (pick < 0) return -1;
    // A policy with a lookahead: among close candidates, the one the pod damages least (assembly/fleet-rollout.ts).
    const chosen = look ? lookChoose(s, f, cpu, mem, num, milli) : -1;
    if (chosen >= 0) {
      pick = chosen;
      gpu = rolloutGpu;
    }
  }
  if (num > 0 && milli > 0) {
    if (sharing) {
      ss(s, out, 1);
      ss(s, out + 1, gpu);
    } else {
      const base = at + pick * stride;
      const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
      const gpus = si(s, base + N_GPUS);
      let taken = 0;
      for (let i = 0; i < gpus && taken < num; i++) {
        if (si(s, gAt + i) == 1000) {
          taken++;
          ss(s, out + taken, i);
        }
      }
      ss(s, out, taken);
    }
  }
  return pick;
}

/**
 * Recomputes node `node` after its CPU, memory, tag counts and per-GPU free milli were rewritten
 * (ClusterState's pod scheduler re-syncs a node after every commit or release on it): its totals,
 * fragmentation and score-cache row.
 */
export function fleetRefresh(s: usize, f: usize, node: i32): void {
  if (node < 0 || node >= si(s, H_NODES)) unreachable();
  derive(s, f, node);
}
