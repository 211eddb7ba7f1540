// Every public entry point that takes a request, an init or an options object rejects a misspelt key
// with INVALID_ARGUMENT naming the field path and the key meant. The table covers every function the
// package exports (gpualloc, gpualloc/placement, gpualloc/fleet, gpualloc/dra, gpualloc/store) and
// every method of Engine, ClusterState, DraCluster and the stored state and scheduler; what takes no
// object says so, so a new entry point without a row fails here.
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../src/cluster/state.js';
import { DraCluster } from '../../src/dra/index.js';
import { Engine, PlacementEngine } from '../../src/engine.js';
import * as draEntry from '../../src/entries/dra.js';
import * as fleetEntry from '../../src/entries/fleet.js';
import * as placementEntry from '../../src/entries/placement.js';
import * as api from '../../src/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import * as store from '../../src/store/index.js';
import { claimObject, classObject, exactRequest, nodeObject, sliceObject } from '../support/dra-objects.js';
import { engines } from '../support/engines.js';

const G = 2 ** 30;
const gpus = [
  { index: 0, memoryTotal: 80 * G },
  { index: 1, memoryTotal: 80 * G },
];
const topology = { gpus: 2, links: [{ a: 0, b: 1, nvlink: 2 }] };
const inventory = api.getPreset('dgx-a100');
const fleetNodes = [{ id: 'n0', cpu: 8000, memoryMiB: 1024, gpus: 2, model: 'T4' }];
const fleetPods = [{ id: 'p0', cpu: 1000, memoryMiB: 10, gpus: 1, milli: 500 }];
const cluster = () => new Promise<ClusterState>((resolve) => void engines().then(({ ts }) => resolve(ts.createClusterState({ nodes: [{ id: 'n1', gpus, cpu: 8000, hostMemory: 64 * G }] }))));

const draInit = () => ({
  classes: [classObject('gpu')],
  slices: [sliceObject('s', { devices: [{ name: 'g0' }] }, { node: 'node-1' })],
  nodes: [nodeObject('node-1')],
});
const draPod = () => [claimObject('c', { devices: { requests: [exactRequest('r', 'gpu', 1)] } })];
const stored = async (e: Engine) => store.openClusterState(e, store.MemoryStore.create(e, { nodes: [{ id: 'n', gpus }] }));
const jsonDocuments = (text: string) => api.readDocuments(text, 'dump.json');

/** A call with one misspelt key, the path the error must name, and the key it must suggest. */
type Row = { call: (e: Engine) => unknown; path: string; meant: string; code?: string };

