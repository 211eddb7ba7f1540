// A DRA cluster as kube-scheduler sees it: ResourceSlices and Nodes read once, then pods' claims
// scheduled one pod at a time. For each pod: filter the nodes (a node index keeps, per claim
// shape and node class, the nodes whose free devices can pass the requests' counts, best score
// first), run the allocator (either mode) on the best node, then the next best while it finds no
// allocation, and keep what it allocated (devices, shares, consumed capacity) for the next pod.
// Releasing a claim gives its devices back. Only the node that changed is re-keyed.
import { AllocationError } from '../../shared/errors.js';
import { fail } from '../../shared/validate.js';
import {
  AllocatedBase,
  allocateOnModel,
  compareObjective,
  type DraAllocateResult,
  type DraExplanation,
  type DraObjective,
  readBudget,
  readCapacityState,
  readFeatures,
  readIdList,
  readMode,
  readWorkload,
  type SearchSettings,
  TopologySetup,
  unschedulable,
  type WorkloadShape,
  workloadShapes,
} from '../allocator/index.js';
import { SelectorCache } from '../cel/index.js';
import type { PoolCountersLeft } from '../model/index.js';
import { AllocationModel, addClaims, type CandidateDevice, claimLabel, claimsNodeIndependent, listCandidates, type Pool, type ResolvedFeatures } from '../model/index.js';
import {
  type AllocationResult,
  child,
  type DeviceClass,
  draError,
  type Node,
  Quantity,
  type ResourceClaim,
  readDeviceClasses,
  readNodes,
  readResourceClaims,
  readResourceSlices,
  record,
} from '../objects/index.js';
import { type GangFilter, type GangHost, type GangRequest, type GangResult, scheduleGroup } from '../workloads/index.js';
import { type AllocatedEntry, AllocatedState } from './allocated-state.js';
import { type CheckedClaims, checkClaimModels, copyJson, rankOf, readsIdentity, shapeKeyOf } from './checked-claims.js';
import { type DraAllocatedState, type DraClaimAllocation, type DraClusterInit, type DraScheduleResult, INIT_KEYS } from './cluster-init.js';
import { FleetSupply } from './fleet-supply.js';
import { gangHost } from './gang-host.js';
import { isIdentityAttribute, layoutCluster, type NodeClass, NodeModel } from './node-classes.js';
import { type CountedAlternative, DEFAULT_NODE_SCORES, FRAGMENTATION_CANDIDATES, NODE_SCORES, NodeIndex, type NodeScore, type NodeStates, type ShapeIndex } from './node-index.js';
import { StateCounts, type StateVerdict, words } from './state-counts.js';

/** How many more nodes a pod with a prioritized list may try for an earlier alternative once one node can take it. */
export const RANK_PROBES = 16;

interface Held {
  claim: string;
  node: number;
  allocation: AllocationResult;
  entries: AllocatedEntry[];
}

/**
 * A cluster's devices and what its claims hold: schedule pods' claims, release them. Node numbers
 * k (< nodes; from the node order, the index, or a held claim), classes c (< nodeClasses) and pool
 * positions are in range by construction: the arrays indexed by them are sized when the handle is made.
 */
