// Gangs on a DRA cluster: a group of pods placed all or nothing. Each pod's claims go on one node
// (the per-node allocator decides), at least `minCount` pods are placed, every pod sits in one
// domain of `topology.required` (a node label key) and the pods span as few domains as possible
// of each `topology.preferred` key, in order. The search backtracks across pods and nodes: nodes
// in the same state (same node class, same free devices, same preferred label values) are tried
// once per pod, and pods with identical claims are interchangeable: they are searched one after
// another, each on a node no earlier in node order than the one before it, and when one of them is
// left out so are the rest, so each choice up to symmetry is tried once. A counted check per
// required domain (free devices that could match each request against the pods' demand, in all and
// per node) refuses a domain without search; a step budget (allocator runs) bounds
// the search and the best placement found so far is returned, saying so. Nothing stays allocated
// during the search's retreat or on failure: the cluster's state is exactly as before.
import { fail, rejectUnknownKeys, requireArray, requireInteger, requireObject } from '../../shared/validate.js';
import { type DraExplanation, type Unschedulable, unschedulable } from '../allocator/index.js';
import { type AllocationResult, draError } from '../objects/index.js';

/** The most pods in one gang. */
export const MAX_GANG_PODS = 4096;
/** Allocator runs one scheduleGroup may make, unless `budget` says otherwise. */
export const DEFAULT_GANG_BUDGET = 10_000;

/** Node labels that constrain where a gang's pods go. */
export interface GangTopology {
  /** Every pod on nodes with the same value of this label (nodes without it take none). */
  required?: string;
  /** As few distinct values of each label as possible, the first key first (a node without it counts as one more value). */
  preferred?: string[];
}

/** What scheduleGroup takes. */
export interface GangRequest {
  /** Each pod's ResourceClaims (a List, an array or one object per pod). */
  pods: unknown[];
  /** Pods that must be placed; default all. */
  minCount?: number;
  topology?: GangTopology;
  /** Most allocator runs of the search (default DEFAULT_GANG_BUDGET). */
  budget?: number;
}

/** One placed pod: its index in `pods`, its node and one AllocationResult per claim. */
export interface GangPlacement {
  pod: number;
  node: string;
  results: AllocationResult[];
  /** Scored mode, a cluster made with `explain`: the pod's allocation's terms beside first-fit's on its node. */
  explain?: DraExplanation;
}

/** A gang's outcome: every placed pod (in pod order), or none with the reason. */
export type GangResult = { placements: GangPlacement[]; reason?: undefined; budgetExhausted?: boolean } | { placements: []; reason: Unschedulable; budgetExhausted?: boolean };

/** A pod's claims as the cluster read them, with what the counted check needs. */
export interface GangPod {
  /** The claims' `namespace/name` labels. */
  labels: string[];
  /** Devices the pod needs at least, per count key (requests without alternatives, not all-mode, not admin). */
  demand: Map<string, number>;
  /** The claims' content without their names: pods with equal shapes are interchangeable. */
  shape: string;
  /** Opaque: the cluster's read claims, handed back to place(). */
  claims: unknown;
}

/** What the gang search needs of a cluster (the cluster implements it over its own state). */
export interface GangHost {
  readonly nodeNames: readonly string[];
  labels(k: number): Readonly<Record<string, string>>;
  /** Reads one pod's claims and checks what does not depend on a node; throws on bad input (no claims, unless `empty` allows it). */
  readPod(input: unknown, field: string, empty: boolean): GangPod;
  /** An upper bound on the free devices of node k that the count key's request could take (Infinity where shares are possible). */
  free(k: number, key: string): number;
  /** Equal keys: node k and another node are interchangeable for any pod now. */
  stateKey(k: number): string;
  /** Allocates the pod on node k and keeps it (with the allocator's explanation, when it gives one); a string says why it could not. */
  place(k: number, pod: GangPod): { results: AllocationResult[]; explain?: DraExplanation } | string;
  /** Gives back a pod placed before (the last one placed). */
  unplace(pod: GangPod): void;
  /** Keeps results found before, in the same state they were found in. */
  keep(k: number, pod: GangPod, results: AllocationResult[]): void;
}

/**
 * Checks of each pod on each node beside its claims (kube-scheduler's filters: node affinity,
 * taints, CPU and memory fit), seeing the gang's own pods placed so far. Given by a caller that
 * schedules pods of a dump; scheduleGroup alone decides by claims only.
 */