const rows: Record<string, Row> = {
  openEngine: { call: () => api.openEngine({ bakend: 'ts' } as never), path: 'options.bakend', meant: 'backend' },
  createEngine: { call: () => api.createEngine({ bakend: 'ts' } as never), path: 'options.bakend', meant: 'backend' },
  openPlacementEngine: { call: () => api.openPlacementEngine({ buld: 'debug' } as never), path: 'options.buld', meant: 'build' },
  'openPlacementEngine multiNode': { call: () => api.openPlacementEngine({ multiNod: api.multiNodePlanner } as never), path: 'options.multiNod', meant: 'multiNode' },
  splitDevices: { call: (e) => e.splitDevices({ agents: ['a'], mode: 'auto-split', devices: { cuda: ['cuda0'] }, amount: { mem: 1 } } as never), path: 'amount', meant: 'amounts' },
  allocateReplicas: { call: (e) => e.allocateReplicas({ devices: ['a'], available: ['a'], size: 1, polcy: 'pack' } as never), path: 'polcy', meant: 'policy' },
  allocateAligned: { call: (e) => e.allocateAligned({ topology, size: 1, requred: [0] } as never), path: 'requred', meant: 'required' },
  'allocateAligned topology link': { call: (e) => e.allocateAligned({ topology: { gpus: 2, links: [{ a: 0, b: 1, nvlnk: 2 }] }, size: 1 } as never), path: 'topology.links[0].nvlnk', meant: 'nvlink' },
  planPlacement: { call: (e) => e.planPlacement({ gpus, memory: G, alowEviction: true } as never), path: 'alowEviction', meant: 'allowEviction' },
  'planPlacement gpu': { call: (e) => e.planPlacement({ gpus: [{ index: 0, memorytotal: G }], memory: G } as never), path: 'gpus[0].memorytotal', meant: 'memoryTotal' },
  'planPlacement slot': { call: (e) => e.planPlacement({ gpus, slots: [{ id: 's', gpus: [0], memoryPerGpu: G, stal: true }], memory: G } as never), path: 'slots[0].stal', meant: 'stale' },
  'planPlacement prepared': { call: (e) => e.planPlacement({ node: e.prepare({ gpus }), memory: G, limt: 1 } as never), path: 'limt', meant: 'limit' },
  prepare: { call: (e) => e.prepare({ gpus, topolgy: topology } as never), path: 'topolgy', meant: 'topology' },
  createClusterState: { call: (e) => e.createClusterState({ nodes: [{ id: 'n', gpus, hostMemmory: 1 }] } as never), path: 'nodes[0].hostMemmory', meant: 'hostMemory' },
  restoreClusterState: { call: (e) => e.restoreClusterState({ ...e.createClusterState({ nodes: [{ id: 'n', gpus }] }).toJSON(), nodez: [] }), path: 'nodez', meant: 'nodes', code: 'INVALID_STATE' },
  simulateFleet: { call: (e) => e.simulateFleet({ nodes: fleetNodes, pods: fleetPods, sead: 1 } as never), path: 'request.sead', meant: 'seed' },
  'simulateFleet pod memory (renamed memoryMiB)': {
    call: (e) => e.simulateFleet({ nodes: fleetNodes, pods: [{ id: 'p', cpu: 1, memory: 1, gpus: 0 }] } as never),
    path: 'request.pods[0].memory',
    meant: 'memoryMiB',
  },
  'simulateFleet node memory (renamed memoryMiB)': {
    call: (e) => e.simulateFleet({ nodes: [{ id: 'n', cpu: 1, memory: 1, gpus: 0 }], pods: fleetPods } as never),
    path: 'request.nodes[0].memory',
    meant: 'memoryMiB',
  },
  simulateFleetAsync: { call: (e) => e.simulateFleetAsync({ nodes: fleetNodes, pods: fleetPods }, { onProgres: () => undefined } as never), path: 'options.onProgres', meant: 'onProgress' },
  allocateClaims: { call: (e) => e.allocateClaims({ classes: [], slices: [], claims: [], node: { metadata: { name: 'n' } }, mdoe: 'scored' } as never), path: 'mdoe', meant: 'mode' },
  createDraCluster: { call: (e) => e.createDraCluster({ classes: [], slices: [], nodes: [], featres: {} } as never), path: 'featres', meant: 'features' },
  'createDraCluster feature': { call: () => draEntry.createDraCluster({ ...draInit(), features: { prioritizedLst: true } } as never), path: 'features.prioritizedLst', meant: 'prioritizedList' },
  'createDraCluster (gpualloc/dra)': { call: () => draEntry.createDraCluster({ ...draInit(), nodeScor: 'pack' } as never), path: 'nodeScor', meant: 'nodeScore' },
  'allocateClaims (gpualloc/dra)': { call: () => draEntry.allocateClaims({ classes: [], slices: [], claims: [], node: nodeObject(), budgt: 1 } as never), path: 'budgt', meant: 'budget' },
  'DraCluster.scheduleGroup': { call: () => draEntry.createDraCluster(draInit()).scheduleGroup({ pods: [draPod()], minCont: 1 } as never), path: 'minCont', meant: 'minCount' },
  'DraCluster.scheduleGroup topology': {
    call: () => draEntry.createDraCluster(draInit()).scheduleGroup({ pods: [draPod()], topology: { requird: 'zone' } } as never),
    path: 'topology.requird',
    meant: 'required',
  },
  readClusterDump: { call: async () => api.readClusterDump(await jsonDocuments('[]'), 'dump.json', { stict: true } as never), path: 'options.stict', meant: 'strict' },
  schedulePods: {
    call: () => api.schedulePods({ pods: [], nodes: [], claims: [], templates: [], extendedResources: new Map(), placer: draEntry.createDraCluster(draInit()), ordr: 'scheduler' } as never),
    path: 'ordr',
    meant: 'order',
  },
  'ClusterState.plan': { call: async () => (await cluster()).plan({ memory: G, modle: 'm' } as never), path: 'modle', meant: 'model' },
  'ClusterState.commit': {
    call: async () => {
      const s = await cluster();
      return s.commit(s.plan({ memory: G }).options[0], { lastActivty: 1 } as never);
    },
    path: 'options.lastActivty',
    meant: 'lastActivity',
  },
  'ClusterState.release': {
    call: async () => {
      const s = await cluster();
      return s.release(s.commit(s.plan({ memory: G }).options[0]), { idleBefor: 1 } as never);
    },
    path: 'options.idleBefor',
    meant: 'idleBefore',
  },
  'ClusterState.podScheduler': { call: async () => (await cluster()).podScheduler({ polcy: 'bestfit' } as never), path: 'options.polcy', meant: 'policy' },
  'PodScheduler.plan': { call: async () => (await cluster()).podScheduler({ policy: 'bestfit' }).plan({ id: 'p', cpu: 1, memoryMB: 1, gpus: 0 } as never), path: 'pod.memoryMB', meant: 'memoryMiB' },
  nodeFromInventory: { call: () => api.nodeFromInventory(inventory, { idd: 'x' } as never), path: 'options.idd', meant: 'id' },
  estimateMemory: { call: () => api.estimateMemory({ metadata: {}, tensorInfos: [] } as never, { contextLenght: 8 } as never), path: 'options.contextLenght', meant: 'contextLength' },
  validateInventory: { call: () => api.validateInventory({ ...inventory, gpuz: [] }), path: 'gpuz', meant: 'gpus', code: 'INVALID_INVENTORY' },
  validateTopology: { call: () => api.validateTopology({ gpus: 2, link: [] }), path: 'topology.link', meant: 'links' },
  wholeGpuCandidates: { call: () => api.wholeGpuCandidates(inventory, { allowMIG: true } as never), path: 'options.allowMIG', meant: 'allowMig' },
  'store.openClusterState': {
    call: async (e) => store.openClusterState(e, store.MemoryStore.create(e, { nodes: [{ id: 'n', gpus }] }), { wach: true } as never),
    path: 'options.wach',
    meant: 'watch',
  },
  'store.JsonFileStore.create': { call: () => store.JsonFileStore.create('state.json', { lockTimeoutMS: 1 } as never), path: 'options.lockTimeoutMS', meant: 'lockTimeoutMs' },
  'StoredClusterState.plan': { call: async (e) => (await stored(e)).plan({ memory: G, polcy: 'pack' } as never), path: 'polcy', meant: 'policy' },
  'StoredClusterState.commit': {
    call: async (e) => {
      const s = await stored(e);
      return s.commit(s.plan({ memory: G }).options[0], { requestID: 'x' } as never);
    },
    path: 'options.requestID',
    meant: 'requestId',
  },
  'StoredClusterState.release': { call: async (e) => (await stored(e)).release('s', { idleBefor: 1 } as never), path: 'options.idleBefor', meant: 'idleBefore' },
  'StoredClusterState.podScheduler': { call: async (e) => (await stored(e)).podScheduler({ serch: 'scan' } as never), path: 'options.serch', meant: 'search' },
  'StoredPodScheduler.plan': {
    call: async (e) => (await stored(e)).podScheduler({ policy: 'bestfit' }).plan({ id: 'p', cpu: 1, memory: 1, gpus: 0 } as never),
    path: 'pod.memory',
    meant: 'memoryMiB',
  },
  'StoredPodScheduler.commitWithRetry': {
    call: async (e) => (await stored(e)).podScheduler({ policy: 'bestfit' }).commitWithRetry({ id: 'p', cpu: 1, memoryMiB: 1, gpus: 0 }, { attemps: 2 } as never),
    path: 'options.attemps',
    meant: 'attempts',
  },
  'StoredClusterState.commitWithRetry': {
    call: async (e) => (await store.openClusterState(e, store.MemoryStore.create(e, { nodes: [{ id: 'n', gpus }] }))).commitWithRetry({ memory: G }, { attempt: 2 } as never),
    path: 'options.attempt',
    meant: 'attempts',
  },
};

