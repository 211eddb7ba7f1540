// Which nodes to try for a pod's claims, best first, without looking at every node. Per claim
// shape (the requests' classes, selectors, tolerations and counts) and node class, a tournament
// tree over the class's members (shared/tournament.ts, as the cluster state's indexes): a member's
// key is its node score when its free devices pass the shape's counts, −∞ when they cannot; ties go
// to node order. The root is the best node of the class; a node that changed replays its leaf only.
// The counts are a necessary condition (each request alone, and requests of one kind together,
// have enough free matching devices): the allocator still decides on the node.
import { popcount } from '../../shared/bits.js';
import { buildTree, leavesFor, replayAbove } from '../../shared/tournament.js';
import type { DraMode } from '../allocator/index.js';
import type { RequestModel } from '../model/index.js';
import type { Bits, NodeClass } from './node-classes.js';

/**
 * How nodes that can take a pod rank: most allocated first, least allocated first, node order only,
 * or (scored mode) by the scored objective of the allocation each node would make — its FGD
 * fragmentation first — among the FRAGMENTATION_CANDIDATES most allocated nodes in distinct states
 * (up to four times as many while the best allocation so far splits a claim across PCIe roots).
 */
export type NodeScore = 'pack' | 'spread' | 'first' | 'fragmentation';

/** The node scores, in documentation order. */
export const NODE_SCORES: readonly NodeScore[] = ['pack', 'spread', 'first', 'fragmentation'];

/**
 * The node score a handle uses when none is given, per mode: scored mode chooses the node by the
 * objective it chooses devices by; first-fit packs (the most allocated node first), as upstream.
 */
export const DEFAULT_NODE_SCORES: Readonly<Record<DraMode, NodeScore>> = { scored: 'fragmentation', 'first-fit': 'pack' };

/** nodeScore 'fragmentation': how many nodes (in distinct states, most allocated first) the allocator is run on per pod. */
export const FRAGMENTATION_CANDIDATES = 4;

/** Most claim shapes indexed at once; the least recently used is dropped past it. */
export const MAX_SHAPES = 64;

/** One alternative of a request, as counted. */
export interface CountedAlternative {
  request: RequestModel;
  /** Devices needed (ExactCount); for `All`, the count is not checked. */
  need: number;
  all: boolean;
  admin: boolean;
}

/** Free devices and scores of every node, kept by the cluster. */
export interface NodeStates {
  /** Where each node's words start in `free` (node count + 1 entries). */
  wordStart: Int32Array;
  /** Per node: its own devices another claim could still take alone. */
  free: Uint32Array;
  /** Per class: devices of pools several nodes see that could still be taken alone. */
  sharedFree: Bits[];
  /** Per node: the share of its own devices in use (0 … 1). */
  load: Float64Array;
}

/** The counts a member must pass, compiled for one class. */
interface Condition {
  never: boolean;
  /** Requests without alternatives, one entry per kind: together they need `need` of `bits`. */
  sums: Array<{ bits: Bits; need: number }>;
  /** firstAvailable requests: some alternative has enough. */
  anyOf: Array<Array<{ bits: Bits; need: number }>>;
}

interface Tree {
  /** Each member's key (−∞: cannot take the shape). */
  keys: Float64Array;
  /** Entry 1 is the root; leaves from `leaves`; member positions or -1. */
  win: Int32Array;
  leaves: number;
  dirty: boolean;
  /** The match of two entries (member positions or -1): the higher key wins, the lower position on equal keys. */
  match: (a: number, b: number) => number;
}

/** One claim shape's conditions and trees, per node class. */
export interface ShapeIndex {
  groups: CountedAlternative[][];
  conditions: Array<Condition | undefined>;
  trees: Array<Tree | undefined>;
  lastUse: number;
}

function countAll(bits: Bits): number {
  let n = 0;
  for (let w = 0; w < bits.length; w++) n += popcount(bits[w]!);
  return n;
}

/**
 * The index of one cluster: trees per (claim shape, node class). Indexes are in range by
 * construction: node numbers k < nodes (classOf, position, states), classes c < classes.length,
 * member positions m < the class's members (and a tree's leaves), mask words w < the class's words.
 */
export class NodeIndex {
  private readonly shapes = new Map<string, ShapeIndex>();
  private readonly position: Int32Array;
  private uses = 0;

  constructor(
    private readonly classes: readonly NodeClass[],
    private readonly classOf: Int32Array,
    private readonly states: NodeStates,
    private readonly score: NodeScore,
  ) {
    this.position = new Int32Array(classOf.length);
    for (const c of classes) c.members.forEach((k, m) => (this.position[k] = m));
  }

  /** The index of a claim shape (made on first use). `key` names the shape; `groups` are its requests' alternatives. */
  shape(key: string, groups: CountedAlternative[][]): ShapeIndex {
    let index = this.shapes.get(key);
    if (index === undefined) {
      if (this.shapes.size >= MAX_SHAPES) {
        let oldest: string | undefined;
        let at = Infinity;
        for (const [k, s] of this.shapes) if (s.lastUse < at) [oldest, at] = [k, s.lastUse];
        this.shapes.delete(oldest as string);
      }
      index = { groups, conditions: [], trees: [], lastUse: 0 };
      this.shapes.set(key, index);
    }
    index.lastUse = ++this.uses;
    return index;
  }

  /** How many claim shapes are indexed. */
  get size(): number {
    return this.shapes.size;
  }

