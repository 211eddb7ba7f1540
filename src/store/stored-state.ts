// A ClusterState kept in a store: plan is local (the in-memory ClusterState, same speed), while
// commit, release and markStale go through the store, which arbitrates between writers.

import type { ClusterPlanRequest, ClusterState, ClusterStateJSON, ClusterStateLike, GpuUsage } from '../cluster/state.js';
import type { PlacementEngine } from '../engine.js';
import type { FleetPod, FleetPolicyName, PodNodeView, PodPlan, PodScheduler, PodSchedulerOptions } from '../fleet/index.js';
import type { PlacementOption, PlacementPlan, Slot } from '../placement/index.js';
import { ASYNC_DISPOSE, DISPOSE } from '../shared/dispose.js';
import { AllocationError, type Reason } from '../shared/errors.js';
import { fail, keysOf, readInput, rejectUnknownKeys, requireInteger, requireObject } from '../shared/validate.js';
import { signalOf } from './options.js';
import type { ClusterStore, StoreCommitOptions, StoredNode, StoreOutcome, StoreReleaseOptions } from './types.js';

/** Options of openClusterState. */
export type OpenOptions = {
  /** Follow other writers' changes as they happen (store.watch, e.g. PostgreSQL LISTEN/NOTIFY); default true. Without it the state refreshes on conflict. */
  watch?: boolean;
  /**
   * This replica's number (default: random). After a conflict, commitWithRetry takes option
   * (replica + attempt) mod count of the fresh plan instead of the first, so replicas that lost the
   * same race spread over the good options instead of racing for the same GPUs again. Give it for
   * reproducible retries.
   */
  replica?: number;
};

const OPEN_KEYS = keysOf<OpenOptions>()(['watch', 'replica']);

/**
 * Options of commitWithRetry: attempts (default 5, each a fresh plan), the new slot's ID and
 * lastActivity, the request ID (one for every attempt: see StoreCommitOptions), `signal` (aborts before the next
 * attempt and cuts the store's waits short: rejects with the signal's reason), and onPlan, called
 * with each plan before its option is committed (to annotate or log it).
 */
export type RetryOptions = StoreCommitOptions & { attempts?: number; onPlan?: (plan: PlacementPlan) => void };

/**
 * What commitWithRetry did: the last plan, the committed slot's ID and which of the plan's options it
 * is (absent when nothing was committed, with `reason`), the attempts made and the conflicts met.
 * `replayed`: the request ID had been committed before (the slot is that commit's; `option` is absent).
 */
export type RetryResult = RetryLoopResult<PlacementPlan>;

/** Options of StoredPodScheduler.commitWithRetry: attempts (default 5, each a fresh plan), the new slot's ID and lastActivity, the request ID, and `signal` (aborts between attempts and the store's waits, rejecting with the signal's reason). */
export type PodRetryOptions = StoreCommitOptions & { attempts?: number };

/** The keys both commitWithRetry take (RetryOptions adds onPlan). */
const RETRY_KEYS = keysOf<PodRetryOptions>()(['attempts', 'id', 'lastActivity', 'requestId', 'signal']);

/** What StoredPodScheduler.commitWithRetry did: the last plan, the committed slot's ID (absent with `reason`), the attempts and conflicts, and `replayed` as in RetryResult. */
export type PodRetryResult = { plan: PodPlan; attempts: number; conflicts: number } & (
  | { committed: string; replayed?: true; reason?: undefined }
  | { committed?: undefined; replayed?: undefined; reason: Reason }
);

/** Default attempts of commitWithRetry. */
export const DEFAULT_ATTEMPTS = 5;

/**
 * Opens the state held by `store`: loads it into a local ClusterState (through `engine`, so plans
 * run on its backend) and, where the store can, follows other writers' changes.
 */
export async function openClusterState(engine: PlacementEngine, store: ClusterStore, options: OpenOptions = {}): Promise<StoredClusterState> {
  return StoredClusterState.open(engine, store, options);
}