/** Exports and methods that take no request, init or options object (their arguments are IDs, numbers, text or arrays). */
const NO_OBJECT = new Set([
  'naturalSort',
  'fragmentationParts',
  'ClusterState.migBlindSpans',
  'ClusterState.migBlindLedger',
  'ClusterState.largestNode',
  'memoryPages',
  '_debugTrap',
  'stateFileText',
  'defaultTensorParallelSizes',
  'perGpuMemory',
  'tensorParallelProblem',
  'listPresets',
  'getPreset',
  'pairScoreMatrix',
  'linkScore',
  'parseBytes',
  'formatBytes',
  'unitsOf',
  'parseNodeCsv',
  'parsePodCsv',
  'scaleTrace',
  'readDeviceClasses',
  'readResourceSlices',
  'readResourceClaims',
  'readNodes',
  'readDraObjects',
  'splitDraDump',
  'claimsOfDump',
  'allocationPatch',
  'readDocuments',
  'redactUrl',
  'urlHasPassword',
  'ClusterState.touch',
  'ClusterState.markStale',
  'ClusterState.listSlots',
  'ClusterState.usage',
  'ClusterState.nodes',
  'ClusterState.nodeView',
  'ClusterState.toJSON',
  'DraCluster.stats',
  'DraCluster.allocated',
  // A pod's claims (ResourceClaim objects, read by the same readers as every object) and a claim's name.
  'DraCluster.schedule',
  'DraCluster.release',
  // The ClaimPlacer port schedulePods calls: claim objects, a predicate and node indices.
  'DraCluster.place',
  // The stored state's and scheduler's methods that take IDs, times or nothing.
  'StoredClusterState.touch',
  'StoredClusterState.markStale',
  'StoredClusterState.settled',
  'StoredClusterState.refresh',
  'StoredClusterState.listSlots',
  'StoredClusterState.usage',
  'StoredClusterState.nodes',
  'StoredClusterState.toJSON',
  'StoredClusterState.version',
  'StoredClusterState.close',
  'StoredPodScheduler.policy',
  'StoredPodScheduler.view',
  'StoredPodScheduler.close',
  // Private helpers of DraCluster, StoredClusterState and StoredPodScheduler.
  'DraCluster.readAllocated',
  'DraCluster.refreshNode',
  'DraCluster.refreshShared',
  'DraCluster.findNode',
  'DraCluster.pendingClaims',
  'DraCluster.checkClaims',
  'DraCluster.stateKey',
  'DraCluster.allocateOn',
  'DraCluster.modelOn',
  'DraCluster.setupOn',
  'DraCluster.baseOn',
  'DraCluster.shapesFor',
  'DraCluster.commit',
  'DraCluster.changed',
  'StoredClusterState.watch',
  'StoredClusterState.catchUp',
  'StoredClusterState.commitOutcome',
  'StoredClusterState.guard',
  'StoredClusterState.retry',
  'StoredClusterState.settle',
  'StoredClusterState.apply',
  'StoredPodScheduler.current',
  // Classes: their factories (openEngine, createClusterState, createDraCluster, prepare, the stores') are rows.
  // ClusterState's private helpers.
  'ClusterState.migBlindPlanner',
  'ClusterState.slotRecord',
  'ClusterState.changed',
  'Engine',
  'PlacementEngine',
  'ClusterState',
  'DraCluster',
  'PreparedNode',
  'AllocationError',
  'StoredClusterState',
  'StoredPodScheduler',
  'MemoryStore',
  'JsonFileStore',
  'PostgresStore',
  'openClusterState',
]);

