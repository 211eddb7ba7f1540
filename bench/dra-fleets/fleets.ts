// Fleets of driver-faithful nodes (nvidia.ts, others.ts) for the placement-quality benchmark, with
// a book of every device: the GPU it is on, its PCIe root, and whether the GPU can be taken whole.
import {
  A100_80GB,
  ALL_BALANCED,
  DGX_A100_LAYOUT,
  DGX_H100_LAYOUT,
  dynamicMigNode,
  type GpuModel,
  H100_80GB,
  HGX_H100_LAYOUT,
  type MachineLayout,
  NVIDIA_CLASSES,
  staticMigNode,
  wholeGpuNode,
} from './nvidia.js';
import { DRANET_DRIVER, EXAMPLE_CLASS, exampleNode, NIC_CLASS, nicNode } from './others.js';

type Obj = Record<string, unknown>;

/** The node kinds a fleet is made of. */
export type NodeKind = 'dgx-h100' | 'a100-static-mig' | 'h100-dynamic-mig' | 'example-shared';

/** The fleets of the benchmark. */
export type FleetName = 'dgx-h100' | 'a100-static-mig' | 'h100-dynamic-mig' | 'nvidia-mix' | 'example-shared';

/** Nodes of each kind per fleet, at scale 1 (the mix is the 24 : 16 : 8 fleet of the issue, halved). */
export const FLEETS: Record<FleetName, Partial<Record<NodeKind, number>>> = {
  'dgx-h100': { 'dgx-h100': 8 },
  'a100-static-mig': { 'a100-static-mig': 8 },
  'h100-dynamic-mig': { 'h100-dynamic-mig': 8 },
  'nvidia-mix': { 'dgx-h100': 12, 'a100-static-mig': 8, 'h100-dynamic-mig': 4 },
  'example-shared': { 'example-shared': 8 },
};

/** What the benchmark knows of one GPU (a parent of partitions, or a whole device). */
export interface GpuEntry {
  node: string;
  minor: number;
  /** `node/pcieRoot`. */
  root: string;
  /** The GPU is published as a whole device (not only as static MIG devices). */
  whole: boolean;
}

/** A fleet: its objects and the book of its GPUs and devices. */
export interface Fleet {
  name: FleetName;
  classes: Obj[];
  slices: Obj[];
  nodes: Obj[];
  /** Every GPU, keyed `node/minor`. */
  gpus: Map<string, GpuEntry>;
  /** Device `driver/pool/device` → the GPU key it is on (NICs: `node/nic/<root>`). */
  deviceGpu: Map<string, string>;
  /** Device → its PCIe root key (`node/pcieRoot`). */
  deviceRoot: Map<string, string>;
  /** MIG profiles some node publishes (static: created; dynamic: every profile). */
  profiles: Set<string>;
  /** Node kinds present. */
  kinds: Set<NodeKind>;
}

function nodeObject(name: string, kind: NodeKind): Obj {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'node.kubernetes.io/instance-type': kind } } };
}

/** The static MIG GPUs of an A100 node: the first four in `all-balanced`, the others whole. */
const STATIC_MIG_GPUS = [0, 1, 2, 3];

/** Builds a fleet at `scale` × its nodes per kind. */
export function buildFleet(name: FleetName, scale = 1): Fleet {
  const fleet: Fleet = {
    name,
    classes: [...NVIDIA_CLASSES, NIC_CLASS, EXAMPLE_CLASS],
    slices: [],
    nodes: [],
    gpus: new Map(),
    deviceGpu: new Map(),
    deviceRoot: new Map(),
    profiles: new Set(),
    kinds: new Set(),
  };
  for (const [kind, count] of Object.entries(FLEETS[name]) as Array<[NodeKind, number]>) {
    fleet.kinds.add(kind);
    for (let i = 0; i < count * scale; i++) addNode(fleet, kind, `${kind}-${i}`);
  }
  return fleet;
}

function addNode(fleet: Fleet, kind: NodeKind, node: string): void {
  fleet.nodes.push(nodeObject(node, kind));
  let slices: Obj[];
  let layout: MachineLayout | undefined;
  let model: GpuModel | undefined;
  if (kind === 'dgx-h100') {
    [layout, model] = [DGX_H100_LAYOUT, H100_80GB];
    slices = wholeGpuNode(node, model, layout);
  } else if (kind === 'a100-static-mig') {
    [layout, model] = [DGX_A100_LAYOUT, A100_80GB];
    slices = staticMigNode(node, model, layout, STATIC_MIG_GPUS, ALL_BALANCED);
    for (const p of Object.keys(ALL_BALANCED)) fleet.profiles.add(p);
  } else if (kind === 'h100-dynamic-mig') {
    [layout, model] = [HGX_H100_LAYOUT, H100_80GB];
    slices = dynamicMigNode(node, model, layout);
    for (const p of model.profiles) fleet.profiles.add(p.name);
  } else slices = exampleNode(node, 8, 2, true);
  if (layout !== undefined) slices.push(...nicNode(node, layout));
  fleet.slices.push(...slices);
  for (const s of slices) {
    const spec = s.spec as { driver: string; pool: { name: string }; devices?: Array<{ name: string; attributes?: Record<string, { string?: string; int?: number }> }> };
    for (const d of spec.devices ?? []) {
      const id = `${spec.driver}/${spec.pool.name}/${d.name}`;
      const root = `${node}/${d.attributes?.['resource.kubernetes.io/pcieRoot']?.string ?? '?'}`;
      fleet.deviceRoot.set(id, root);
      if (spec.driver === DRANET_DRIVER) {
        fleet.deviceGpu.set(id, `${node}/nic/${root}`);
        continue;
      }
      const minor = Number(/^gpu-(\d+)/.exec(d.name)?.[1]);
      const key = `${node}/${minor}`;
      fleet.deviceGpu.set(id, key);
      const whole = d.name === `gpu-${minor}`;
      const entry = fleet.gpus.get(key);
      if (entry === undefined) fleet.gpus.set(key, { node, minor, root, whole });
      else if (whole) entry.whole = true;
    }
  }
}
