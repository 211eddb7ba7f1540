// Random DRA clusters for the scheduler's tests: node types (GPUs with model and NUMA attributes,
// some split into partitions that share a counter set, a tainted device now and then), nodes of
// those types, network devices in pools several nodes see (allNodes, a node selector, per-device
// node selection), and pods of one or two claims (counts, selectors, firstAvailable, matchAttribute,
// admin access, consumable capacity on multi-allocatable devices).
import fc from 'fast-check';
import { claimObject, classObject, DRIVER, nodeObject, type Obj, V1 } from './dra-objects.js';

export { claimObject, V1 };
export const GPU = DRIVER;
export const NIC = 'nic.example.com';

/** The device classes every random cluster has. */
export const CLASSES = [
  classObject('gpu', [`device.driver == "${GPU}" && device.attributes["${GPU}"].type == "gpu"`]),
  classObject('part', [`device.driver == "${GPU}" && device.attributes["${GPU}"].type == "part"`]),
  classObject('nic', [`device.driver == "${NIC}"`]),
];

interface GpuSpec {
  model: 'a100' | 'h100';
  numa: number;
  parts: boolean;
  tainted: boolean;
  shared: boolean;
}

const gpuSpec: fc.Arbitrary<GpuSpec> = fc.record({
  model: fc.constantFrom('a100' as const, 'h100' as const),
  numa: fc.integer({ min: 0, max: 1 }),
  parts: fc.boolean(),
  tainted: fc.integer({ min: 0, max: 5 }).map((x) => x === 0),
  shared: fc.boolean(),
});

/** A node type: its GPUs. */
export const nodeType = fc.array(gpuSpec, { minLength: 1, maxLength: 4 });

function nodeSlices(node: string, gpus: GpuSpec[], consumable: boolean): Obj[] {
  const devices: Obj[] = [];
  const counterSets: Obj[] = [];
  gpus.forEach((g, i) => {
    const attributes = { type: { string: 'gpu' }, model: { string: g.model }, numa: { int: g.numa } };
    const device: Obj = { name: `gpu-${i}`, attributes, capacity: { memory: { value: '80Gi' } } };
    if (g.tainted) device.taints = [{ key: 'maintenance', effect: 'NoSchedule' }];
    if (consumable && g.shared && !g.parts) {
      device.allowMultipleAllocations = true;
      device.capacity = { memory: { value: '80Gi', requestPolicy: { default: '40Gi', validRange: { min: '10Gi', step: '10Gi' } } } };
    }
    if (g.parts) {
      counterSets.push({ name: `gpu-${i}-set`, counters: { slices: { value: '4' } } });
      device.consumesCounters = [{ counterSet: `gpu-${i}-set`, counters: { slices: { value: '4' } } }];
      for (let p = 0; p < 2; p++) {
        devices.push({
          name: `gpu-${i}-part-${p}`,
          attributes: { type: { string: 'part' }, model: { string: g.model }, numa: { int: g.numa } },
          consumesCounters: [{ counterSet: `gpu-${i}-set`, counters: { slices: { value: '2' } } }],
        });
      }
    }
    devices.push(device);
  });
  const count = counterSets.length > 0 ? 2 : 1;
  const pool = { name: node, generation: 1, resourceSliceCount: count };
  const out: Obj[] = [{ apiVersion: V1, kind: 'ResourceSlice', metadata: { name: `${node}-gpus` }, spec: { driver: GPU, pool, nodeName: node, devices } }];
  if (counterSets.length > 0) out.push({ apiVersion: V1, kind: 'ResourceSlice', metadata: { name: `${node}-counters` }, spec: { driver: GPU, pool, nodeName: node, sharedCounters: counterSets } });
  return out;
}

/** Network devices several nodes see: all nodes, the nodes of zone a, one device per chosen node. */
function networkSlices(nodes: string[], which: { all: boolean; zone: boolean; perDevice: boolean }): Obj[] {
  const out: Obj[] = [];
  const nic = (name: string, extra: Obj = {}) => ({ name, attributes: { speed: { int: 400 } }, ...extra });
  if (which.all)
    out.push({
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 'fabric' },
      spec: { driver: NIC, pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 }, allNodes: true, devices: [nic('nic-0'), nic('nic-1')] },
    });
  if (which.zone) {
    const selector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] };
    out.push({
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 'zone-a' },
      spec: { driver: NIC, pool: { name: 'zone-a', generation: 1, resourceSliceCount: 1 }, nodeSelector: selector, devices: [nic('nic-a')] },
    });
  }
  if (which.perDevice && nodes.length > 0) {
    const devices = nodes.slice(0, 2).map((n, i) => nic(`nic-${n}`, { nodeName: n, attributes: { speed: { int: 100 * (i + 1) } } }));
    out.push({
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 'per-device' },
      spec: { driver: NIC, pool: { name: 'per-device', generation: 1, resourceSliceCount: 1 }, perDeviceNodeSelection: true, devices },
    });
  }
  return out;
}