describe('unknown keys', () => {
  for (const [name, row] of Object.entries(rows)) {
    it(`${name}: ${row.path} is an unknown field, did you mean ${row.meant}?`, async () => {
      const { ts } = await engines();
      let thrown: unknown;
      try {
        await row.call(ts);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AllocationError);
      const e = thrown as AllocationError;
      expect(e.code).toBe(row.code ?? 'INVALID_ARGUMENT');
      expect(e.message).toContain(row.path);
      expect(e.message).toContain(`did you mean ${row.meant}?`);
    });
  }

  it('every exported function and every method of the engines, states, schedulers and DRA cluster has a row or takes no object', () => {
    const covered = new Set(Object.keys(rows).map((k) => k.split(' ')[0].replace(/^store\./, '')));
    const names = [
      ...Object.entries(api)
        .filter(([, v]) => typeof v === 'function')
        .map(([k]) => k),
      ...[store, placementEntry, fleetEntry, draEntry].flatMap((m) =>
        Object.entries(m)
          .filter(([, v]) => typeof v === 'function')
          .map(([k]) => k),
      ),
      ...Object.getOwnPropertyNames(Engine.prototype).filter((k) => k !== 'constructor'),
      ...Object.getOwnPropertyNames(PlacementEngine.prototype).filter((k) => k !== 'constructor'),
      ...Object.getOwnPropertyNames(ClusterState.prototype)
        .filter((k) => k !== 'constructor' && !k.startsWith('_'))
        .map((k) => `ClusterState.${k}`),
      ...(
        [
          ['DraCluster', DraCluster],
          ['StoredClusterState', store.StoredClusterState],
          ['StoredPodScheduler', store.StoredPodScheduler],
        ] as const
      ).flatMap(([name, c]) =>
        Object.getOwnPropertyNames(c.prototype)
          .filter((k) => k !== 'constructor')
          .map((k) => `${name}.${k}`),
      ),
    ];
    const missing = names.filter((n) => !covered.has(n) && !NO_OBJECT.has(n));
    expect(missing).toEqual([]);
  });
});
