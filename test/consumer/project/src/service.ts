// A strict Node service embedding gpualloc (lib ES2022, no DOM, skipLibCheck false): every entry
// point type-checks, and each `@ts-expect-error` below is a typo the types must refuse.
import { AllocationError, type ClusterStateLike, type Engine, openEngine, type PlacementPlan, type ReasonCode } from 'gpualloc';
import { allocateClaims, createDraCluster, type DraClusterInit, type GangRequest, type GroupOutcome, type PodOutcome } from 'gpualloc/dra';
import { type FleetPod, type SimulateRequest, simulateFleetAsync } from 'gpualloc/fleet';
import { discoverDevices } from 'gpualloc/nvml';
import { openPlacementEngine } from 'gpualloc/placement';
import { JsonFileStore, MemoryStore, openClusterState, PostgresStore, type RetryResult } from 'gpualloc/store';

const G = 2 ** 30;
const gpus = [
  { index: 0, memoryTotal: 80 * G },
  { index: 1, memoryTotal: 80 * G },
] as const;

export async function service(): Promise<string[]> {
  const engine = await openEngine({ backend: 'wasm' });
  const placement = await openPlacementEngine({ backend: 'ts' });
  const said: string[] = [];

  // readonly / as-const inputs are accepted.
  const plan: PlacementPlan = placement.planPlacement({ gpus, memory: 100 * G, tensorParallelSizes: [1, 2] as const });
  if (plan.reason !== undefined) {
    const none: [] = plan.options; // narrowed: no option where there is a reason
    said.push(`no option: ${plan.reason.code} ${none.length}`);
  } else said.push(`best: GPUs ${plan.options[0]?.gpus.join(',')}`);
  // One unit per quantity: fleet memory is memoryMiB.
  const pod: FleetPod = { id: 'p', cpu: 1000, memoryMiB: 4096, gpus: 1, milli: 500 };
  const request: SimulateRequest = { nodes: [{ id: 'n', cpu: 8000, memoryMiB: 65536, gpus: 2, model: 'T4' }], pods: [pod], policy: 'bestfit' };
  const controller = new AbortController();
  const run = await simulateFleetAsync(engine, request, { signal: controller.signal, onProgress: (done, total) => void (done <= total) });
  said.push(`simulated ${run.pods} pods`);

  // One interface for the local and the stored state.
  const local = engine.createClusterState({ nodes: [{ id: 'n1', gpus: [...gpus] }] });
  const stored = await openClusterState(engine, MemoryStore.create(engine, { nodes: [{ id: 'n1', gpus: [...gpus] }] }));
  for (const state of [local, stored] as ClusterStateLike[]) {
    const options = state.plan({ memory: 40 * G }).options;
    if (options[0] !== undefined) said.push(`committed ${await state.commit(options[0])}`);
  }

  // Retry results are discriminated: a committed slot, or a reason.
  const retried: RetryResult = await stored.commitWithRetry({ memory: 20 * G });
  said.push(retried.reason === undefined ? `retried into ${retried.committed}` : `not retried: ${retried.reason.code}`);

  try {
    allocateClaims({ classes: [], slices: [], claims: [], node: { metadata: { name: 'n' } } });
  } catch (error) {
    if (error instanceof AllocationError) said.push(error.code);
  }
  void discoverDevices;
  // One verb per kind of factory: create… returns at once, open… returns a promise.
  const file: JsonFileStore = JsonFileStore.create('state.json');
  const opening: (url?: string) => Promise<PostgresStore> = PostgresStore.open;
  void file;
  void opening;
  said.push(...(await lifecycle(engine)));
  return said;
}

/** Whether `use` throws the AllocationError a closed scheduler answers with. */
function refusedAfterClose(use: () => unknown): boolean {
  try {
    use();
  } catch (error) {
    return error instanceof AllocationError && /used after close\(\)/.test(error.message);
  }
  return false;
}

/**
 * The lifecycle: close() and `using` / `await using` on a pod scheduler, a stored state and a store.
 * A dispose method missing from the declarations does not compile; one missing at run time, or one
 * that throws, fails the service; a scheduler its `using` (or its state's close) did not close fails
 * the check below.
 */
