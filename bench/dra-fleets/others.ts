// ResourceSlices of the other drivers the quality benchmark uses, as they publish them:
// - the DRA example driver (kubernetes-sigs/dra-example-driver, `gpu.example.com`,
//   cmd/dra-example-kubeletplugin/discovery.go): `gpu-<i>` with `index` (int), `uuid`
//   (`gpu-<uuid>`), `model` "LATEST-GPU-MODEL", `driverVersion` 1.0.0 and capacity `memory` 80Gi;
//   extra attributes come from its `--device-attributes` flag (here the standard `pcieRoot`). The
//   shared variant marks each GPU `allowMultipleAllocations` with a `memory` request policy
//   (KEP-5075 consumable capacity); the example driver itself publishes exclusive GPUs, so that
//   variant is this benchmark's, named as such.
// - DraNet (kubernetes-sigs/dranet, `dra.net`, pkg/apis/attributes.go): one device per NIC, named
//   from its PCI address (`pci-0000-1a-00-0`), with `dra.net/ifName`, `pciAddress`, `pciVendor`,
//   `pciDevice`, `numaNode`, `rdma`, `sriov`, `state`, `type`, `virtual` and the standard
//   `resource.kubernetes.io/pcieRoot` (what pairs a NIC with the GPU under the same root).
import type { MachineLayout } from './nvidia.js';

type Obj = Record<string, unknown>;

/** The example driver's name and device class. */
export const EXAMPLE_DRIVER = 'gpu.example.com';
export const EXAMPLE_CLASS: Obj = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'DeviceClass',
  metadata: { name: 'gpu.example.com' },
  spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.example.com'" } }] },
};

/** DraNet's name and an RDMA NIC class (as DraNet's documentation defines one). */
export const DRANET_DRIVER = 'dra.net';
export const NIC_CLASS: Obj = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'DeviceClass',
  metadata: { name: 'rdma-nic' },
  spec: { selectors: [{ cel: { expression: "device.driver == 'dra.net' && device.attributes['dra.net'].rdma == true" } }] },
};

function exampleUuid(node: string, i: number): string {
  let h = 2166136261;
  for (const ch of `${node}#${i}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const a = hex(h);
  const b = hex(Math.imul(h, 2246822519));
  return `gpu-${a}-${b.slice(0, 4)}-${b.slice(4)}-${a.slice(4)}-${b}${a.slice(0, 4)}`;
}

/**
 * One node of the example driver: `gpus` GPUs, `perRoot` of them under each PCIe root. `shared`:
 * every GPU takes several allocations, each consuming `memory` in steps of 10Gi (default 10Gi).
 */
export function exampleNode(node: string, gpus = 8, perRoot = 2, shared = false): Obj[] {
  const devices = Array.from({ length: gpus }, (_, i) => {
    const device: Obj = {
      name: `gpu-${i}`,
      attributes: {
        index: { int: i },
        uuid: { string: exampleUuid(node, i) },
        model: { string: 'LATEST-GPU-MODEL' },
        driverVersion: { version: '1.0.0' },
        'resource.kubernetes.io/pcieRoot': { string: `pci0000:${(0x10 * Math.floor(i / perRoot)).toString(16).padStart(2, '0')}` },
      },
      capacity: shared ? { memory: { value: '80Gi', requestPolicy: { default: '10Gi', validRange: { min: '10Gi', step: '10Gi' } } } } : { memory: { value: '80Gi' } },
    };
    if (shared) device.allowMultipleAllocations = true;
    return device;
  });
  return [
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${node}-gpu.example.com` },
      spec: { driver: EXAMPLE_DRIVER, pool: { name: node, generation: 1, resourceSliceCount: 1 }, nodeName: node, devices },
    },
  ];
}

/** DraNet's slice for a machine: one RDMA NIC beside each PCIe root's first GPU (bus + 1). */
export function nicNode(node: string, layout: MachineLayout): Obj[] {
  const roots = [...new Set(layout.gpuRoot)];
  const devices = roots.map((root) => {
    const minor = layout.gpuRoot.indexOf(root);
    const bus = (parseInt(layout.gpuBus[minor]!, 16) + 1).toString(16).padStart(2, '0');
    return {
      name: `pci-0000-${bus}-00-0`,
      attributes: {
        'dra.net/ifName': { string: `ibp${parseInt(bus, 16)}s0` },
        'dra.net/pciAddress': { string: `0000:${bus}:00.0` },
        'dra.net/pciVendor': { string: 'Mellanox Technologies' },
        'dra.net/pciDevice': { string: 'MT2910 Family [ConnectX-7]' },
        'dra.net/numaNode': { int: layout.gpuNuma[minor] },
        'dra.net/rdma': { bool: true },
        'dra.net/sriov': { bool: false },
        'dra.net/state': { string: 'up' },
        'dra.net/type': { string: 'device' },
        'dra.net/virtual': { bool: false },
        'resource.kubernetes.io/pcieRoot': { string: root },
      },
    };
  });
  return [
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${node}-dra.net` },
      spec: { driver: DRANET_DRIVER, pool: { name: node, generation: 1, resourceSliceCount: 1 }, nodeName: node, devices },
    },
  ];
}