export class DraCluster {
  /** Node names in node order. */
  readonly nodeNames: readonly string[];
  private readonly features: ResolvedFeatures;
  private search: SearchSettings;
  private readonly score: NodeScore;
  private readonly classes: DeviceClass[];
  private readonly nodes: Node[];
  private readonly pools: Pool[][];
  private readonly classOf: Int32Array;
  private readonly nodeClasses: NodeClass[];
  private readonly cache = new SelectorCache();
  private readonly allocatedState = new AllocatedState();
  private readonly states: NodeStates;
  private readonly used: Uint32Array;
  private readonly index: NodeIndex;
  /** Classes that see each pool shared between nodes. */
  private readonly classesOfPool = new Map<string, number[]>();
  /** The node each node-local pool belongs to. */
  private readonly nodeOfPool = new Map<string, number>();
  private readonly held = new Map<string, Held>();
  /** Per node class, the scored objective's set-up (what its devices publish), made on the first search on a member. */
  private readonly setups: Array<TopologySetup | undefined>;
  /** Members of each class per state (stateKey without identity), for node searches that meet one state many times. */
  private readonly stateCounts: StateCounts;
  /** Per node, its devices as the allocator lists them (listCandidates of its pools), made on the first search on it. */
  private readonly candidates: Array<CandidateDevice[] | undefined>;
  /** Per node, what other claims hold there as the objective reads it, made on the first search after the node's allocated state last changed. */
  private readonly bases: Array<AllocatedBase | undefined>;
  /** Per node, what other claims left of its pools' counters (AllocationModel.countersLeft), until its allocated state changes. */
  private readonly countersLeft: Array<Map<Pool, PoolCountersLeft> | undefined>;
  /** The workload's requests (read once) and, per node class, its shapes (made on first use). */
  private readonly workload?: { probe: AllocationModel; weights: number[]; shapes: Array<WorkloadShape[] | undefined> };
  /** Scored mode with a workload: what the nodes offer the pairing rule (fleet-supply.ts). */
  private readonly supply?: FleetSupply;
  /** No workload and no device of any node consumes counters: the fragmentation term is 0 for every allocation on every node. */
  private readonly shapeless: boolean;
  private tries = 0;
  private steps = 0;
  /** The gang search's view of the handle, made on the first scheduleGroup. */
  private gangs?: GangHost;

  constructor(init: DraClusterInit) {
    const at = { origin: 'init', path: '' };
    const top = record(at, init, INIT_KEYS) as unknown as DraClusterInit;
    const mode = readMode(top.mode, child(at, 'mode'));
    this.score = top.nodeScore ?? DEFAULT_NODE_SCORES[mode];
    if (!NODE_SCORES.includes(this.score)) fail('INVALID_ARGUMENT', child(at, 'nodeScore'), NODE_SCORES.map((s) => `'${s}'`).join(', '), top.nodeScore);
    const seed = top.seed ?? 0;
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) fail('INVALID_ARGUMENT', child(at, 'seed'), 'an integer', top.seed);
    this.search = { mode, budget: readBudget(top.budget, child(at, 'budget')), seed };
    if (this.score === 'fragmentation' && this.search.mode !== 'scored')
      fail('INVALID_ARGUMENT', child(at, 'nodeScore'), "'pack', 'spread' or 'first' in mode 'first-fit' ('fragmentation' ranks nodes by the scored objective)", top.nodeScore);
    this.features = readFeatures(top.features);
    this.classes = readDeviceClasses(top.classes, 'classes');
    const slices = readResourceSlices(top.slices, 'slices');
    this.nodes = readNodes(top.nodes, 'nodes');
    const names = new Set<string>();
    this.nodes.forEach((n, k) => {
      if (names.has(n.name)) fail('INVALID_ARGUMENT', { origin: `Node/${n.name}`, path: 'metadata.name' }, 'a name no other node has', `nodes[${k}] repeats ${JSON.stringify(n.name)}`);
      names.add(n.name);
    });
    this.nodeNames = this.nodes.map((n) => n.name);
    this.bases = new Array(this.nodes.length);
    this.countersLeft = new Array(this.nodes.length);
    this.candidates = new Array(this.nodes.length);

    const layout = layoutCluster(this.nodes, slices, this.features, this.cache);
    this.pools = layout.pools;
    this.classOf = layout.classOf;
    this.nodeClasses = layout.classes;
    this.setups = new Array(this.nodeClasses.length);
    for (const c of this.nodeClasses) for (const id of c.sharedPools) (this.classesOfPool.get(id) ?? this.classesOfPool.set(id, []).get(id)!).push(c.index);
    layout.localPools.forEach((local, k) => local.forEach((isLocal, p) => isLocal && this.nodeOfPool.set(this.pools[k]![p]!.id, k)));

