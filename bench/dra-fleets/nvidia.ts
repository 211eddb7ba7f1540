// ResourceSlices as NVIDIA's GPU DRA driver (NVIDIA/k8s-dra-driver-gpu, driver `gpu.nvidia.com`)
// publishes them, built for fleets of any size. Read from the driver's kubelet plugin:
// - cmd/gpu-kubelet-plugin/deviceinfo.go: a whole GPU is `gpu-<minor>` with attributes `type`
//   ("gpu"), `uuid`, `productName`, `brand`, `architecture`, `cudaComputeCapability`,
//   `driverVersion`, `cudaDriverVersion` (versions), `addressingMode`, and the standard
//   `resource.kubernetes.io/pciBusID`, `resource.kubernetes.io/pcieRoot` (and, where the node
//   reports one, `resource.kubernetes.io/numaNode`); capacity `memory` in bytes.
// - cmd/gpu-kubelet-plugin/mig.go: a MIG device is `gpu-<minor>-mig-<profile without dots>-<GI
//   profile ID>-<placement start>` with `type` "mig", `parentUUID`, `profile`, the parent's
//   product, versions, `resource.kubernetes.io/pciBusID` and `pcieRoot`; capacity
//   `multiprocessors`, `copyEngines`, `decoders`, `encoders`, `jpegEngines`, `ofaEngines`,
//   `memory`, and `memorySlice<i>` = 1 for each memory slice it holds.
// - cmd/gpu-kubelet-plugin/partitions.go (DynamicMIG, KEP-4815 partitionable devices): one counter
//   set per GPU, `gpu-<minor>-counter-set`, holding one counter per capacity (names in DNS form:
//   `multiprocessors`, `copy-engines`, `decoders`, `encoders`, `jpeg-engines`, `ofa-engines`,
//   `memory`; the GPU's largest profile's values, so `encoders` is 0 on A100/H100) and one counter
//   `memory-slice-<i>` = 1 per memory slice. Every MIG placement is published (whether created or
//   not) and consumes its profile's capacities and its slices; the whole GPU consumes everything.
//   The counter sets go in a slice of their own in the node's pool (devices and shared counters are
//   exclusive per slice since Kubernetes 1.35).
// Static MIG: MIG-enabled GPUs publish their created MIG devices (no counters), the others whole.
// The profile table is NVIDIA's MIG user guide (A100 80GB, H100 80GB); the `+me` media-extension
// profiles and 1g.20gb's siblings with identical placements are left out (the driver publishes them
// too; they change no placement here). Bus IDs follow `nvidia-smi` on the named machines; the
// PCIe root of each GPU is given per machine (see `MachineLayout`).

/** A MIG GPU-instance profile: its capacities and where it may be placed (memory slices). */
export interface MigProfile {
  name: string;
  /** GPU instance profile ID (`nvidia-smi mig -lgip`). */
  id: number;
  /** Compute slices (the "g" of the name): the share of the GPU a claim of it counts as, over 7. */
  computeSlices: number;
  multiprocessors: number;
  copyEngines: number;
  decoders: number;
  encoders: number;
  jpegEngines: number;
  ofaEngines: number;
  /** Memory in MiB. */
  memoryMiB: number;
  /** Memory slices a placement takes. */
  size: number;
  /** Valid placement starts (memory slice index). */
  starts: number[];
}

/** One GPU model: product name, architecture, memory, the MIG profiles and the memory slices. */
export interface GpuModel {
  key: 'A100-80GB' | 'H100-80GB';
  productName: string;
  architecture: string;
  cudaComputeCapability: string;
  memoryBytes: number;
  memorySlices: number;
  profiles: MigProfile[];
}

const p = (name: string, id: number, g: number, sm: number, ce: number, dec: number, jpeg: number, ofa: number, memoryMiB: number, size: number, starts: number[]): MigProfile => ({
  name,
  id,
  computeSlices: g,
  multiprocessors: sm,
  copyEngines: ce,
  decoders: dec,
  encoders: 0,
  jpegEngines: jpeg,
  ofaEngines: ofa,
  memoryMiB,
  size,
  starts,
});

/** A100-SXM4-80GB (Ampere, 8 memory slices). */
export const A100_80GB: GpuModel = {
  key: 'A100-80GB',
  productName: 'NVIDIA A100-SXM4-80GB',
  architecture: 'Ampere',
  cudaComputeCapability: '8.0',
  memoryBytes: 85899345920,
  memorySlices: 8,
  profiles: [
    p('1g.10gb', 19, 1, 14, 1, 0, 0, 0, 9728, 1, [0, 1, 2, 3, 4, 5, 6]),
    p('1g.20gb', 15, 1, 14, 1, 1, 0, 0, 19968, 2, [0, 2, 4, 6]),
    p('2g.20gb', 14, 2, 28, 2, 1, 0, 0, 19968, 2, [0, 2, 4]),
    p('3g.40gb', 9, 3, 42, 3, 2, 0, 0, 40192, 4, [0, 4]),
    p('4g.40gb', 5, 4, 56, 4, 2, 0, 0, 40192, 4, [0]),
    p('7g.80gb', 0, 7, 98, 7, 5, 1, 1, 80896, 8, [0]),
  ],
};