/**
 * ClusterState's API over a store. `plan`, `listSlots`, `usage`, `nodes` and `toJSON` read the local
 * copy; `commit`, `release` and `markStale` are async and go through the store. A commit the store
 * refuses throws CONFLICT after the fresh state of its node is loaded, so the next plan sees it.
 */
export class StoredClusterState implements ClusterStateLike {
  /** The store this state lives in. */
  readonly store: ClusterStore;
  private local: ClusterState;
  private readonly engine: PlacementEngine;
  private readonly replica: number;
  private readonly versions = new Map<string, number>();
  private unwatch: (() => Promise<void>) | undefined;
  /** Nodes another writer changed, waiting to be read again. */
  private readonly behind = new Set<string>();
  private refreshing: Promise<void> | undefined;
  /** Set when a node's news could not be applied in place (a slot ID moved between nodes): the next store call reloads everything first. */
  private reload = false;
  /** Pod schedulers opened on this state (closed with it), held weakly: a dropped one is not kept alive by the state. */
  private readonly schedulers = new Set<WeakRef<StoredPodScheduler>>();

  /** Use openClusterState. */
  constructor(engine: PlacementEngine, store: ClusterStore, local: ClusterState, versions: Record<string, number>, replica = 0) {
    this.engine = engine;
    this.replica = replica;
    this.store = store;
    this.local = local;
    for (const [id, v] of Object.entries(versions)) this.versions.set(id, v);
  }

  /** What openClusterState does (the same function). */
  static async open(engine: PlacementEngine, store: ClusterStore, options: OpenOptions = {}): Promise<StoredClusterState> {
    const opts = requireObject('options', options);
    rejectUnknownKeys('options', opts, OPEN_KEYS);
    if (opts.watch !== undefined && typeof opts.watch !== 'boolean') fail('INVALID_ARGUMENT', 'options.watch', 'a boolean', opts.watch);
    const snapshot = await store.load();
    const replica = opts.replica === undefined ? Math.floor(Math.random() * 0x40000000) : requireInteger('options.replica', opts.replica, 0, 0x3fffffff);
    const state = new StoredClusterState(engine, store, engine.restoreClusterState(snapshot.state), snapshot.versions, replica);
    if (opts.watch !== false && store.watch !== undefined) await state.watch();
    return state;
  }

  /** Starts following the store's change notifications. */
  private async watch(): Promise<void> {
    this.unwatch = await this.store.watch!((node, version) => {
      if (node === '') {
        // Anything may have changed (the listener reconnected after missing news, or a node ID too
        // long to notify): everything is read again, now, and before the next change if that fails.
        this.reload = true;
        this.refreshing ??= this.catchUp();
        return;
      }
      const known = this.versions.get(node);
      if (known === undefined || version <= known) return;
      this.behind.add(node);
      this.refreshing ??= this.catchUp();
    });
  }

  private async catchUp(): Promise<void> {
    try {
      while (this.reload || this.behind.size > 0) {
        if (this.reload) {
          this.behind.clear();
          await this.refresh();
          continue;
        }
        const ids = [...this.behind];
        this.behind.clear();
        this.apply(await this.store.loadNodes(ids));
      }
    } catch {
      // A failed refresh only delays news: the next commit re-validates in the store and refreshes on conflict.
    } finally {
      this.refreshing = undefined;
    }
  }

  /** Waits until notified changes are loaded (a no-op without watch). */
  async settled(): Promise<void> {
    while (this.refreshing !== undefined) await this.refreshing;
  }

  /** Ranked options from the local copy (fast, no I/O); the store re-validates at commit. */
  plan(request: ClusterPlanRequest): PlacementPlan {
    return this.local.plan(request);
  }

  /**
   * Commits an option through the store; returns the new slot's ID. Throws CONFLICT (nothing
   * changed anywhere) when another writer got there first; the fresh state is loaded by then.
   */
  async commit(option: PlacementOption, options: StoreCommitOptions = {}): Promise<string> {
    return (await this.commitOutcome(option, options)).id!;
  }

