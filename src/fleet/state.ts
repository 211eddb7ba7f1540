// A fleet's mutable state over the fleet kernels: the nodes' remaining CPU, memory and per-GPU milli,
// the GPU-pod tags per node, every node's fragmentation (recomputed only for the node a pod lands on),
// and a score cache per (node, pod shape) that a commit clears for its node.
import { AllocationError } from '../errors.js';
import type { FleetMemory } from './kernels.js';
import * as L from './layout.js';
import { modelBits, modelMask, type NodeSpec, type Pod } from './types.js';
import type { Kernels } from '../kernels.js';
import { allocateAligned } from '../aligned.js';
import type { TypicalPod } from './typical.js';
import { policyByName } from './policies/index.js';
import { cleanRemainders, deadHole } from './policies/ours.js';
import type { FleetPolicy } from './policies/types.js';

export type { NodeSpec };

/** Where a pod went: node index and GPU indices (empty for a CPU-only pod). */
export type Placement = { node: number; gpus: number[] };

/** The shape key of the score cache: memory and allowed models never change a score. */
function shapeKey(p: Pod): string {
  return `${p.cpu},${p.milli},${p.gpus}`;
}

/** Fleet state for one policy. */
export class Fleet {
  readonly policy: FleetPolicy;
  readonly nodes: readonly NodeSpec[];
  private readonly kernels: Kernels;
  private readonly memory: FleetMemory;
  private readonly bits: Map<string, number>;
  private readonly classes = new Map<string, number>();
  private readonly maxGpus: number;
  private closed = false;

  /**
   * @param nodes validated nodes, in their list order (GPU indices are per node, 0-based)
   * @param typical the typical-pod distribution of the fragmentation measure
   * @param ranks each node's tie-break rank (a permutation; the smallest rank wins a tie)
   * @param shapes pods whose shapes get a score-cache column (others are scored afresh each time)
   */
  constructor(kernels: Kernels, policy: string, nodes: readonly NodeSpec[], typical: readonly TypicalPod[], ranks: readonly number[], shapes: readonly Pod[] = []) {
    this.policy = policyByName(policy);
    this.nodes = nodes;
    this.kernels = kernels;
    this.bits = modelBits(nodes);
    for (const p of shapes) {
      const k = shapeKey(p);
      if (!this.classes.has(k)) this.classes.set(k, this.classes.size);
    }
    this.maxGpus = Math.max(0, ...nodes.map((n) => n.gpus));
    const { ints, floats, header } = L.fleetLayout(nodes.length, this.maxGpus, typical.length, this.classes.size);
    this.memory = kernels.fleetAlloc(ints, floats);
    const s = this.memory.ints();
    const f = this.memory.floats();
    s.set(header, 0);
    s[L.H_DEAD] = deadHole(shapes);
    s.set(cleanRemainders(typical, s[L.H_DEAD]), header[L.H_CLEAN_AT]);
    const stride = header[L.H_STRIDE];
    nodes.forEach((n, i) => {
      const base = header[L.H_NODE_AT] + i * stride;
      s[base + L.N_CPU] = n.cpu;
      s[base + L.N_MEM] = n.memory;
      s[base + L.N_MODEL] = n.gpus > 0 ? 1 << (this.bits.get(n.model) as number) : 0;
      s[base + L.N_GPUS] = n.gpus;
      s[base + L.N_RANK] = ranks[i];
      const bit = s[base + L.N_MODEL];
      s[base + L.N_WANTED] = bit !== 0 && typical.some((t) => t.gpus > 0 && t.models.length > 0 && (modelMask(t.models, this.bits) & bit) !== 0) ? 1 : 0;
      const gAt = base + L.N_TAGS + this.maxGpus + 1;
      for (let g = 0; g < n.gpus; g++) s[gAt + g] = 1000;
    });
    typical.forEach((t, i) => {
      const q = header[L.H_TYP_AT] + i * L.T_FIELDS;
      s[q] = t.cpu;
      s[q + 1] = t.milli;
      s[q + 2] = t.gpus;
      s[q + 3] = modelMask(t.models, this.bits);
      f[header[L.H_F_WEIGHT] + i] = t.weight;
    });
    f.set(L.fgdThresholds(), header[L.H_F_THR]);
    kernels.fleetInit(this.memory);
  }