  private condition(shape: ShapeIndex, c: number): Condition {
    let cond = shape.conditions[c];
    if (cond !== undefined) return cond;
    const nodeClass = this.classes[c]!;
    cond = { never: false, sums: [], anyOf: [] };
    const sums = new Map<Bits, { bits: Bits; need: number }>();
    for (const group of shape.groups) {
      const options: Array<{ bits: Bits; need: number }> = [];
      let always = false;
      for (const alt of group) {
        // `All` takes whatever matches on the node: not counted here. Admin access ignores what is in use.
        if (alt.all) always = true;
        else if (alt.admin) {
          if (countAll(nodeClass.countMask(alt.request)) >= alt.need) always = true;
        } else options.push({ bits: nodeClass.countMask(alt.request), need: alt.need });
      }
      if (always) continue;
      const only = options[0];
      if (only === undefined) cond.never = true;
      else if (group.length > 1) cond.anyOf.push(options);
      else if (only.bits.some((w, i) => (w & nodeClass.multiBits[i]!) !== 0)) {
        // A device taking several allocations may serve several requests: each request is counted alone.
        cond.sums.push({ ...only });
      } else {
        const sum = sums.get(only.bits);
        if (sum === undefined) sums.set(only.bits, { ...only });
        else sum.need += only.need;
      }
    }
    cond.sums.push(...sums.values());
    shape.conditions[c] = cond;
    return cond;
  }

  /** Free matching devices of node k (its own and the shared ones its class sees). */
  private count(bits: Bits, k: number, shared: Bits): number {
    const { wordStart, free } = this.states;
    const start = wordStart[k]!;
    let n = 0;
    for (let w = 0; w < bits.length; w++) n += popcount(bits[w]! & (free[start + w]! | shared[w]!));
    return n;
  }

  /** Node k's key for a shape: its score when its free devices pass the counts, else −∞. */
  private key(cond: Condition, k: number): number {
    if (cond.never) return -Infinity;
    const shared = this.states.sharedFree[this.classOf[k]!]!;
    for (const s of cond.sums) if (this.count(s.bits, k, shared) < s.need) return -Infinity;
    for (const options of cond.anyOf) if (!options.some((o) => this.count(o.bits, k, shared) >= o.need)) return -Infinity;
    const load = this.states.load[k]!;
    return this.score === 'pack' || this.score === 'fragmentation' ? load : this.score === 'spread' ? -load : 0;
  }

  private tree(shape: ShapeIndex, c: number): Tree {
    let tree = shape.trees[c];
    if (tree !== undefined && !tree.dirty) return tree;
    const members = this.classes[c]!.members;
    const cond = this.condition(shape, c);
    const leaves = leavesFor(members.length);
    if (tree === undefined) {
      const keys = new Float64Array(members.length);
      // Members are in node order: on equal keys the lower position wins.
      const match = (a: number, b: number): number => (a < 0 ? b : b < 0 ? a : keys[b]! > keys[a]! ? b : a);
      tree = { keys, win: new Int32Array(2 * leaves), leaves, dirty: false, match };
    }
    tree.win.fill(-1);
    for (let m = 0; m < members.length; m++) {
      const key = this.key(cond, members[m]!);
      tree.keys[m] = key;
      if (key > -Infinity) tree.win[leaves + m] = m;
    }
    buildTree(tree.win, leaves, tree.match);
    tree.dirty = false;
    shape.trees[c] = tree;
    return tree;
  }

  private setLeaf(tree: Tree, m: number, present: boolean): void {
    const t = tree.leaves + m;
    tree.win[t] = present && tree.keys[m]! > -Infinity ? m : -1;
    replayAbove(tree.win, t, tree.match);
  }

  /** The best node for the shape over every class (−1: none can pass the counts), skipping excluded ones and the classes in `skip`. */
  best(shape: ShapeIndex, skip?: ReadonlySet<number>): number {
    let best = -1;
    let bestKey = -Infinity;
    for (let c = 0; c < this.classes.length; c++) {
      const members = this.classes[c]!.members;
      if (members.length === 0 || skip?.has(c) === true) continue;
      const tree = this.tree(shape, c);
      const m = tree.win[1]!;
      if (m < 0) continue;
      const k = members[m]!;
      const key = tree.keys[m]!;
      if (best < 0 || key > bestKey || (key === bestKey && k < best)) [best, bestKey] = [k, key];
    }
    return best;
  }

  /** Whether node k's free devices pass the shape's counts (the allocator still decides). */
  passes(shape: ShapeIndex, k: number): boolean {
    return this.key(this.condition(shape, this.classOf[k]!), k) > -Infinity;
  }

  /** Leaves node k out of the shape's tree until `include` (a node tried and found unable). */
  exclude(shape: ShapeIndex, k: number): void {
    this.setLeaf(this.tree(shape, this.classOf[k]!), this.position[k]!, false);
  }

  /** Puts an excluded node back. */
  include(shape: ShapeIndex, k: number): void {
    const tree = shape.trees[this.classOf[k]!];
    if (tree !== undefined && !tree.dirty) this.setLeaf(tree, this.position[k]!, true);
  }

  /** Node k's free devices or load changed: its key in every built tree of its class. */
  nodeChanged(k: number): void {
    const c = this.classOf[k]!;
    const m = this.position[k]!;
    for (const shape of this.shapes.values()) {
      const tree = shape.trees[c];
      if (tree === undefined || tree.dirty) continue;
      tree.keys[m] = this.key(this.condition(shape, c), k);
      this.setLeaf(tree, m, true);
    }
  }

  /** The shared devices class c sees changed: every member's key may have, so its trees are rebuilt on next use. */
  classChanged(c: number): void {
    for (const shape of this.shapes.values()) {
      const tree = shape.trees[c];
      if (tree !== undefined) tree.dirty = true;
    }
  }
}