  /** commit's store outcome (the slot's ID, and `replayed` when the request ID had been committed before). */
  private async commitOutcome(option: PlacementOption, options: StoreCommitOptions): Promise<StoreOutcome> {
    if (this.reload) await this.refresh();
    return this.settle(await this.guard(this.store.commit(option, options)));
  }

  /** A store call; when the store cannot be reached the local copy may have missed news, so the next call reloads it. */
  private async guard<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof AllocationError && error.code === 'STORE_UNAVAILABLE') this.reload = true;
      throw error;
    }
  }

  /**
   * Plans and commits the best option, re-planning on CONFLICT up to `attempts` times (a retry
   * takes an option by the replica number, see OpenOptions.replica). Nothing
   * fitting (or every attempt losing to another writer) is a result with `reason`, not an error.
   */
  async commitWithRetry(request: ClusterPlanRequest, options: RetryOptions = {}): Promise<RetryResult> {
    const { opts, attempts, commitOptions } = retryOptions(options, ['onPlan']);
    if (opts.onPlan !== undefined && typeof opts.onPlan !== 'function') fail('INVALID_ARGUMENT', 'options.onPlan', 'a function', opts.onPlan);
    const onPlan = opts.onPlan as RetryOptions['onPlan'];
    return this.retry(
      attempts,
      commitOptions,
      () => {
        const plan = this.local.plan(request);
        onPlan?.(plan);
        return plan;
      },
      (attempt, conflicts, count) => (conflicts === 0 ? 0 : (this.replica + attempt) % count),
    );
  }

  /**
   * The loop of both commitWithRetry: up to `attempts` times, catches up, plans, and commits the
   * option `pick` chooses; CONFLICT re-plans (a second one in a row reloads everything).
   */
  private async retry<P extends { options: PlacementOption[]; reason?: Reason }>(
    attempts: number,
    commitOptions: StoreCommitOptions,
    plan: () => P,
    pick: (attempt: number, conflicts: number, count: number) => number,
  ): Promise<RetryLoopResult<P>> {
    let conflicts = 0;
    for (let attempt = 1; ; attempt++) {
      // Aborted: the caller's AbortError before the next attempt (the store's own waits end at once too).
      commitOptions.signal?.throwIfAborted();
      if (this.reload) await this.refresh();
      const p = plan();
      if (p.options.length === 0) return { plan: p, attempts: attempt, conflicts, reason: p.reason as Reason };
      const chosen = pick(attempt, conflicts, p.options.length);
      try {
        const outcome = await this.commitOutcome(p.options[chosen]!, commitOptions); // pick returns an index below count
        if (outcome.replayed === true) return { plan: p, committed: outcome.id!, attempts: attempt, conflicts, replayed: true };
        return { plan: p, committed: outcome.id!, attempts: attempt, conflicts, option: chosen };
      } catch (error) {
        if (!(error instanceof AllocationError) || error.code !== 'CONFLICT') throw error;
        conflicts++;
        if (attempt >= attempts) {
          return { plan: p, attempts: attempt, conflicts, reason: { code: 'CONFLICT', message: `every one of ${attempts} attempts lost to another writer; the last: ${error.message}` } };
        }
        // The conflict refreshed one node; a second one in a row says others moved too: read everything.
        if (conflicts >= 2) await this.refresh();
      }
    }
  }

  /**
   * Removes a slot through the store (`requestId`: see StoreReleaseOptions). With `idleBefore`, only
   * when the store holds no activity of it since that time (else CONFLICT, nothing changed; the
   * node's fresh slots are loaded).
   */
  async release(slotId: string, options: StoreReleaseOptions = {}): Promise<void> {
    if (this.reload) await this.refresh();
    this.settle(await this.guard(this.store.release(slotId, options)));
  }

  /** Records activity of a slot through the store at `at` (ms since the epoch; default now), as ClusterState.touch. */
  async touch(slotId: string, at: number = Date.now()): Promise<void> {
    if (this.reload) await this.refresh();
    this.settle(await this.guard(this.store.touch(slotId, at)));
  }

  /** Marks a slot stale (or not) through the store. */
  async markStale(slotId: string, stale = true): Promise<void> {
    if (this.reload) await this.refresh();
    this.settle(await this.guard(this.store.markStale(slotId, stale)));
  }

  /** Reads the whole state from the store again. */
  async refresh(): Promise<void> {
    const snapshot = await this.store.load();
    this.local = this.engine.restoreClusterState(snapshot.state);
    this.reload = false;
    this.versions.clear();
    for (const [id, v] of Object.entries(snapshot.versions)) this.versions.set(id, v);
  }

  /** Copies of the slots (local copy), of one node or of all. */
  listSlots(node?: string): Slot[] {
    return this.local.listSlots(node);
  }

  /** Allocated memory of every GPU (local copy). */
  usage(): GpuUsage[] {
    return this.local.usage();
  }

  /** Node IDs in the order they were given. */
  nodes(): string[] {
    return this.local.nodes();
  }

  /** The local copy as ClusterState.toJSON writes it. */
  toJSON(): ClusterStateJSON {
    return this.local.toJSON();
  }

  /** The version of a node this state has loaded (bumped by the store on every change of the node). */
  version(node: string): number | undefined {
    return this.versions.get(node);
  }

  /**
   * A pod scheduler (ClusterState.podScheduler: CPU, host memory, a GPU share or whole GPUs, by a fleet
   * policy) over this state's local copy, kept current as the copy changes: commits and releases,
   * other writers' changes as they are loaded, and whole reloads (after which it is rebuilt). Plan
   * with it and commit its options through `commit` (or use its `commitWithRetry`); the store
   * re-validates CPU, host memory and the share. Closed by `close()` of this state, or its own.
   */
  podScheduler(options: PodSchedulerOptions = {}): StoredPodScheduler {
    // References of schedulers the garbage collector took are dropped as new ones come.
    for (const ref of this.schedulers) if (ref.deref() === undefined) this.schedulers.delete(ref);
    let ref: WeakRef<StoredPodScheduler> | undefined;
    const scheduler: StoredPodScheduler = new StoredPodScheduler(options, {
      local: () => this.local,
      retry: (attempts, commitOptions, plan, pick) => this.retry(attempts, commitOptions, plan, pick),
      forget: () => void (ref !== undefined && this.schedulers.delete(ref)),
    });
    ref = new WeakRef(scheduler);
    this.schedulers.add(ref);
    return scheduler;
  }

  /**
   * Stops following the store and closes this state's pod schedulers (the store itself stays open:
   * close it with store.close()). Further commits still go through the store, without news of others.
   */
  async close(): Promise<void> {
    for (const ref of [...this.schedulers]) ref.deref()?.close();
    this.schedulers.clear();
    const unwatch = this.unwatch;
    this.unwatch = undefined;
    if (unwatch !== undefined) await unwatch();
    await this.settled();
  }

  /** close(), for `await using state = await openClusterState(…)`. */
  async [ASYNC_DISPOSE](): Promise<void> {
    await this.close();
  }

  private settle(outcome: StoreOutcome): StoreOutcome {
    this.apply(outcome.nodes);
    if (outcome.error !== undefined) throw outcome.error;
    return outcome;
  }

  /** Brings the local copy of each node up to the store's version (older news is ignored). */
  private apply(nodes: readonly StoredNode[]): void {
    const fresh = nodes.filter((node) => {
      const known = this.versions.get(node.id);
      return known === undefined || node.version > known;
    });
    if (fresh.length === 0) return;
    try {
      syncNodes(this.local, fresh);
      for (const node of fresh) this.versions.set(node.id, node.version);
    } catch {
      this.reload = true;
    }
  }
}