  /** Places one pod by the policy; null when no node fits. u1, u2: the random policy's draws. */
  place(pod: Pod, u1 = 0, u2 = 0): Placement | null {
    if (this.closed) throw new AllocationError('INVALID_ARGUMENT', 'fleet: used after close()', { field: 'fleet' });
    const cls = this.classes.get(shapeKey(pod)) ?? -1;
    const mask = pod.gpus === 0 ? -1 : modelMask(pod.models, this.bits);
    const node = this.kernels.fleetPick(this.memory, this.policy.id, cls, pod.cpu, pod.memory, pod.gpus, pod.milli, mask, u1, u2);
    if (node < 0) return null;
    const s = this.memory.ints();
    const out = s[L.H_OUT_AT];
    let gpus: number[] = [];
    for (let k = 1; k <= s[out]; k++) gpus.push(s[out + k]);
    const topology = this.nodes[node].aligned;
    if (topology !== undefined && gpus.length > 0 && this.policy.gpuChoice !== 'random') {
      gpus = this.topologyChoice(node, topology, gpus);
      // The topology search may grow the wasm memory: a fresh view, not `s`.
      const now = this.memory.ints();
      for (let k = 0; k < gpus.length; k++) now[out + 1 + k] = gpus[k];
    }
    this.kernels.fleetCommit(this.memory, node, pod.cpu, pod.memory, pod.gpus, pod.milli);
    return { node, gpus };
  }

  /**
   * GPU choice on a node with a topology. Every policy here scores a node by its multiset of free
   * milli, so wholly free GPUs are interchangeable for the score: whole GPUs (several, or one for a
   * whole-GPU pod, or one a share opens) are picked among the wholly free ones by the topology search
   * (allocateAligned, policy 'topology': the best-connected set that leaves the best-connected rest;
   * for one GPU, the least connected to the other free ones). A share on a partly used GPU stays where
   * the policy put it.
   */
  private topologyChoice(node: number, topology: NonNullable<NodeSpec['aligned']>, gpus: number[]): number[] {
    const free = this.nodeState(node).gpus;
    if (gpus.some((g) => free[g] !== 1000)) return gpus;
    const available: number[] = [];
    for (let g = 0; g < free.length; g++) if (free[g] === 1000) available.push(g);
    const result = allocateAligned(this.kernels, { topology: topology.topology, available, size: gpus.length, policy: 'topology' });
    return result.devices.length === gpus.length ? result.devices : gpus;
  }

  /** Σ over nodes of Frag(node), in milli-GPU. */
  fragmentation(): number {
    const f = this.memory.floats();
    let sum = 0;
    for (let n = 0; n < this.nodes.length; n++) sum += f[n];
    return sum;
  }

  /** Frag of node n, in milli-GPU. */
  nodeFragmentation(n: number): number {
    return this.memory.floats()[n];
  }

  /** Node n's remaining CPU (milli), memory (MiB) and free milli per GPU. */
  nodeState(n: number): { cpu: number; memory: number; gpus: number[] } {
    const s = this.memory.ints();
    const base = s[L.H_NODE_AT] + n * s[L.H_STRIDE];
    const gAt = base + L.N_TAGS + this.maxGpus + 1;
    return { cpu: s[base + L.N_CPU], memory: s[base + L.N_MEM], gpus: Array.from(s.subarray(gAt, gAt + s[base + L.N_GPUS])) };
  }

  /** Releases the kernel memory. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.free();
  }
}

