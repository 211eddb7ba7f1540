// openEngine: one API over either backend's kernels.

import { type MultiNodePlanner, multiNodePlanner } from './cluster/multi-node.js';
import { type ClusterInit, ClusterState } from './cluster/state.js';
import { type AlignedRequest, type AlignedResult, allocateAligned } from './devices/aligned.js';
import { naturalSort } from './devices/natural-sort.js';
import { allocateReplicas, type ReplicaRequest, type ReplicaResult } from './devices/replicas.js';
import { type SplitRequest, type SplitResult, splitDevices } from './devices/split.js';
import { allocateClaims, createDraCluster, type DraAllocateRequest, type DraAllocateResult, type DraCluster, type DraClusterInit } from './dra/index.js';
import type { Backend, Kernels } from './kernels.js';
import { type PlacementPlan, type PlacementRequest, type PreparedNode, type PreparedPlacementRequest, type PrepareRequest, planPlacement, prepareNode } from './placement/index.js';
import { AllocationError } from './shared/errors.js';
import { describeValue, keysOf, readInput, rejectUnknownKeys } from './shared/validate.js';
import { type SimulateAsyncOptions, type SimulateRequest, type SimulationRun, simulateFleet, simulateFleetAsync } from './simulation/index.js';
import { type CoreBuild, loadCore, type WasmCore } from './wasm/core.js';
import { createWasmKernels } from './wasm/index.js';

export type { Backend } from './kernels.js';

/**
 * A compiled WebAssembly.Module (from WebAssembly.compile, or one a worker received by postMessage):
 * typed by its tag so a Node project needs no DOM library to type-check against this package.
 */
export interface CompiledWasm {
  readonly [Symbol.toStringTag]?: string;
}

/** Options of createEngine. */
export type EngineOptions = {
  /** 'wasm' (default): the WebAssembly core; 'ts': the pure-TypeScript baseline. */
  backend?: Backend;
  /** Which wasm build to load (default 'release'; 'debug' keeps bounds checks and names). */
  build?: CoreBuild;
  /**
   * The core to use instead of the packaged build/release.wasm: its bytes, a URL (or a URL string)
   * to load them from, or a compiled WebAssembly.Module, which is instantiated without compiling
   * again (workers and edge runtimes share one module).
   */
  wasm?: ArrayBuffer | ArrayBufferView | URL | string | CompiledWasm;
};

const ENGINE_OPTION_KEYS = keysOf<EngineOptions>()(['backend', 'build', 'wasm']);

/** Options of openPlacementEngine: openEngine's, and whether its cluster states plan across nodes. */
export type PlacementEngineOptions = EngineOptions & {
  /**
   * `multiNodePlanner` (from gpualloc/placement): its cluster states also plan models across nodes,
   * as openEngine's do. Absent (the default, so a page that does not need it does not ship it): they
   * plan on one node at a time (ClusterState.plan says so where it matters).
   */
  multiNode?: MultiNodePlanner;
};

const PLACEMENT_ENGINE_OPTION_KEYS = keysOf<PlacementEngineOptions>()(['backend', 'build', 'wasm', 'multiNode']);

/**
 * The engine without Kubernetes DRA and the fleet simulator: device split, replicas, aligned picks,
 * model placement and cluster states (pod schedulers included), over one backend. What
 * openPlacementEngine (`gpualloc/placement`) returns: a page that only places models ships only
 * this. Each method reads its input once into engine-owned data (validate.ts readInput), so hostile
 * getters, proxies and cycles are AllocationErrors and a caller's object cannot change under the
 * engine; prepared nodes (prepare) are engine-owned already.
 */
export class PlacementEngine {
  /** Which backend answers. */
  readonly backend: Backend;
  /** The kernels in use (exposed for benchmarks and parity tests). */
  readonly kernels: Kernels;
  /** The WebAssembly core, when backend is 'wasm'. */
  readonly core?: WasmCore;
  /** What makes this engine's cluster states plan across nodes (undefined: one node at a time). */
  private readonly multiNode: MultiNodePlanner | undefined;

  /** Use openPlacementEngine. */
  constructor(kernels: Kernels, core?: WasmCore, multiNode?: MultiNodePlanner) {
    this.backend = kernels.backend;
    this.kernels = kernels;
    if (core !== undefined) this.core = core;
    this.multiNode = multiNode;
  }

