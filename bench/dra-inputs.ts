// Inputs of the DRA benchmark, as Kubernetes objects: upstream's scheduler_perf cluster shape
// (N nodes × 10 A100-like devices with model, family, driverVersion and numa attributes and a
// 1Gi memory capacity, one-device claims), its partitionable backtracking fixture, and an
// infeasible family of MIG-like partitions whose counters admit one device fewer than claimed.

const V1 = 'resource.k8s.io/v1';
const DRIVER = 'gpu.example.com';
type Obj = Record<string, unknown>;

/** The device class every input uses. */
export const GPU_CLASS: Obj = { apiVersion: V1, kind: 'DeviceClass', metadata: { name: 'gpu.example.com' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };

/** A node with its labels. */
export function nodeObject(name: string): Obj {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } };
}

/** One node's ResourceSlice of the scheduler_perf shape: `devices` A100-like GPUs. */
export function schedulerPerfSlice(node: string, devices = 10): Obj {
  return {
    apiVersion: V1,
    kind: 'ResourceSlice',
    metadata: { name: `${node}-${DRIVER}` },
    spec: {
      driver: DRIVER,
      pool: { name: node, generation: 1, resourceSliceCount: 1 },
      nodeName: node,
      devices: Array.from({ length: devices }, (_, i) => ({
        name: `gpu-${i}`,
        attributes: { model: { string: 'A100' }, family: { string: 'GPU' }, driverVersion: { version: '1.2.3' }, numa: { int: i % 2 } },
        capacity: { memory: { value: '1Gi' } },
      })),
    },
  };
}

/** A one-device claim (with a request selector, as scheduler_perf's claim templates have). */
export function oneDeviceClaim(name: string): Obj {
  return {
    apiVersion: V1,
    kind: 'ResourceClaim',
    metadata: { name, namespace: 'bench' },
    spec: {
      devices: {
        requests: [
          {
            name: 'gpu',
            exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].model == "A100"` } }] },
          },
        ],
      },
    },
  };
}

/** How full the cluster is before the timed claims: no device, half of each node's, or all held. */
export type Fill = 'empty' | 'half' | 'full';

/** The scheduler_perf cluster of `nodes` nodes, with `fill` of its devices held by other claims. */
export function schedulerPerfCluster(nodes: number, fill: Fill, devices = 10): { classes: Obj[]; slices: Obj[]; nodes: Obj[]; allocatedDevices: string[] } {
  const names = Array.from({ length: nodes }, (_, k) => `node-${k}`);
  const held = fill === 'empty' ? 0 : fill === 'half' ? devices / 2 : devices;
  const allocatedDevices = names.flatMap((n) => Array.from({ length: held }, (_, i) => `${DRIVER}/${n}/gpu-${i}`));
  return { classes: [GPU_CLASS], slices: names.map((n) => schedulerPerfSlice(n, devices)), nodes: names.map(nodeObject), allocatedDevices };
}

function claimFor(count: number): Obj {
  return {
    apiVersion: V1,
    kind: 'ResourceClaim',
    metadata: { name: 'claim', namespace: 'bench' },
    spec: { devices: { requests: [{ name: 'req', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count } }] } },
  };
}

/**
 * Upstream's partitionable backtracking fixture: 8 devices, each with its own counter set and all
 * consuming a shared 70Gi memory counter; device-1 takes 20Gi, the others 10Gi; a claim for 7.
 * First-fit takes device-1 first and must back out of it: only the 7 others fit.
 */
export function backtrackingRequest(): { classes: Obj[]; slices: Obj[]; claims: Obj[]; node: Obj } {
  const pool = { name: 'node-1', generation: 1, resourceSliceCount: 2 };
  const devices = Array.from({ length: 8 }, (_, i) => ({
    name: `device-${i + 1}`,
    consumesCounters: [
      { counterSet: `device-${i + 1}-counters`, counters: { count: { value: '1' } } },
      { counterSet: 'memory', counters: { memory: { value: i === 0 ? '20Gi' : '10Gi' } } },
    ],
  }));
  const sets = [...devices.map((d) => ({ name: `${d.name}-counters`, counters: { count: { value: '1' } } })), { name: 'memory', counters: { memory: { value: '70Gi' } } }];
  return {
    classes: [GPU_CLASS],
    slices: [
      { apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 'devices' }, spec: { driver: DRIVER, pool, nodeName: 'node-1', devices } },
      { apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 'counters' }, spec: { driver: DRIVER, pool, nodeName: 'node-1', sharedCounters: sets } },
    ],
    claims: [claimFor(7)],
    node: nodeObject('node-1'),
  };
}

/**
 * The infeasible family: n MIG-like 1g partitions over ⌈n/8⌉ GPUs (8 per GPU, each consuming one
 * slice of its GPU's counter set) that all draw 10Gi from one memory counter of (k − 1) × 10Gi,
 * and a claim for k of them. Upstream's first-fit tries every combination before giving up.
 */
export function infeasibleRequest(n: number, k: number): { classes: Obj[]; slices: Obj[]; claims: Obj[]; node: Obj } {
  const pool = { name: 'node-1', generation: 1, resourceSliceCount: 2 };
  const devices = Array.from({ length: n }, (_, i) => ({
    name: `gpu-${i >> 3}-mig-1g.10gb-${i & 7}`,
    attributes: { type: { string: 'mig' }, profile: { string: '1g.10gb' }, parentIndex: { int: i >> 3 } },
    capacity: { memory: { value: '10Gi' } },
    consumesCounters: [
      { counterSet: `gpu-${i >> 3}`, counters: { slices: { value: '1' } } },
      { counterSet: 'memory', counters: { memory: { value: '10Gi' } } },
    ],
  }));
  const sets = [
    ...Array.from({ length: Math.ceil(n / 8) }, (_, g) => ({ name: `gpu-${g}`, counters: { slices: { value: '8' } } })),
    { name: 'memory', counters: { memory: { value: `${(k - 1) * 10}Gi` } } },
  ];
  return {
    classes: [GPU_CLASS],
    slices: [
      { apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 'devices' }, spec: { driver: DRIVER, pool, nodeName: 'node-1', devices } },
      { apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 'counters' }, spec: { driver: DRIVER, pool, nodeName: 'node-1', sharedCounters: sets } },
    ],
    claims: [claimFor(k)],
    node: nodeObject('node-1'),
  };
}