/** H100 80GB HBM3 (Hopper, 8 memory slices). */
export const H100_80GB: GpuModel = {
  key: 'H100-80GB',
  productName: 'NVIDIA H100 80GB HBM3',
  architecture: 'Hopper',
  cudaComputeCapability: '9.0',
  memoryBytes: 85520809984,
  memorySlices: 8,
  profiles: [
    p('1g.10gb', 19, 1, 16, 1, 1, 1, 0, 10240, 1, [0, 1, 2, 3, 4, 5, 6]),
    p('1g.20gb', 15, 1, 26, 1, 1, 1, 0, 20480, 2, [0, 2, 4, 6]),
    p('2g.20gb', 14, 2, 32, 2, 2, 2, 0, 20480, 2, [0, 2, 4]),
    p('3g.40gb', 9, 3, 60, 3, 3, 3, 0, 40960, 4, [0, 4]),
    p('4g.40gb', 5, 4, 64, 4, 4, 4, 0, 40960, 4, [0]),
    p('7g.80gb', 0, 7, 132, 8, 7, 7, 1, 81920, 8, [0]),
  ],
};

/** Where a machine's GPUs sit: PCI bus of each GPU (by minor) and its PCIe root; the NIC next to each root. */
export interface MachineLayout {
  name: string;
  /** PCI bus number (hex, two digits) of GPU minor i. */
  gpuBus: string[];
  /** PCIe root of GPU minor i, as `pci<domain>:<bus>` (the form of the standard attribute). */
  gpuRoot: string[];
  /** NUMA node of GPU minor i (published only when the layout sets `publishNuma`). */
  gpuNuma: number[];
  publishNuma: boolean;
}

/** DGX H100: 8 GPUs, each behind its own PCIe switch and root with one ConnectX-7 (so one GPU per root). */
export const DGX_H100_LAYOUT: MachineLayout = {
  name: 'DGX H100',
  gpuBus: ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'],
  gpuRoot: ['pci0000:15', 'pci0000:26', 'pci0000:37', 'pci0000:59', 'pci0000:97', 'pci0000:a8', 'pci0000:b7', 'pci0000:d7'],
  gpuNuma: [0, 0, 0, 0, 1, 1, 1, 1],
  publishNuma: false,
};

/** DGX A100: 8 GPUs in pairs behind four PCIe switches, one root each (two GPUs per root). */
export const DGX_A100_LAYOUT: MachineLayout = {
  name: 'DGX A100',
  gpuBus: ['07', '0f', '47', '4e', '87', '90', 'b7', 'bd'],
  gpuRoot: ['pci0000:00', 'pci0000:00', 'pci0000:40', 'pci0000:40', 'pci0000:80', 'pci0000:80', 'pci0000:b0', 'pci0000:b0'],
  gpuNuma: [3, 3, 1, 1, 7, 7, 5, 5],
  publishNuma: false,
};

/** An HGX H100 PCIe-switch board: two GPUs per root, NUMA published (Kubernetes 1.37's standard `numaNode`). */
export const HGX_H100_LAYOUT: MachineLayout = {
  name: 'HGX H100 (2 GPUs per PCIe root)',
  gpuBus: ['19', '3b', '4c', '5d', '9b', 'bb', 'cb', 'db'],
  gpuRoot: ['pci0000:17', 'pci0000:17', 'pci0000:4a', 'pci0000:4a', 'pci0000:97', 'pci0000:97', 'pci0000:c9', 'pci0000:c9'],
  gpuNuma: [0, 0, 0, 0, 1, 1, 1, 1],
  publishNuma: true,
};

/** The driver's name and its device classes (as the driver's Helm chart installs them). */
export const NVIDIA_DRIVER = 'gpu.nvidia.com';
export const NVIDIA_CLASSES: Array<Record<string, unknown>> = [
  {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'gpu.nvidia.com' },
    spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'" } }] },
  },
  {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'mig.nvidia.com' },
    spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'" } }] },
  },
];

type Obj = Record<string, unknown>;
const DRIVER_VERSION = '580.95.5';
const CUDA_DRIVER_VERSION = '13.0.0';
const STD = 'resource.kubernetes.io';