/** A random cluster: classes, slices and nodes (node-i, zone a or b). */
export interface RandomCluster {
  classes: Obj[];
  slices: Obj[];
  nodes: Obj[];
  consumable: boolean;
}

export const cluster = (consumable: boolean): fc.Arbitrary<RandomCluster> =>
  fc
    .record({
      types: fc.array(nodeType, { minLength: 1, maxLength: 3 }),
      nodes: fc.array(fc.record({ type: fc.nat(), zoneA: fc.boolean() }), { minLength: 1, maxLength: 7 }),
      network: fc.record({ all: fc.boolean(), zone: fc.boolean(), perDevice: fc.boolean() }),
    })
    .map(({ types, nodes, network }) => {
      const names = nodes.map((_, i) => `node-${i}`);
      const slices = nodes.flatMap((n, i) => nodeSlices(names[i], types[n.type % types.length], consumable));
      slices.push(...networkSlices(names, network));
      const nodeObjs = nodes.map((n, i) => nodeObject(names[i], { zone: n.zoneA ? 'a' : 'b' }));
      return { classes: CLASSES, slices, nodes: nodeObjs, consumable };
    });

const request = (consumable: boolean): fc.Arbitrary<Obj> =>
  fc.oneof(
    fc
      .record({ count: fc.integer({ min: 1, max: 3 }), h100: fc.boolean(), tolerate: fc.boolean(), admin: fc.integer({ min: 0, max: 9 }), memory: fc.constantFrom(undefined, '10Gi', '30Gi') })
      .map((r): Obj => {
        const exactly: Obj = { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: r.count };
        if (r.h100) exactly.selectors = [{ cel: { expression: `device.attributes["${GPU}"].model == "h100"` } }];
        if (r.tolerate) exactly.tolerations = [{ key: 'maintenance', operator: 'Exists', effect: 'NoSchedule' }];
        if (r.admin === 0) exactly.adminAccess = true;
        if (consumable && r.memory !== undefined) exactly.capacity = { requests: { memory: r.memory } };
        return { exactly };
      }),
    fc.integer({ min: 1, max: 2 }).map((count): Obj => ({ exactly: { deviceClassName: 'part', allocationMode: 'ExactCount', count } })),
    fc.constant<Obj>({ exactly: { deviceClassName: 'nic', allocationMode: 'ExactCount', count: 1 } }),
    fc.constant<Obj>({
      firstAvailable: [
        { name: 'two-h100', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 2, selectors: [{ cel: { expression: `device.attributes["${GPU}"].model == "h100"` } }] },
        { name: 'one', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
      ],
    }),
  );

/** A claim spec: one or two requests, sometimes all on one NUMA node. */
export const claimSpec = (consumable: boolean): fc.Arbitrary<Obj> =>
  fc.record({ requests: fc.array(request(consumable), { minLength: 1, maxLength: 2 }), sameNuma: fc.boolean() }).map(({ requests, sameNuma }) => {
    const named = requests.map((r, i) => ({ name: `r${i}`, ...r }));
    const gpuOnly = named.every((r) => (r as { exactly?: { deviceClassName: string } }).exactly?.deviceClassName === 'gpu');
    return { devices: { requests: named, ...(sameNuma && gpuOnly ? { constraints: [{ matchAttribute: `${GPU}/numa` }] } : {}) } };
  });

/** One step of a stream: schedule a pod of one or two claims, or release a claim held (by position among those held). */
export type Step = { pod: Obj[] } | { release: number };

export const steps = (consumable: boolean): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.array(claimSpec(consumable), { minLength: 1, maxLength: 2 }).map((specs): Step => ({ pod: specs })) },
      { weight: 1, arbitrary: fc.nat().map((release): Step => ({ release })) },
    ),
    { minLength: 1, maxLength: 14 },
  );