/** The options both commitWithRetry take (attempts, id, lastActivity, requestId, and `extra` keys), checked. */
function retryOptions(options: unknown, extra: readonly string[]): { opts: Record<string, unknown>; attempts: number; commitOptions: StoreCommitOptions } {
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, [...RETRY_KEYS, ...extra]);
  const attempts = opts.attempts === undefined ? DEFAULT_ATTEMPTS : requireInteger('options.attempts', opts.attempts, 1, 1000);
  const commitOptions: StoreCommitOptions = {};
  if (opts.id !== undefined) commitOptions.id = opts.id as string;
  if (opts.lastActivity !== undefined) commitOptions.lastActivity = opts.lastActivity as number;
  if (opts.requestId !== undefined) commitOptions.requestId = opts.requestId as string;
  const signal = signalOf(opts.signal);
  if (signal !== undefined) commitOptions.signal = signal;
  return { opts, attempts, commitOptions };
}

/** True when two slots hold the same (their lastActivity and stale mark aside, which change in place). */
function sameSlot(a: Slot, b: Slot): boolean {
  return (
    a.memoryPerGpu === b.memoryPerGpu &&
    a.model === b.model &&
    a.milli === b.milli &&
    a.cpu === b.cpu &&
    a.hostMemory === b.hostMemory &&
    a.gpus.length === b.gpus.length &&
    a.gpus.every((g, k) => g === b.gpus[k]) &&
    sameParts(a.parts, b.parts)
  );
}