  /** IDs in natural order (cuda1, cuda2, cuda10). */
  naturalSort(ids: string[]): string[] {
    return naturalSort(this.kernels, readInput('ids', ids) as string[]);
  }

  /** Splits a host's devices between agents (Backend.AI multi-agent device split). */
  splitDevices(request: SplitRequest): SplitResult {
    return splitDevices(this.kernels, readInput('request', request, false) as SplitRequest);
  }

  /** Picks replicas, MIG slices or plain devices for a container (device plugin policies). */
  allocateReplicas(request: ReplicaRequest): ReplicaResult {
    return allocateReplicas(this.kernels, readInput('request', request, false) as ReplicaRequest);
  }

  /** Picks whole GPUs by topology (besteffort or topology policy). */
  allocateAligned(request: AlignedRequest): AlignedResult {
    return allocateAligned(this.kernels, readInput('request', request, false) as AlignedRequest);
  }

  /**
   * Every viable placement of a model on a node's GPUs, ranked, with per-GPU rejections. `gpus` and
   * `topology` are validated on every call; a request with `node` (a handle from prepare) skips that.
   */
  planPlacement(request: PlacementRequest | PreparedPlacementRequest): PlacementPlan {
    // Slots are read field by field once while validated (validateSlot), not copied first.
    return planPlacement(this.kernels, readInput('request', request, false, 'slots') as PlacementRequest | PreparedPlacementRequest);
  }

  /**
   * Validates and packs a node's GPUs and topology once; the handle goes in planPlacement requests
   * as `node` in place of `gpus` and `topology`, which then are neither copied nor validated again.
   * Use it when planning repeatedly on the same hardware (a service, a page); plain objects suit
   * one-off calls. The handle is immutable: a node whose GPUs change needs a new one.
   */
  prepare(request: PrepareRequest): PreparedNode {
    return prepareNode(readInput('request', request, false) as PrepareRequest);
  }

  /** A mutable state of one or many nodes for plan / commit / release (across nodes when the engine has the multi-node planner). */
  createClusterState(init: ClusterInit): ClusterState {
    return ClusterState.create(this.kernels, readInput('init', init, false) as ClusterInit, this.multiNode);
  }

  /** Restores a ClusterState from its toJSON() output (object or JSON text). */
  restoreClusterState(json: unknown): ClusterState {
    return ClusterState.restore(this.kernels, readInput('state', json), this.multiNode);
  }

  /**
   * Test-only hook: makes the WebAssembly core trap (0: unreachable, 1: out-of-bounds load, 2: out
   * of memory) to exercise recovery. Throws AllocationError('INTERNAL'); the next call works.
   */
  _debugTrap(kind: 0 | 1 | 2): never {
    if (this.core === undefined) throw new AllocationError('INVALID_ARGUMENT', 'backend: the ts backend has no WebAssembly core to trap', { field: 'backend' });
    const core = this.core;
    core.call(() => core.exports.debugTrap(kind));
    throw new AllocationError('INTERNAL', `debugTrap(${kind}) did not trap`);
  }

  /** WebAssembly memory in 64 KiB pages (0 on the ts backend). */
  memoryPages(): number {
    return this.kernels.memoryPages();
  }
}

/** The allocation engine: every capability over one backend (PlacementEngine's, the fleet simulator and Kubernetes DRA). */
export class Engine extends PlacementEngine {
  /** Use openEngine. */
  constructor(kernels: Kernels, core?: WasmCore) {
    super(kernels, core, multiNodePlanner);
  }

  /**
   * Replays a pod list on a fleet of nodes by the FGD protocol under one policy (src/fleet/), holding
   * the event loop until it ends (hundreds of ms on thousands of nodes): scripts and workers. A
   * service or a page uses simulateFleetAsync.
   */
  simulateFleet(request: SimulateRequest, progress?: (done: number, total: number) => void): SimulationRun {
    return simulateFleet(this.kernels, readInput('request', request, false) as SimulateRequest, progress);
  }