export interface GangFilter {
  /** Whether pod i (its index in `pods`) may go on node k now. */
  allows(pod: number, k: number): boolean;
  /** Equal keys: the filters treat nodes k and another node the same, for every pod of the gang, now. */
  nodeKey(k: number): string;
  /** Equal keys: the filters treat pods i and another pod the same on every node. */
  podKey(pod: number): string;
  /** Pod i was placed on node k (and counts there from now on). */
  placed(pod: number, k: number): void;
  /** Pod i, placed on node k before, was given back. */
  unplaced(pod: number, k: number): void;
}

const KEYS = ['pods', 'minCount', 'topology', 'budget'] as const;
const TOPOLOGY_KEYS = ['required', 'preferred'] as const;

interface Input {
  pods: GangPod[];
  minCount: number;
  required?: string;
  preferred: string[];
  budget: number;
}

function labelKey(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') fail('INVALID_ARGUMENT', field, 'a node label key (a non-empty string)', value);
  return value;
}

function readInput(host: GangHost, input: unknown, empty: boolean): Input {
  const top = requireObject('group', input);
  rejectUnknownKeys('', top, KEYS);
  const raw = requireArray('pods', top.pods, MAX_GANG_PODS);
  if (raw.length === 0) fail('INVALID_ARGUMENT', 'pods', 'at least one pod', raw);
  const pods = raw.map((p, i) => host.readPod(p, `pods[${i}]`, empty));
  const owner = new Map<string, number>();
  pods.forEach((pod, i) => {
    for (const label of pod.labels) {
      const j = owner.get(label);
      if (j !== undefined && j !== i) throw draError('INVALID_ARGUMENT', `ResourceClaim/${label}: listed in pods[${j}] and again in pods[${i}] (a pod listed twice?)`, { field: `pods[${i}]` });
      owner.set(label, i);
    }
  });
  let minCount = pods.length;
  if (top.minCount !== undefined) {
    if (typeof top.minCount !== 'number' || !Number.isInteger(top.minCount) || top.minCount < 1 || top.minCount > pods.length)
      fail('INVALID_ARGUMENT', 'minCount', `an integer in [1, ${pods.length}] (the number of pods)`, top.minCount);
    minCount = top.minCount;
  }
  let required: string | undefined;
  let preferred: string[] = [];
  if (top.topology !== undefined) {
    const t = requireObject('topology', top.topology);
    rejectUnknownKeys('topology', t, TOPOLOGY_KEYS);
    if (t.required !== undefined) required = labelKey('topology.required', t.required);
    if (t.preferred !== undefined) {
      preferred = requireArray('topology.preferred', t.preferred, 16).map((v, i) => labelKey(`topology.preferred[${i}]`, v));
      preferred.forEach((key, i) => {
        if (preferred.indexOf(key) !== i) fail('INVALID_ARGUMENT', `topology.preferred[${i}]`, 'a label key not listed before', key);
      });
    }
  }
  const budget = top.budget === undefined ? DEFAULT_GANG_BUDGET : requireInteger('budget', top.budget, 1);
  return { pods, minCount, ...(required === undefined ? {} : { required }), preferred, budget };
}

/**
 * The counted check on a set of nodes: for each count key, the `minCount` smallest demands of the
 * pods together must not exceed the free devices the key's request could take; and, as each pod
 * needs at least the smallest demand of each key on its one node, the pods that many devices allow
 * per node must add up to `minCount`. Returns why not, or undefined when the nodes may hold the gang.
 */
function shortfall(host: GangHost, nodes: readonly number[], pods: readonly GangPod[], minCount: number): string | undefined {
  const keys = new Set<string>();
  for (const pod of pods) for (const key of pod.demand.keys()) keys.add(key);
  const least = new Map<string, number>();
  for (const key of keys) {
    // One need per pod, and 1 ≤ minCount ≤ pods (readInput checks it).
    const needs = pods.map((p) => p.demand.get(key) ?? 0).sort((a, b) => a - b);
    const smallest = needs[0]!;
    if (smallest > 0) least.set(key, smallest);
    let need = 0;
    for (let i = 0; i < minCount; i++) need += needs[i]!;
    let free = 0;
    for (const k of nodes) {
      free += host.free(k, key);
      if (free >= need) break;
    }
    if (free < need) return `${minCount} pod(s) need at least ${need} device(s) of one request shape, ${free} free`;
  }
  if (least.size === 0) return undefined;
  let fit = 0;
  for (const k of nodes) {
    let here = Infinity;
    for (const [key, need] of least) here = Math.min(here, Math.floor(host.free(k, key) / need));
    fit += here;
    if (fit >= minCount) return undefined;
  }
  const each = [...least.values()].join(', ');
  return `${minCount} pod(s) each need at least ${each} device(s) of ${least.size === 1 ? 'one request shape' : 'each request shape'} on one node; ${nodes.length} node(s) have room for ${fit}`;
}