/** True when two slots' parts (or their absence) are the same, whatever order their keys come in (a database may reorder them). */
function sameParts(a: Slot['parts'], b: Slot['parts']): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((p, j) => p.node === b[j]!.node && p.memoryPerGpu === b[j]!.memoryPerGpu && p.gpus.join() === b[j]!.gpus.join());
}

/**
 * Makes the local nodes' slots those of `nodes` through ClusterState's own API: slots gone or changed
 * on any of them released first (a slot across nodes as a whole), so new ones fit; then the new ones
 * added (a slot across nodes once, by the first of its nodes listed) and marks and activity brought up to date.
 */
function syncNodes(local: ClusterState, nodes: readonly StoredNode[]): void {
  for (const node of nodes) {
    const want = new Map(node.slots.map((s) => [s.id, s]));
    for (const s of local.listSlots(node.id)) {
      const w = want.get(s.id);
      // A touch only moves lastActivity forward; one moved back (a restored store) is the slot added again.
      const movedBack = w !== undefined && w.lastActivity !== s.lastActivity && (w.lastActivity === undefined || (s.lastActivity !== undefined && w.lastActivity < s.lastActivity));
      if (w === undefined || !sameSlot(s, w) || movedBack) local.release(s.id);
    }
  }
  for (const node of nodes) {
    const have = new Map(local.listSlots(node.id).map((s) => [s.id, s]));
    for (const s of node.slots) {
      const h = have.get(s.id);
      if (h === undefined) {
        const option: PlacementOption =
          s.parts === undefined ? { node: node.id, gpus: s.gpus, memoryPerGpu: s.memoryPerGpu, evict: [], score: 0 } : { gpus: [], memoryPerGpu: s.memoryPerGpu, evict: [], score: 0, parts: s.parts };
        if (s.model !== undefined) option.model = s.model;
        // A pod's share, CPU and host memory come along, so the local copy charges the node as the store does.
        if (s.milli !== undefined) option.milli = s.milli;
        if (s.cpu !== undefined) option.cpu = s.cpu;
        if (s.hostMemory !== undefined) option.hostMemory = s.hostMemory;
        local.commit(option, s.lastActivity === undefined ? { id: s.id } : { id: s.id, lastActivity: s.lastActivity });
        if (s.stale === true) local.markStale(s.id, true);
      } else {
        if ((h.stale === true) !== (s.stale === true)) local.markStale(s.id, s.stale === true);
        if (s.lastActivity !== undefined && s.lastActivity !== h.lastActivity) local.touch(s.id, s.lastActivity);
      }
    }
  }
}