    this.readAllocated(top);
    const workload = readWorkload(top.workload, child(at, 'workload'));
    if (workload !== undefined) {
      const probe = new AllocationModel({ name: '', labels: {} }, this.features, [], { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() }, this.cache);
      addClaims(probe, workload.claims, this.classes);
      this.workload = { probe, weights: workload.weights, shapes: new Array(this.nodeClasses.length) };
    }
    // Per node class: whether some device of its members consumes counters (a partitionable device).
    const onCounters = this.nodeClasses.map((c) => c.devices.some((d) => d.device.consumesCounters.length > 0));
    if (mode === 'scored' && this.workload !== undefined) {
      const table = (k: number) => this.setupOn(k).shapeTable(this.shapesFor(k));
      this.supply = new FleetSupply({ nodes: this.nodes.length, counts: (k) => onCounters[this.classOf[k]!]!, of: (k) => this.baseOn(k, this.modelOn(k)).supply(table(k)) });
    }
    this.shapeless = workload === undefined && !onCounters.includes(true);
    const explain = top.explain ?? false;
    if (typeof explain !== 'boolean') fail('INVALID_ARGUMENT', child(at, 'explain'), 'a boolean', top.explain);
    if (explain) this.search = { ...this.search, explain };
    const wordStart = new Int32Array(this.nodes.length + 1);
    for (let k = 0; k < this.nodes.length; k++) wordStart[k + 1] = wordStart[k]! + this.nodeClasses[this.classOf[k]!]!.words;
    this.states = { wordStart, free: new Uint32Array(wordStart[this.nodes.length]!), sharedFree: this.nodeClasses.map((c) => new Uint32Array(c.words)), load: new Float64Array(this.nodes.length) };
    this.used = new Uint32Array(wordStart[this.nodes.length]!);
    for (let k = 0; k < this.nodes.length; k++) this.refreshNode(k);
    for (const c of this.nodeClasses) this.refreshShared(c.index);
    this.index = new NodeIndex(this.nodeClasses, this.classOf, this.states, this.score);
    this.stateCounts = new StateCounts(this.classOf, this.nodeClasses.length, (k) => this.stateKey(k, false));
  }

  private readAllocated(top: DraClusterInit): void {
    // The ids were read as `driver/pool/device` (a share's with its share ID after): three parts at least.
    const split = (id: string): { pool: string; device: string } => {
      const parts = id.split('/');
      return { pool: `${parts[0]}/${parts[1]}`, device: parts[2]! };
    };
    for (const id of readIdList('allocatedDevices', top.allocatedDevices, [3])) this.allocatedState.add(split(id));
    const capacity = readCapacityState(top.allocatedCapacity);
    const sharesOf = new Map<string, number>();
    for (const id of readIdList('allocatedSharedDeviceIDs', top.allocatedSharedDeviceIDs, [3, 4])) {
      const { pool, device } = split(id);
      const full = `${pool}/${device}`;
      // The aggregated capacity goes with the device's first share.
      const first = !sharesOf.has(full);
      sharesOf.set(full, (sharesOf.get(full) ?? 0) + 1);
      this.allocatedState.add({ pool, device, shareId: id.split('/')[3] ?? '', ...(first && capacity.has(full) ? { consumed: capacity.get(full) } : {}) });
    }
    for (const [id, amounts] of capacity) if (!sharesOf.has(id)) this.allocatedState.add({ ...split(id), shareId: '', consumed: amounts });
  }

  /** Node k's own devices: which are free to take, which in use, its load. */
  private refreshNode(k: number): void {
    const c = this.nodeClasses[this.classOf[k]!]!;
    const from = this.states.wordStart[k]!;
    const free = this.states.free.subarray(from, from + c.words);
    const used = this.used.subarray(from, from + c.words);
    const n = this.allocatedState.walk(c, this.pools[k]!, 'local', this.features, free, used);
    this.states.load[k] = c.localCount === 0 ? 0 : n / c.localCount;
    this.stateCounts?.changed(k);
  }

  /** Class c's devices of shared pools: which are free to take. */
  private refreshShared(c: number): boolean {
    const nodeClass = this.nodeClasses[c]!;
    const first = nodeClass.members[0];
    if (nodeClass.sharedPools.length === 0 || first === undefined) return false;
    const sharedFree = this.states.sharedFree[c]!;
    const before = sharedFree.slice();
    this.allocatedState.walk(nodeClass, this.pools[first]!, 'shared', this.features, sharedFree, new Uint32Array(nodeClass.words));
    return before.some((w, i) => w !== sharedFree[i]);
  }

  /** Numbers about the handle: nodes, node classes, claim shapes indexed, claims held, allocator runs and nodes taken from the index one by one so far. */
  stats(): { nodes: number; nodeClasses: number; shapes: number; claims: number; tries: number; steps: number } {
    return { nodes: this.nodes.length, nodeClasses: this.nodeClasses.length, shapes: this.index.size, claims: this.held.size, tries: this.tries, steps: this.steps };
  }

  /**
   * Allocates one pod's claims together on the best node that can take them, and keeps the
   * allocation. Upstream's claim errors (an unknown class, a CEL compile error, over 32 results, a
   * disabled feature) throw before any node is tried; a node where the allocator fails or errs is
   * passed over. No node: `results: []` with the reason.
   */
  schedule(input: unknown): DraScheduleResult {
    const { claims, labels, groups, shape, checked } = this.pendingClaims(input);
    const { found, tried, same } = this.findNode(claims, groups, shape, () => true, undefined, checked, true);
    if (found !== undefined) {
      this.commit(found.k, labels, found.outcome.results);
      return { node: this.nodes[found.k]!.name, results: found.outcome.results, ...(found.outcome.explain !== undefined ? { explain: found.outcome.explain } : {}) };
    }
    const needs = groups.map((g) => g.map((a) => (a.all ? `all of class ${a.request.deviceClass.name}` : `${a.need} of class ${a.request.deviceClass.name}`)).join(' or ')).join(', ');
    const others = this.nodes.length - tried.length - same;
    const triedText =
      tried.length === 0 ? '' : `; tried ${tried.length}${same > 0 ? ` (and ${same} in the same state as one of them)` : ''}: ${tried.slice(0, 3).join('; ')}${tried.length > 3 ? '; …' : ''}`;
    return {
      results: [],
      reason: unschedulable(
        `no node can take claim${labels.length > 1 ? 's' : ''} ${labels.join(', ')} (needs ${needs}): ${others} of ${this.nodes.length} node(s) have too few free devices that match${triedText}`,
      ),
    };
  }

  /**
   * Places a gang of pods all or nothing, with node-label topology (docs/api/dra-cluster.md,
   * "Gangs"). `filter` adds per-pod node checks beside the claims (kube-scheduler's filters).
   */
  scheduleGroup(input: GangRequest, filter?: GangFilter): GangResult {
    // One host per handle: what it learns of the claims' count masks per node class stays for the next gang.
    this.gangs ??= gangHost({
      nodes: this.nodes,
      classOf: this.classOf,
      nodeClasses: this.nodeClasses,
      states: this.states,
      features: this.features,
      heldOn: (label) => this.held.get(label)?.node,
      checkClaims: (claims) => checkClaimModels(claims, this.features, this.classes, this.cache).groups,
      stateKey: (k) => this.stateKey(k),
      allocateOn: (k, claims) => this.allocateOn(k, claims),
      commit: (k, labels, results) => this.commit(k, labels, results),
      release: (label) => void this.release(label),
    });
    return scheduleGroup(this.gangs, input, filter);
  }

  /**
   * One pod's claims on one node that `allowed` accepts (node indices, in `nodeNames` order),
   * kept there, as schedule does: tried in `order` when given (kube-scheduler's node order),
   * else best first by the node score. Claim errors throw AllocationError('DRA_REJECTED').
   */
  place(
    input: unknown[],
    allowed: (k: number) => boolean,
    order?: readonly number[],
  ): { node: number; results: AllocationResult[]; message?: undefined; explain?: DraExplanation } | { node: -1; results?: undefined; message: string } {
    const { claims, labels, groups, shape, checked } = this.pendingClaims(input);
    const { found, tried } = this.findNode(claims, groups, shape, allowed, order, checked);
    if (found === undefined) return { node: -1, message: tried[0] ?? 'too few free devices that match' };
    this.commit(found.k, labels, found.outcome.results);
    return { node: found.k, results: found.outcome.results, ...(found.outcome.explain !== undefined ? { explain: found.outcome.explain } : {}) };
  }

  /**
   * The node for claims already checked: tried in `order` when given, else best first by the node
   * score, only those `allowed` accepts and whose free devices pass the counts; a node in the state
   * of one that failed is not tried again ('fragmentation': nor of one placed; docs/api/dra-cluster.md). Requests with a prioritized list prefer, among up to
   * RANK_PROBES more nodes that can take them, one where they get earlier alternatives (the
   * DynamicResources score of Kubernetes 1.35 and later); on equal ranks the first found stays.
   */
  private findNode(
    claims: ResourceClaim[],
    groups: CountedAlternative[][],
    shape: ShapeIndex,
    allowed: (k: number) => boolean,
    order: readonly number[] | undefined,
    checked: CheckedClaims | undefined,
    everyNode = false,
  ): { found?: { k: number; outcome: DraAllocateResult }; tried: string[]; same: number } {
    const ranked = groups.some((g) => g.length > 1);
    const failed = new Set<string>();
    const tried: string[] = [];
    let same = 0;
    let found: { k: number; outcome: DraAllocateResult; rank: number } | undefined;
    let probes = 0;
    // nodeScore 'fragmentation': the best objective among the first candidates (a node in the state of one already placed is not tried again).
    const fragmentation = this.score === 'fragmentation';
    const placed = new Set<string>();
    const passed = new Set<string>();
    // Whether the claims may read identity attributes: asked only of a class whose members differ in them.
    let identity: boolean | undefined;
    // Node k's state key, made only once some node's is kept (a failed node, a placed one).
    const keyOf = (k: number): string => this.stateKey(k, this.nodeClasses[this.classOf[k]!]!.identityVaries && (identity ??= readsIdentity(claims, groups)));
    // Whether the search is over.
    const attempt = (k: number): boolean => {
      let state: string | undefined;
      if (failed.size > 0 || placed.size > 0) {
        state = keyOf(k);
        if (failed.has(state) || (fragmentation && (placed.has(state) || passed.has(state)))) {
          same++;
          return false;
        }
      }
      // Without a workload (the default shapes: what may come, not how often) no node is opened for a lower fragmentation than a node of its class in use gives (kept in `passed`): that would spread pods over nodes.
      if (fragmentation && this.workload === undefined && found?.rank === 0 && (found.outcome.objective?.topology ?? 0) === 0 && this.states.load[k] === 0) {
        if (this.states.load[found.k]! > 0 && this.classOf[k] === this.classOf[found.k]) {
          passed.add(state ?? keyOf(k));
          same++;
          return false;
        }
      }
      let outcome: DraAllocateResult | undefined;
      let message: string | undefined;
      try {
        outcome = this.allocateOn(k, claims, checked);
      } catch (error) {
        // An error that depends on the node (invalid pools, a CEL runtime error on one of its devices): the node cannot take the pod.
        if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
        message = error.message;
      }
      if (outcome !== undefined && outcome.reason === undefined) {
        const rank = ranked ? rankOf(claims, outcome.results) : 0;
        if (fragmentation) {
          // Ties: the earlier, more allocated node. A claim split across PCIe roots or NUMA nodes looks further (up to 4×) for a node that keeps it together.
          if (found === undefined || rank < found.rank || (rank === found.rank && compareObjective(outcome.objective as DraObjective, found.outcome.objective as DraObjective) < 0))
            found = { k, outcome, rank };
          const split = (found.outcome.objective?.topology ?? 0) > 0;
          // Nothing to weigh (no shape anywhere): an allocation whole in its roots at its first alternatives is kept at once, as 'pack' keeps it.
          if (this.shapeless && !split && found.rank === 0) return true;
          placed.add(state ?? keyOf(k));
          return placed.size >= (split ? 4 * FRAGMENTATION_CANDIDATES : FRAGMENTATION_CANDIDATES);
        }
        if (found === undefined || rank < found.rank) found = { k, outcome, rank };
        return found.rank === 0 || ++probes > RANK_PROBES;
      }
      failed.add(state ?? keyOf(k));
      tried.push(`${this.nodes[k]!.name}: ${message ?? outcome?.reason?.message ?? 'no allocation'}`);
      return false;
    };
    if (order !== undefined) {
      for (const k of order) if (allowed(k) && this.index.passes(shape, k) && attempt(k)) break;
    } else {
      const excluded: number[] = [];
      // Classes whose members left are all in states met already or unable to pass the counts (pod-wide `allowed` only): passed over at once, each member in a met state counted in `same` as the walk would.
      const skip = new Set<number>();
      const visited = new Map<number, number>();
      const askedAt = new Map<number, number>();
      const verdict = (key: string, member: number): StateVerdict =>
        failed.has(key) || (fragmentation && (placed.has(key) || passed.has(key))) ? 'seen' : this.index.passes(shape, member) ? 'open' : 'out';
      try {
        for (;;) {
          const k = this.index.best(shape, skip);
          if (k < 0) break;
          this.index.exclude(shape, k);
          excluded.push(k);
          this.steps++;
          const c = this.classOf[k]!;
          visited.set(c, (visited.get(c) ?? 0) + 1);
          const before = same;
          if (allowed(k) && attempt(k)) break;
          const nodeClass = this.nodeClasses[c]!;
          // Asked once per class and number of states met; never where identity attributes tell the members apart.
          if (everyNode && same > before && !(nodeClass.identityVaries && (identity ??= readsIdentity(claims, groups))) && askedAt.get(c) !== failed.size + placed.size + passed.size) {
            askedAt.set(c, failed.size + placed.size + passed.size);
            const { seen, out } = this.stateCounts.tally(c, verdict);
            if (seen + out === nodeClass.members.length) {
              same += seen - visited.get(c)!;
              skip.add(c);
            }
          }
        }
      } finally {
        for (const k of excluded) this.index.include(shape, k);
      }
    }
    return found !== undefined ? { found: { k: found.k, outcome: found.outcome }, tried, same } : { tried, same };
  }

  /**
   * One pod's claims as schedule and place read them: at least one, none held or given twice, the
   * checks that do not depend on the node, and the index's shape of their counted requests.
   */
  private pendingClaims(input: unknown): { claims: ResourceClaim[]; labels: string[]; groups: CountedAlternative[][]; shape: ShapeIndex; checked?: CheckedClaims } {
    const claims = readResourceClaims(input, 'claims');
    if (claims.length === 0) fail('INVALID_ARGUMENT', { origin: 'claims', path: '' }, 'at least one ResourceClaim', input);
    const labels = claims.map(claimLabel);
    labels.forEach((label, i) => {
      const other = this.held.get(label);
      if (other !== undefined) throw draError('INVALID_ARGUMENT', `ResourceClaim/${label}: already allocated on node ${this.nodes[other.node]!.name}; release it first`, { field: `claims[${i}]` });
      if (labels.indexOf(label) !== i) throw draError('INVALID_ARGUMENT', `ResourceClaim/${label}: given twice`, { field: `claims[${i}]` });
    });
    const { groups, models } = checkClaimModels(claims, this.features, this.classes, this.cache);
    const { key, selectorKeys } = shapeKeyOf(groups, this.features);
    const shape = this.index.shape(key, groups);
    return claimsNodeIndependent(models) ? { claims, labels, groups, shape, checked: { models, selectorKeys } } : { claims, labels, groups, shape };
  }

  /**
   * What decides whether node k can take a pod, beyond its class: its own devices' state, and the
   * node itself where the class's members differ in identity attributes the claims may read
   * (`identity`: true unless the claims are known not to read any).
   */
  private stateKey(k: number, identity = true): string {
    const c = this.nodeClasses[this.classOf[k]!]!;
    const from = this.states.wordStart[k]!;
    let key = `${c.index}${identity && c.identityVaries ? `@${k}` : ''}:${words(this.used, from, c.words)}${words(this.states.free, from, c.words)}`;
    if (this.features.consumableCapacity) for (const pool of this.pools[k]!) if (this.nodeOfPool.get(pool.id) === k) key += this.allocatedState.capacityKey(pool.id);
    return key;
  }

  /** The allocator on node k with everything the cluster holds (`checked`: the claims as checkClaimModels made them, when every node may take them as they are). */
  private allocateOn(k: number, claims: ResourceClaim[], prepared?: CheckedClaims): DraAllocateResult {
    this.tries++;
    const model = this.modelOn(k, prepared?.selectorKeys);
    const checked = prepared?.models;
    const { mode, budget, seed, explain } = this.search;
    // Settings written out as one literal (an object spread into a literal with fields after it costs V8 a new hidden class each time).
    if (mode !== 'scored') return allocateOnModel(model, claims, this.classes, { mode, budget, seed, explain, checked });
    const setup = this.setupOn(k);
    return allocateOnModel(model, claims, this.classes, { mode, budget, seed, explain, checked, setup, base: this.baseOn(k, model), shapes: this.shapesFor(k), supply: this.supply?.sum() });
  }

  /** Node k's model with what the cluster holds (`selectorKeys`: CheckedClaims.selectorKeys). */
  private modelOn(k: number, selectorKeys?: CheckedClaims['selectorKeys']): NodeModel {
    const pools = this.pools[k]!;
    const candidates = this.candidates[k] ?? (this.candidates[k] = listCandidates(pools, this.features));
    const left = this.countersLeft[k] ?? (this.countersLeft[k] = new Map());
    return new NodeModel(this.nodes[k]!, this.features, pools, this.allocatedState.stateFor(pools), this.cache, this.nodeClasses[this.classOf[k]!]!, candidates, selectorKeys, left);
  }

  /** The scored objective's set-up of node k's class: built on the class's template (its first member); members differ at most in identity attributes, which then key the symmetry classes per call. */
  private setupOn(k: number): TopologySetup {
    const c = this.classOf[k]!;
    const nodeClass = this.nodeClasses[c]!;
    return this.setups[c] ?? (this.setups[c] = new TopologySetup(nodeClass.template, nodeClass.identityVaries ? isIdentityAttribute : undefined));
  }

  /** What other claims hold on node k as the objective reads it (kept until its allocated state changes). */
  private baseOn(k: number, model: AllocationModel): AllocatedBase {
    return this.bases[k] ?? (this.bases[k] = new AllocatedBase(this.setupOn(k), model));
  }

  /** The workload's shapes on node k's class (selected on the class's template, as the node index does); undefined without a workload. */
  private shapesFor(k: number): WorkloadShape[] | undefined {
    const w = this.workload;
    if (w === undefined) return undefined;
    const c = this.classOf[k]!;
    const nodeClass = this.nodeClasses[c]!;
    return w.shapes[c] ?? (w.shapes[c] = workloadShapes(w.probe, w.weights, (request) => Uint8Array.from(nodeClass.selectableMask(request), (v) => (v === 1 ? 1 : 0))));
  }

  private commit(k: number, labels: string[], results: AllocationResult[]): void {
    const perClaim = results.map((result) =>
      result.devices.results.flatMap((r): AllocatedEntry[] => {
        // Admin access does not hold a device (upstream's scheduler leaves such results out of its allocated state).
        if (r.adminAccess === true) return [];
        const pool = `${r.driver}/${r.pool}`;
        if (r.shareID === undefined) return [{ pool, device: r.device }];
        const consumed = r.consumedCapacity === undefined ? undefined : new Map(Object.entries(r.consumedCapacity).map(([n, q]) => [n, Quantity.parse(q)]));
        return [{ pool, device: r.device, shareId: r.shareID, ...(consumed !== undefined ? { consumed } : {}) }];
      }),
    );
    const whole = perClaim.flat().filter((e) => e.shareId === undefined);
    for (const e of whole) {
      // The allocator never hands out a device in use; checked so that a fault cannot double-allocate.
      if (this.allocatedState.holds(e.pool, e.device) || whole.filter((x) => x.pool === e.pool && x.device === e.device).length > 1)
        throw draError('INTERNAL', `device ${e.pool}/${e.device} would be allocated twice; nothing was changed`);
    }
    // One label, one result and one list of entries per claim.
    labels.forEach((claim, i) => {
      const entries = perClaim[i]!;
      for (const e of entries) this.allocatedState.add(e);
      this.held.set(claim, { claim, node: k, allocation: copyJson(results[i]!), entries });
    });
    this.changed(perClaim.flat());
  }

  /** Re-keys the nodes and classes whose devices the entries touch. */
  private changed(entries: readonly AllocatedEntry[]): void {
    // Each node once, in the order the entries name them (a pod's claims touch few); the classes of shared pools as a set, made only when a shared pool is touched.
    const nodes: number[] = [];
    let classes: Set<number> | undefined;
    for (const e of entries) {
      const k = this.nodeOfPool.get(e.pool);
      if (k !== undefined && !nodes.includes(k)) nodes.push(k);
      const shared = this.classesOfPool.get(e.pool);
      if (shared !== undefined) for (const c of shared) (classes ??= new Set()).add(c);
    }
    for (const k of nodes) {
      this.refreshNode(k);
      this.bases[k] = this.countersLeft[k] = undefined;
      this.supply?.changed(k);
      this.index.nodeChanged(k);
    }
    for (const c of classes ?? []) {
      for (const k of this.nodeClasses[c]!.members) {
        this.bases[k] = this.countersLeft[k] = undefined;
        this.supply?.changed(k);
      }
      if (this.refreshShared(c)) this.index.classChanged(c);
    }
  }

  /** Gives a claim's devices back: the claim (a ResourceClaim object) or its `namespace/name`. Returns where it was. */
  release(claim: unknown): DraClaimAllocation {
    let label: string;
    if (typeof claim === 'string') label = claim;
    else {
      const read = readResourceClaims(claim, 'claim');
      const only = read[0];
      if (read.length !== 1 || only === undefined) fail('INVALID_ARGUMENT', { origin: 'claim', path: '' }, 'one ResourceClaim or its "namespace/name"', `${read.length} claims`);
      label = claimLabel(only);
    }
    const held = this.held.get(label);
    if (held === undefined) throw draError('INVALID_ARGUMENT', `release: ResourceClaim/${label} is not allocated in this cluster`, { field: 'claim' });
    for (const e of held.entries) this.allocatedState.remove(e);
    this.held.delete(label);
    this.changed(held.entries);
    // The handle keeps nothing of it now: its copy goes to the caller.
    return { claim: label, node: this.nodes[held.node]!.name, allocation: held.allocation };
  }

  /** The claims held (in the order they were allocated) and every device, share and capacity in use. */
  allocated(): DraAllocatedState {
    const claims = [...this.held.values()].map((h) => ({ claim: h.claim, node: this.nodes[h.node]!.name, allocation: copyJson(h.allocation) }));
    return { claims, ...this.allocatedState.toRequestFields() };
  }
}

/** Reads a cluster's objects into a handle for scheduling and releasing claims (see DraCluster). */
export function createDraCluster(init: DraClusterInit): DraCluster {
  return new DraCluster(init);
}