  /**
   * simulateFleet without holding the event loop: runs in slices of at most 20 ms, reports progress
   * through `onProgress`, and rejects with the signal's reason (an AbortError) at the next pod once
   * `signal` aborts. The same result as simulateFleet.
   */
  simulateFleetAsync(request: SimulateRequest, options: SimulateAsyncOptions = {}): Promise<SimulationRun> {
    try {
      return simulateFleetAsync(this.kernels, readInput('request', request, false) as SimulateRequest, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Allocates Kubernetes DRA ResourceClaims on one node as the scheduler's structured allocator
   * does (src/dra/): one AllocationResult per claim, or none with the reason. The same on both backends.
   */
  allocateClaims(request: DraAllocateRequest): DraAllocateResult {
    return allocateClaims(readInput('request', request, false) as DraAllocateRequest);
  }

  /**
   * Reads a cluster's DeviceClasses, ResourceSlices and Nodes once into a handle that schedules
   * pods' claims across the nodes as kube-scheduler does (filter, score, allocate on the best node)
   * and keeps what is allocated: `.schedule(claims)`, `.release(claim)`, `.allocated()` (src/dra/cluster/).
   */
  createDraCluster(init: DraClusterInit): DraCluster {
    // The slices (the bulk of a cluster) are not copied first: the strict readers read each field
    // once into values of their own, and keep nothing of the input.
    return createDraCluster(readInput('init', init, false, 'slices') as DraClusterInit);
  }
}

/**
 * Opens an engine (asynchronous: the wasm core is compiled once per process and instantiated per
 * engine). Factories that return a promise are named open…, those that return at once create….
 */
export async function openEngine(options: EngineOptions = {}): Promise<Engine> {
  const { kernels, core } = await kernelsFor(options, ENGINE_OPTION_KEYS);
  return new Engine(kernels, core);
}

/** @deprecated The same as openEngine (factories that return a promise are named open…); kept for one release. */
export const createEngine: (options?: EngineOptions) => Promise<Engine> = openEngine;

/**
 * Opens a PlacementEngine (no DRA, no fleet simulator): the same answers as openEngine, for pages and
 * services that ship only what they use (`gpualloc/placement`). Its cluster states plan across nodes
 * only with `multiNode: multiNodePlanner`.
 */
export async function openPlacementEngine(options: PlacementEngineOptions = {}): Promise<PlacementEngine> {
  const { kernels, core, multiNode } = await kernelsFor(options, PLACEMENT_ENGINE_OPTION_KEYS);
  return new PlacementEngine(kernels, core, multiNode);
}

/** The kernels (and core) that engine options ask for, and the multi-node planner they hand over. */
async function kernelsFor(options: PlacementEngineOptions, keys: readonly string[]): Promise<{ kernels: Kernels; core?: WasmCore; multiNode?: MultiNodePlanner }> {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw AllocationError.at('INVALID_ARGUMENT', 'options', `expected an object, got ${describeValue(options)}`);
  let backend: unknown, build: unknown, wasm: EngineOptions['wasm'], multiNode: unknown;
  try {
    rejectUnknownKeys('options', options as Record<string, unknown>, keys);
    ({ backend = 'wasm', build = 'release', wasm, multiNode } = options);
    if (multiNode !== undefined && (multiNode === null || typeof (multiNode as Partial<MultiNodePlanner>).spansOver !== 'function')) {
      throw AllocationError.at('INVALID_ARGUMENT', 'options.multiNode', `expected multiNodePlanner, got ${describeValue(multiNode)}`);
    }
  } catch (cause) {
    if (cause instanceof AllocationError) throw cause;
    throw AllocationError.at('INVALID_ARGUMENT', 'options', `reading a field threw (${cause instanceof Error ? cause.message : 'an unreadable error'})`, { cause });
  }
  const planner = multiNode as MultiNodePlanner | undefined;
  if (backend === 'ts') {
    // Loaded only when asked for: a page on the wasm backend (the default) does not download the
    // TypeScript kernels (bundlers put them in a chunk of their own).
    const { createTsKernels } = await import('./baseline/index.js');
    return { kernels: createTsKernels(), ...(planner !== undefined ? { multiNode: planner } : {}) };
  }
  if (backend !== 'wasm') throw AllocationError.at('INVALID_ARGUMENT', 'options.backend', `expected 'wasm' or 'ts', got ${describeValue(backend)}`);
  if (build !== 'release' && build !== 'debug') throw AllocationError.at('INVALID_ARGUMENT', 'options.build', `expected 'release' or 'debug', got ${describeValue(build)}`);
  const core = await loadCore({ build, wasm });
  return { kernels: createWasmKernels(core), core, ...(planner !== undefined ? { multiNode: planner } : {}) };
}