/** A deterministic GPU UUID for (node, minor). */
function uuid(node: string, minor: number, salt = 0): string {
  let h = 2166136261 ^ salt;
  for (const ch of `${node}/${minor}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const a = hex(h);
  const b = hex(Math.imul(h, 2654435761));
  const c = hex(Math.imul(h ^ 0x9e3779b9, 40503));
  return `GPU-${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${a.slice(0, 4)}`;
}

function gpuAttributes(model: GpuModel, layout: MachineLayout, node: string, minor: number): Obj {
  const attrs: Obj = {
    type: { string: 'gpu' },
    uuid: { string: uuid(node, minor) },
    productName: { string: model.productName },
    brand: { string: 'Nvidia' },
    architecture: { string: model.architecture },
    cudaComputeCapability: { version: `${model.cudaComputeCapability}.0` },
    driverVersion: { version: DRIVER_VERSION },
    cudaDriverVersion: { version: CUDA_DRIVER_VERSION },
    addressingMode: { string: 'None' },
    [`${STD}/pciBusID`]: { string: `0000:${layout.gpuBus[minor]}:00.0` },
    [`${STD}/pcieRoot`]: { string: layout.gpuRoot[minor] },
  };
  if (layout.publishNuma) attrs[`${STD}/numaNode`] = { int: layout.gpuNuma[minor] };
  return attrs;
}

function migAttributes(model: GpuModel, layout: MachineLayout, node: string, minor: number, profile: MigProfile): Obj {
  return {
    type: { string: 'mig' },
    parentUUID: { string: uuid(node, minor) },
    profile: { string: profile.name },
    productName: { string: model.productName },
    brand: { string: 'Nvidia' },
    architecture: { string: model.architecture },
    cudaComputeCapability: { version: `${model.cudaComputeCapability}.0` },
    driverVersion: { version: DRIVER_VERSION },
    cudaDriverVersion: { version: CUDA_DRIVER_VERSION },
    addressingMode: { string: 'None' },
    [`${STD}/pciBusID`]: { string: `0000:${layout.gpuBus[minor]}:00.0` },
    [`${STD}/pcieRoot`]: { string: layout.gpuRoot[minor] },
  };
}

/** The device name of a MIG placement (mig.go's canonical name). */
export function migDeviceName(minor: number, profile: MigProfile, start: number): string {
  return `gpu-${minor}-mig-${profile.name.replace(/\./g, '')}-${profile.id}-${start}`;
}

const q = (n: number): Obj => ({ value: String(n) });

function migCapacity(profile: MigProfile, start: number): Obj {
  const cap: Obj = {
    multiprocessors: q(profile.multiprocessors),
    copyEngines: q(profile.copyEngines),
    decoders: q(profile.decoders),
    encoders: q(profile.encoders),
    jpegEngines: q(profile.jpegEngines),
    ofaEngines: q(profile.ofaEngines),
    memory: q(profile.memoryMiB * 1024 * 1024),
  };
  for (let i = start; i < start + profile.size; i++) cap[`memorySlice${i}`] = q(1);
  return cap;
}

/** The counters a placement consumes (DNS-form capacity names plus its memory slices). */
function migCounters(profile: MigProfile, start: number): Obj {
  const counters: Obj = {
    multiprocessors: q(profile.multiprocessors),
    'copy-engines': q(profile.copyEngines),
    decoders: q(profile.decoders),
    encoders: q(profile.encoders),
    'jpeg-engines': q(profile.jpegEngines),
    'ofa-engines': q(profile.ofaEngines),
    memory: q(profile.memoryMiB * 1024 * 1024),
  };
  for (let i = start; i < start + profile.size; i++) counters[`memory-slice-${i}`] = q(1);
  return counters;
}

/** The GPU's counter set: its largest profile's capacities and every memory slice. */
function fullCounters(model: GpuModel): Obj {
  const largest = model.profiles[model.profiles.length - 1]!;
  return migCounters(largest, 0);
}

function slice(node: string, devices: Obj[], sharedCounters?: Obj[], count = 1, suffix = ''): Obj {
  const spec: Obj = { driver: NVIDIA_DRIVER, pool: { name: node, generation: 1, resourceSliceCount: count }, nodeName: node };
  if (sharedCounters !== undefined) spec.sharedCounters = sharedCounters;
  else spec.devices = devices;
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: `${node}-gpu.nvidia.com${suffix}` }, spec };
}

/** A node of whole GPUs (MIG disabled), e.g. a DGX H100. */
export function wholeGpuNode(node: string, model: GpuModel, layout: MachineLayout): Obj[] {
  const devices = layout.gpuBus.map((_, minor) => ({ name: `gpu-${minor}`, attributes: gpuAttributes(model, layout, node, minor), capacity: { memory: q(model.memoryBytes) } }));
  return [slice(node, devices)];
}

/** A MIG layout of one GPU: profile name → how many (placed first-fit from slice 0, as nvidia-mig-parted creates them). */
export type MigLayout = Record<string, number>;

/** mig-parted's `all-balanced` for an 8-slice GPU: 2 × 1g, 1 × 2g, 1 × 3g. */
export const ALL_BALANCED: MigLayout = { '3g.40gb': 1, '2g.20gb': 1, '1g.10gb': 2 };

/** Placements of a static layout: largest profiles first, the lowest valid starts that let every instance fit. */
export function placeLayout(model: GpuModel, layout: MigLayout): Array<{ profile: MigProfile; start: number }> {
  const wanted = [...model.profiles].sort((a, b) => b.size - a.size || b.computeSlices - a.computeSlices).flatMap((profile) => Array.from({ length: layout[profile.name] ?? 0 }, () => profile));
  const used = new Array<boolean>(model.memorySlices).fill(false);
  const out: Array<{ profile: MigProfile; start: number }> = [];
  const place = (k: number): boolean => {
    if (k === wanted.length) return true;
    const profile = wanted[k]!;
    for (const start of profile.starts) {
      if (used.slice(start, start + profile.size).some((u) => u)) continue;
      for (let i = start; i < start + profile.size; i++) used[i] = true;
      out.push({ profile, start });
      if (place(k + 1)) return true;
      out.pop();
      for (let i = start; i < start + profile.size; i++) used[i] = false;
    }
    return false;
  };
  if (!place(0)) throw new Error(`MIG layout does not fit: ${JSON.stringify(layout)}`);
  return out.sort((a, b) => a.start - b.start);
}

/**
 * A static-MIG node: GPUs whose minor is in `migGpus` have MIG on with `layout` created (published
 * as MIG devices only); the others are whole GPUs.
 */
export function staticMigNode(node: string, model: GpuModel, layout: MachineLayout, migGpus: readonly number[], migLayout: MigLayout): Obj[] {
  const devices: Obj[] = [];
  layout.gpuBus.forEach((_, minor) => {
    if (!migGpus.includes(minor)) {
      devices.push({ name: `gpu-${minor}`, attributes: gpuAttributes(model, layout, node, minor), capacity: { memory: q(model.memoryBytes) } });
      return;
    }
    for (const { profile, start } of placeLayout(model, migLayout)) {
      const attrs = migAttributes(model, layout, node, minor, profile);
      attrs.uuid = { string: `MIG-${uuid(node, minor, profile.id * 16 + start).slice(4)}` };
      devices.push({ name: migDeviceName(minor, profile, start), attributes: attrs, capacity: migCapacity(profile, start) });
    }
  });
  // The driver sorts devices by name (the scheduler takes the first match).
  devices.sort((a, b) => String(a.name).localeCompare(String(b.name), 'en', { numeric: true }));
  return [slice(node, devices)];
}

/**
 * A DynamicMIG node (partitionable devices): per GPU its counter set, the whole GPU consuming all
 * of it, and every placement of every profile consuming its part (~19 devices per GPU, ~150 per node).
 */
export function dynamicMigNode(node: string, model: GpuModel, layout: MachineLayout): Obj[] {
  const devices: Obj[] = [];
  const counterSets: Obj[] = [];
  layout.gpuBus.forEach((_, minor) => {
    const set = `gpu-${minor}-counter-set`;
    counterSets.push({ name: set, counters: fullCounters(model) });
    const largest = model.profiles[model.profiles.length - 1]!;
    const capacity = migCapacity(largest, 0);
    for (let i = 0; i < model.memorySlices; i++) delete capacity[`memorySlice${i}`];
    devices.push({ name: `gpu-${minor}`, attributes: gpuAttributes(model, layout, node, minor), capacity, consumesCounters: [{ counterSet: set, counters: fullCounters(model) }] });
    for (const profile of model.profiles) {
      for (const start of profile.starts) {
        devices.push({
          name: migDeviceName(minor, profile, start),
          attributes: migAttributes(model, layout, node, minor, profile),
          capacity: migCapacity(profile, start),
          consumesCounters: [{ counterSet: set, counters: migCounters(profile, start) }],
        });
      }
    }
  });
  devices.sort((a, b) => String(a.name).localeCompare(String(b.name), 'en', { numeric: true }));
  // Counters and devices go in separate slices of one pool (the API keeps them exclusive per slice).
  return [slice(node, [], counterSets, 2, '-counters'), slice(node, devices, undefined, 2)];
}