/** Per count key, the least demand of any pod (keys some pod does not need are left out). */
function leastDemand(pods: readonly GangPod[]): Map<string, number> {
  const least = new Map<string, number>();
  const keys = new Set<string>();
  for (const pod of pods) for (const key of pod.demand.keys()) keys.add(key);
  for (const key of keys) {
    const m = Math.min(...pods.map((p) => p.demand.get(key) ?? 0));
    if (m > 0) least.set(key, m);
  }
  return least;
}

/** `a` before `b`: more pods placed, then fewer domains per preferred key, in order. */
function compare(placedA: number, domainsA: readonly number[], placedB: number, domainsB: readonly number[]): number {
  if (placedA !== placedB) return placedB - placedA;
  // Both lists have one entry per preferred key.
  for (let i = 0; i < domainsA.length; i++) if (domainsA[i] !== domainsB[i]) return domainsA[i]! - domainsB[i]!;
  return 0;
}

interface Step {
  pod: number;
  node: number;
  results: AllocationResult[];
  explain?: DraExplanation;
}

/**
 * The order pods are searched in: pods of one kind (same claim shape, same filter key) one after
 * another, kinds in the order of their first pod. Returns the order and, per position, whether the
 * pod before it is of the same kind.
 */
function searchOrder(pods: readonly GangPod[], filter: GangFilter | undefined): { order: number[]; sameAsBefore: boolean[] } {
  const kinds = new Map<string, number[]>();
  pods.forEach((pod, i) => {
    const kind = filter === undefined ? pod.shape : `${pod.shape}\u0000${filter.podKey(i)}`;
    (kinds.get(kind) ?? kinds.set(kind, []).get(kind)!).push(i);
  });
  const order: number[] = [];
  const sameAsBefore: boolean[] = [];
  for (const members of kinds.values())
    members.forEach((i, m) => {
      order.push(i);
      sameAsBefore.push(m > 0);
    });
  return { order, sameAsBefore };
}

/**
 * Places a gang on the host's cluster, all or nothing (see GangRequest and the module comment).
 * `filter`, when given, adds per-pod node checks (kube-scheduler's filters) to the claims', and a
 * pod may then have no claims.
 */