/** What a retry loop returns: the last plan, the committed slot and option (absent with `reason`, or `replayed`), the attempts and conflicts. */
export type RetryLoopResult<P> = { plan: P; attempts: number; conflicts: number } & (
  | { committed: string; option: number; replayed?: undefined; reason?: undefined }
  | { committed: string; option?: undefined; replayed: true; reason?: undefined }
  | { committed?: undefined; option?: undefined; replayed?: undefined; reason: Reason }
);

/** What a StoredPodScheduler uses of its StoredClusterState (handed over by StoredClusterState.podScheduler). */
type SchedulerPort = {
  /** The state's current local copy. */
  local(): ClusterState;
  /** The state's commit-with-retry loop. */
  retry<P extends { options: PlacementOption[]; reason?: Reason }>(
    attempts: number,
    commitOptions: StoreCommitOptions,
    plan: () => P,
    pick: (attempt: number, conflicts: number, count: number) => number,
  ): Promise<RetryLoopResult<P>>;
  /** Forgets the scheduler (it closed). */
  forget(): void;
};

/**
 * A pod scheduler over a StoredClusterState's local copy (StoredClusterState.podScheduler). It is a
 * ClusterState pod scheduler attached to the copy, so every change applied to the copy re-syncs it;
 * when the copy is replaced by a reload it is rebuilt on the new one (a `random` policy then starts its
 * draws again from its seed).
 */
export class StoredPodScheduler {
  private inner: PodScheduler | undefined;
  private on: ClusterState | undefined;
  private closed = false;
  private readonly options: PodSchedulerOptions;
  private readonly state: SchedulerPort;

  /** Use StoredClusterState.podScheduler. */
  constructor(options: PodSchedulerOptions, state: SchedulerPort) {
    this.state = state;
    // Read once: a rebuild after a reload must not see later changes to the caller's object.
    this.options = readInput('options', options) as PodSchedulerOptions;
    this.current(); // bad options fail here, naming the field
  }

  /** The policy's name. */
  get policy(): FleetPolicyName {
    return this.current().policy.name;
  }

  /** The best node for `pod` on the local copy, as an option for `commit`; or none, with the reason (see PodScheduler.plan). */
  plan(pod: FleetPod): PodPlan {
    return this.current().plan(pod);
  }

  /** What the scheduler sees of a node (see PodScheduler.view). */
  view(node: string): PodNodeView {
    return this.current().view(node);
  }

  /**
   * Plans `pod` and commits its option through the store, re-planning on CONFLICT (the conflict loads
   * the node's fresh slots, so the next plan sees what the other writer took) up to `attempts` times.
   * No node fitting, or every attempt lost, is a result with `reason`, not an error.
   */
  async commitWithRetry(pod: FleetPod, options: PodRetryOptions = {}): Promise<PodRetryResult> {
    const { attempts, commitOptions } = retryOptions(options, []);
    const { option: _first, ...result } = await this.state.retry(
      attempts,
      commitOptions,
      () => this.plan(pod),
      () => 0,
    );
    return result as PodRetryResult;
  }

  /** Detaches from the state; using the scheduler afterwards is an error. A dropped scheduler is released by the garbage collector (the state holds it weakly); close() frees it now. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.inner?.close();
    this.inner = undefined;
    this.state.forget();
  }

  /** close(), for `using scheduler = state.podScheduler(…)`. */
  [DISPOSE](): void {
    this.close();
  }

  /** The scheduler on the state's current local copy (rebuilt when the copy was replaced). */
  private current(): PodScheduler {
    if (this.closed) throw new AllocationError('INVALID_ARGUMENT', 'podScheduler: used after close()', { field: 'scheduler' });
    const local = this.state.local();
    if (this.inner === undefined || this.on !== local) {
      this.inner?.close();
      this.inner = undefined;
      this.inner = local.podScheduler(this.options);
      this.on = local;
    }
    return this.inner;
  }
}