export async function lifecycle(engine: Engine): Promise<string[]> {
  const said: string[] = [];
  const nodes = [{ id: 'n1', gpus: [...gpus], cpu: 8000, hostMemory: 64 * G }];
  const pod = { id: 'p', cpu: 1000, memoryMiB: 4096, gpus: 1, milli: 500 };
  const local = engine.createClusterState({ nodes });

  const closed = local.podScheduler({ policy: 'bestfit' });
  const planned = closed.plan(pod).options.length;
  closed.close();
  closed.close(); // a second close() does nothing
  if (!refusedAfterClose(() => closed.plan(pod))) throw new Error('a closed pod scheduler still plans');
  said.push(`close(): pod scheduler (${planned} option(s) before, refused after)`);

  let escaped: Disposable;
  {
    using scheduler = local.podScheduler({ policy: 'bestfit' });
    scheduler.plan(pod);
    escaped = scheduler;
  }
  if (!refusedAfterClose(() => (escaped as typeof closed).plan(pod))) throw new Error('`using` did not close the pod scheduler');
  said.push('using: pod scheduler');

  let leftOpen: { plan(p: typeof pod): unknown } | undefined;
  let disposedScheduler: { plan(p: typeof pod): unknown } | undefined;
  let store: AsyncDisposable | undefined;
  {
    await using memory = MemoryStore.create(engine, { nodes });
    await using state = await openClusterState(engine, memory);
    using scheduler = state.podScheduler({ policy: 'bestfit' });
    const option = scheduler.plan(pod).options[0];
    if (option !== undefined) await state.commit(option);
    leftOpen = state.podScheduler({ policy: 'bestfit' }); // closed by the state's close()
    disposedScheduler = scheduler;
    store = memory;
    said.push(`await using: a MemoryStore and its stored state; using: its pod scheduler (${state.listSlots().length} slot)`);
  }
  if (!refusedAfterClose(() => disposedScheduler?.plan(pod))) throw new Error('`using` did not close the stored pod scheduler');
  if (!refusedAfterClose(() => leftOpen?.plan(pod))) throw new Error('`await using` did not close the stored state (its pod schedulers are still open)');
  // Closing again, by the method or the symbol, is harmless.
  await store?.[Symbol.asyncDispose]();
  said.push('closed: stored pod scheduler by using, another by its state');
  return said;
}

/** Never called: each line is a typo the types must refuse (tsc fails on an unused @ts-expect-error). */
export async function typosThatMustNotCompile(plan: PlacementPlan, request: SimulateRequest, init: DraClusterInit, gang: GangRequest, pod: PodOutcome, group: GroupOutcome): Promise<void> {
  const placement = await openPlacementEngine();
  const code: ReasonCode = 'NO_VIABLE_OPTION';
  // @ts-expect-error a misspelt reason code has no overlap with the ReasonCode union
  if (plan.reason?.code === 'NO_VIABLE_OPTOIN') void code;
  // @ts-expect-error a misspelt request key is an excess property
  placement.planPlacement({ gpus, memory: G, alowEviction: true });
  // @ts-expect-error a misspelt engine option
  void openEngine({ bakend: 'ts' });
  // @ts-expect-error an unknown backend name
  void openEngine({ backend: 'wsam' });
  // @ts-expect-error fleet pods name their memory memoryMiB
  const old: FleetPod = { id: 'q', cpu: 1000, memory: 4096, gpus: 1 };
  // @ts-expect-error a misspelt policy name
  const typo: SimulateRequest = { ...request, policy: 'best-fit' };
  const state = (await openEngine()).createClusterState({ nodes: [] });
  // @ts-expect-error a pod scheduler's policy is a policy name
  state.podScheduler({ policy: 'bestfitt' });
  // @ts-expect-error a misspelt DRA cluster option
  createDraCluster({ ...init, nodeScor: 'pack' });
  // @ts-expect-error a misspelt gang option
  createDraCluster(init).scheduleGroup({ ...gang, minCont: 1 });
  const none: PlacementPlan = { options: [], rejected: [], reason: { code: 'NO_VIABLE_OPTION', message: '' } };
  // @ts-expect-error a plan with options carries no reason
  const both: PlacementPlan = { ...none, options: [{ gpus: [0], memoryPerGpu: G, evict: [], score: 0 }] };
  // A pod not placed has its reason (no `?.`); a placed one has none, and a gang with a reason placed no pod.
  if (pod.node === null) void pod.reason.message.length;
  // @ts-expect-error a placed pod carries no reason
  else void pod.reason.message;
  // @ts-expect-error a misspelt code of a pod's reason
  if (pod.reason?.code === 'UNSCHEDULEABLE') return;
  if (group.reason !== undefined) {
    const zero: 0 = group.placed;
    void zero;
  }
  void old;
  void typo;
  void both;
}