export function scheduleGroup(host: GangHost, input: unknown, filter?: GangFilter): GangResult {
  // With a filter a pod may have no claims: the filters alone choose its node.
  const { pods, minCount, required, preferred, budget } = readInput(host, input, filter !== undefined);
  const n = pods.length;
  const all = host.nodeNames.map((_name, k) => k);
  const of = (k: number, key: string): string | undefined => host.labels(k)[key];

  const whole = shortfall(host, all, pods, minCount);
  if (whole !== undefined) return { placements: [], reason: unschedulable(`the gang is larger than the cluster: ${whole} in all ${all.length} node(s)`) };

  // The required domains, in the order of their first node.
  const domains = new Map<string, number[]>();
  if (required === undefined) domains.set('', all);
  else
    for (const k of all) {
      const v = of(k, required);
      if (v !== undefined) (domains.get(v) ?? domains.set(v, []).get(v)!).push(k);
    }
  if (domains.size === 0) return { placements: [], reason: unschedulable(`no node has the label ${JSON.stringify(required)} (topology.required)`) };

  const { order, sameAsBefore } = searchOrder(pods, filter);
  /** Per search position: the node its pod is on, -1 when left out. */
  const nodeAt = new Int32Array(n);
  // Indexes below are in range by construction: search positions j < n (order, sameAsBefore,
  // nodeAt), pod numbers i from order (< n), node numbers k < host.nodeNames.length (rank), p <
  // preferred.length (used); the first preferred key's state (preferred[0], used[0], domains[0])
  // is read only where there is one (firstKey, or preferred.length ≥ 1).
  let steps = 0;
  let exhausted = false;
  let best: { placed: number; domains: number[]; steps: Step[] } | undefined;
  const refused: string[] = [];
  const stack: Step[] = [];
  const used = preferred.map(() => new Map<string | undefined, number>());
  const optimal = (): boolean => best !== undefined && best.placed === n && best.domains.every((d) => d === 1);
  const domainsNow = (): number[] => used.map((m) => m.size);
  const count = (k: number, by: number): void =>
    preferred.forEach((key, p) => {
      const v = of(k, key);
      const inUse = used[p]!;
      const left = (inUse.get(v) ?? 0) + by;
      if (left === 0) inUse.delete(v);
      else inUse.set(v, left);
    });

  // Whether the search is over. Tries pod `i` (at search position j) on node k.
  const attempt = (nodes: readonly number[], j: number, skipped: number, k: number): boolean => {
    if (steps >= budget) {
      exhausted = true;
      // The pods placed so far, the rest left out, may be the best found.
      if (stack.length >= minCount && (best === undefined || compare(stack.length, domainsNow(), best.placed, best.domains) < 0))
        best = { placed: stack.length, domains: domainsNow(), steps: stack.slice() };
      return true;
    }
    steps++;
    const i = order[j]!;
    const pod = pods[i]!;
    const placed = host.place(k, pod);
    if (typeof placed === 'string') return false;
    stack.push({ pod: i, node: k, ...placed });
    nodeAt[j] = k;
    count(k, 1);
    filter?.placed(i, k);
    try {
      search(nodes, j + 1, skipped);
    } finally {
      stack.pop();
      host.unplace(pod);
      count(k, -1);
      filter?.unplaced(i, k);
    }
    return exhausted || optimal();
  };

  // Whether node k passes the counted check and the filters for pod i; its key among equals.
  const candidate = (i: number, k: number): string | undefined => {
    for (const [key, need] of pods[i]!.demand) if (host.free(k, key) < need) return undefined;
    if (filter !== undefined && !filter.allows(i, k)) return undefined;
    const values = preferred.length === 0 ? '' : JSON.stringify(preferred.map((key) => of(k, key)));
    return `${host.stateKey(k)}\u0000${filter === undefined ? '' : filter.nodeKey(k)}\u0000${values}`;
  };

  // Pods that many free devices allow on node k now (each pod needs at least the least demand of each key).
  const least = leastDemand(pods);
  const room = (k: number): number => {
    let here = Infinity;
    for (const [key, need] of least) here = Math.min(here, Math.floor(host.free(k, key) / need));
    return here;
  };
  /** Per search domain: the nodes in the order tried (a rank per node), and the first preferred key's domains with their room when the search began. */
  let rank = new Int32Array(0);
  /** The search domain's nodes in rank order. */
  let ranked: number[] = [];
  let firstKey: { nodesOf: Map<string | undefined, number[]>; roomAtStart: Array<[string | undefined, number]> } | undefined;
  const prepare = (nodes: readonly number[]): void => {
    rank = new Int32Array(host.nodeNames.length);
    firstKey = undefined;
    if (preferred.length === 0 || least.size === 0) {
      nodes.forEach((k, r) => (rank[k] = r));
      ranked = [...nodes];
      return;
    }
    const nodesOf = new Map<string | undefined, number[]>();
    const firstLabel = preferred[0]!;
    for (const k of nodes) {
      const v = of(k, firstLabel);
      (nodesOf.get(v) ?? nodesOf.set(v, []).get(v)!).push(k);
    }
    const roomAtStart = [...nodesOf].map(([v, ks]): [string | undefined, number] => [v, ks.reduce((sum, k) => sum + room(k), 0)]);
    // Roomiest domains first: the first placement found then uses few of them.
    roomAtStart.sort((a, b) => b[1] - a[1]);
    let r = 0;
    for (const [v] of roomAtStart) for (const k of nodesOf.get(v)!) rank[k] = r++;
    firstKey = { nodesOf, roomAtStart };
    ranked = [...nodes].sort((a, b) => rank[a]! - rank[b]!);
  };
  /** The fewest domains of the first preferred key that every pod from search position j on can take (Infinity: none). */
  const domainsAtLeast = (j: number): number => {
    const f = firstKey!;
    const inUse = used[0]!;
    let left = n - j;
    for (const v of inUse.keys()) for (const k of f.nodesOf.get(v) ?? []) left -= room(k);
    let domains = inUse.size;
    for (const [v, r] of f.roomAtStart) {
      if (left <= 0) break;
      if (inUse.has(v)) continue;
      left -= r;
      domains++;
    }
    return left > 0 ? Infinity : domains;
  };

  /** Whether nothing better than the best placement can come from search position j with the pods placed now. */
  const hopeless = (j: number, skipped: number): boolean => {
    if (exhausted || optimal()) return true;
    // Domains only grow and at most n - skipped pods can be placed.
    if (best !== undefined && compare(n - skipped, domainsNow(), best.placed, best.domains) >= 0) return true;
    // Every pod must be placed: the room left in the domains used and the roomiest others bound the first key's domains.
    if (firstKey !== undefined && minCount === n && j < n) {
      const atLeast = domainsAtLeast(j);
      if (atLeast === Infinity) return true;
      if (best !== undefined && (atLeast > best.domains[0]! || (atLeast === best.domains[0] && preferred.length === 1))) return true;
    }
    return false;
  };

  const search = (nodes: readonly number[], j: number, skipped: number): void => {
    if (hopeless(j, skipped)) return;
    if (j === n) {
      best = { placed: n - skipped, domains: domainsNow(), steps: stack.slice() };
      return;
    }
    const i = order[j]!;
    // A pod like the one before it goes no earlier in node order, and is left out when that one was (j > 0 then).
    const before = sameAsBefore[j] ? nodeAt[j - 1]! : 0;
    const after = sameAsBefore[j] ? (before < 0 ? -1 : rank[before]!) : 0;
    if (after >= 0) {
      const seen = new Set<string>();
      if (preferred.length === 0) {
        // Nodes in node order, one per state, tried as they are found.
        for (const k of nodes) {
          if (rank[k]! < after) continue;
          const key = candidate(i, k);
          if (key === undefined || seen.has(key)) continue;
          seen.add(key);
          if (attempt(nodes, j, skipped, k) || hopeless(j, skipped)) return;
        }
      } else if (preferred.length === 1) {
        // One key: nodes of the domains in use first, then the others, each in rank order, tried as they are found.
        const firstLabel = preferred[0]!;
        const firstUsed = used[0]!;
        for (const inUse of [true, false])
          for (const k of ranked) {
            if (rank[k]! < after || firstUsed.has(of(k, firstLabel)) !== inUse) continue;
            const key = candidate(i, k);
            if (key === undefined || seen.has(key)) continue;
            seen.add(key);
            if (attempt(nodes, j, skipped, k) || hopeless(j, skipped)) return;
          }
      } else {
        // Nodes adding fewer new domains first, then in rank order (roomiest domains of the first key first).
        const candidates: Array<{ k: number; added: number[] }> = [];
        for (const k of nodes) {
          if (rank[k]! < after) continue;
          const key = candidate(i, k);
          if (key === undefined || seen.has(key)) continue;
          seen.add(key);
          candidates.push({ k, added: preferred.map((label, p) => (used[p]!.has(of(k, label)) ? 0 : 1)) });
        }
        candidates.sort((a, b) => compare(0, a.added, 0, b.added) || rank[a.k]! - rank[b.k]!);
        for (const { k } of candidates) if (attempt(nodes, j, skipped, k) || hopeless(j, skipped)) return;
      }
    }
    if (skipped < n - minCount) {
      nodeAt[j] = -1;
      search(nodes, j + 1, skipped + 1);
    }
  };

  for (const [value, nodes] of domains) {
    if (exhausted || optimal()) break;
    const short = shortfall(host, nodes, pods, minCount);
    if (short !== undefined) {
      refused.push(`${required}=${value}: ${short}`);
      continue;
    }
    prepare(nodes);
    search(nodes, 0, 0);
    // Without preferred keys any placement of every pod is as good as another.
    if (best !== undefined && best.placed === n && preferred.length === 0) break;
  }

  const flag = exhausted ? { budgetExhausted: true } : {};
  if (best === undefined) {
    const where = required === undefined ? `on ${all.length} node(s)` : `in any of ${domains.size} domain(s) of ${JSON.stringify(required)}`;
    const why = exhausted
      ? `; the step budget of ${budget} allocator runs ran out first`
      : refused.length > 0
        ? `; refused without search: ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? '; …' : ''}`
        : '';
    return { placements: [], reason: unschedulable(`no placement of ${minCount} of ${n} pod(s) ${where}${why}`), ...flag };
  }
  // The search gave everything back; the best placement is kept now, in the order it was found.
  for (const s of best.steps) host.keep(s.node, pods[s.pod]!, s.results);
  const placements = best.steps
    .map((s): GangPlacement => ({ pod: s.pod, node: host.nodeNames[s.node]!, results: s.results, ...(s.explain !== undefined ? { explain: s.explain } : {}) }))
    .sort((a, b) => a.pod - b.pod);
  return { placements, ...flag };
}
