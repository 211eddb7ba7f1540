// Built-in presets named after real machines: full inventories (GPUs, MIG, links, CPUs, memory).
import { fail } from '../shared/validate.js';
import { INVENTORY_VERSION, type Inventory, type InventoryGpu, type MigDevice } from './inventory.js';
import type { Link, PcieLevel } from './topology.js';

/** A built-in machine. */
export type Preset = { name: string; description: string; inventory: Inventory };

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** A deterministic UUID-shaped string (FNV-1a over `seed`): presets need stable, realistic IDs. */
function _uuid(seed: string): string {
  let hex = '';
  let h = 0x811c9dc5;
  for (let round = 0; hex.length < 32; round++) {
    const text = `${seed}#${round}`;
    for (let k = 0; k < text.length; k++) {
      h ^= text.charCodeAt(k);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    hex += h.toString(16).padStart(8, '0');
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** CPU ids "0" .. "count-1". */
function _cpus(count: number): string[] {
  return Array.from({ length: count }, (_, k) => String(k));
}

type GpuModel = { name: string; memoryTotal: number };

const V100_SXM2_32GB: GpuModel = { name: 'Tesla V100-SXM2-32GB', memoryTotal: 32510 * MIB };
const V100_SXM3_32GB: GpuModel = { name: 'Tesla V100-SXM3-32GB', memoryTotal: 32510 * MIB };
const P100_SXM2_16GB: GpuModel = { name: 'Tesla P100-SXM2-16GB', memoryTotal: 16280 * MIB };
const RTX8000: GpuModel = { name: 'Quadro RTX 8000', memoryTotal: 48601 * MIB };
const A100_SXM4_80GB: GpuModel = { name: 'NVIDIA A100-SXM4-80GB', memoryTotal: 81920 * MIB };
const H100_SXM5_80GB: GpuModel = { name: 'NVIDIA H100 80GB HBM3', memoryTotal: 81559 * MIB };
const L40S: GpuModel = { name: 'NVIDIA L40S', memoryTotal: 46068 * MIB };

/** MIG profiles of an A100-SXM4-80GB: memory of each slice in bytes (as NVML reports it). */
const A100_80GB_MIG: Readonly<Record<string, number>> = {
  '1g.10gb': 9728 * MIB,
  '2g.20gb': 19968 * MIB,
  '3g.40gb': 40192 * MIB,
  '4g.40gb': 40192 * MIB,
  '7g.80gb': 80896 * MIB,
};

function _gpus(host: string, model: GpuModel, busIds: string[], numa: number[]): InventoryGpu[] {
  return busIds.map((bus, index) => ({
    index,
    id: `cuda${index}`,
    uuid: `GPU-${_uuid(`${host}/gpu${index}`)}`,
    name: model.name,
    memoryTotal: model.memoryTotal,
    memoryUsed: 0,
    pciBusId: `0000:${bus}:00.0`,
    numaNode: numa[index],
    minorNumber: index,
  }));
}

/** Every unordered pair, from a function giving its PCIe level and NVLink count (0: none). */
function _links(n: number, pair: (a: number, b: number) => { pcie: PcieLevel; nvlink: number }): Link[] {
  const links: Link[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const { pcie, nvlink } = pair(a, b);
      links.push(nvlink > 0 ? { a, b, pcie, nvlink } : { a, b, pcie });
    }
  }
  return links;
}

/** A links table given as rows of nvidia-smi-like cells ('NV2+PHB', 'SYS', '-'). */
function _linksFromRows(rows: string[][]): Link[] {
  const n = rows.length;
  return _links(n, (a, b) => {
    const cell = rows[a]?.[b] ?? '(none)';
    const m = /^(?:NV(\d+)\+)?(INTERNAL|PIX|PXB|PHB|NODE|SYS)$/.exec(cell);
    if (m === null || rows[b]?.[a] !== cell) throw new Error(`preset table: bad cell ${cell} at (${a}, ${b})`);
    return { pcie: m[2] as PcieLevel, nvlink: m[1] === undefined ? 0 : Number(m[1]) };
  });
}

// DGX-1 (Volta), go-gpuallocator's NewDGX1VoltaNode fixture: hybrid cube mesh, 6 NVLinks per GPU.
const DGX1_VOLTA_ROWS = [
  ['-', 'NV1+PIX', 'NV1+PHB', 'NV2+PHB', 'NV2+SYS', 'SYS', 'SYS', 'SYS'],
  ['NV1+PIX', '-', 'NV2+PHB', 'NV1+PHB', 'SYS', 'NV2+SYS', 'SYS', 'SYS'],
  ['NV1+PHB', 'NV2+PHB', '-', 'NV2+PIX', 'SYS', 'SYS', 'NV1+SYS', 'SYS'],
  ['NV2+PHB', 'NV1+PHB', 'NV2+PIX', '-', 'SYS', 'SYS', 'SYS', 'NV1+SYS'],
  ['NV2+SYS', 'SYS', 'SYS', 'SYS', '-', 'NV1+PIX', 'NV1+PHB', 'NV2+PHB'],
  ['SYS', 'NV2+SYS', 'SYS', 'SYS', 'NV1+PIX', '-', 'NV2+PHB', 'NV1+PHB'],
  ['SYS', 'SYS', 'NV1+SYS', 'SYS', 'NV1+PHB', 'NV2+PHB', '-', 'NV2+PIX'],
  ['SYS', 'SYS', 'SYS', 'NV1+SYS', 'NV2+PHB', 'NV1+PHB', 'NV2+PIX', '-'],
];

const DGX1_BUS = ['06', '07', '0A', '0B', '85', '86', '89', '8A'];
const DGX1_NUMA = [0, 0, 0, 0, 1, 1, 1, 1];

/** DGX-1 PCIe tree: GPU pairs share a PLX switch, each quad hangs off one CPU. */
function _dgx1Pcie(a: number, b: number): PcieLevel {
  if (a >> 2 !== b >> 2) return 'SYS';
  return a >> 1 === b >> 1 ? 'PIX' : 'PHB';
}

function dgx1Pascal(): Inventory {
  const host = 'dgx1-pascal';
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(host, P100_SXM2_16GB, DGX1_BUS, DGX1_NUMA),
    // P100 has 4 NVLinks: one to each GPU of its quad, one to its twin in the other quad.
    links: _links(8, (a, b) => ({ pcie: _dgx1Pcie(a, b), nvlink: a >> 2 === b >> 2 || b - a === 4 ? 1 : 0 })),
    cpus: _cpus(80),
    memory: 512 * GIB,
  };
}

function dgx1Volta(): Inventory {
  const host = 'dgx1-volta';
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(host, V100_SXM2_32GB, DGX1_BUS, DGX1_NUMA),
    links: _linksFromRows(DGX1_VOLTA_ROWS),
    cpus: _cpus(80),
    memory: 512 * GIB,
  };
}

function rtx8000x4(): Inventory {
  const host = '4x-rtx8000';
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(host, RTX8000, ['1A', '1B', '3D', '3E'], [0, 0, 0, 0]),
    // Two PCIe switches under one CPU; an NVLink bridge (2 links) joins each switch's pair.
    links: _links(4, (a, b) => (a >> 1 === b >> 1 ? { pcie: 'PIX', nvlink: 2 } : { pcie: 'PHB', nvlink: 0 })),
    cpus: _cpus(48),
    memory: 384 * GIB,
  };
}

function dgx2(): Inventory {
  const host = 'dgx2';
  const bus = ['34', '36', '39', '3B', '57', '59', '5C', '5E', 'B7', 'B9', 'BC', 'BE', 'E0', 'E2', 'E5', 'E7'];
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(
      host,
      V100_SXM3_32GB,
      bus,
      bus.map((_, k) => (k < 8 ? 0 : 1)),
    ),
    // 6 NVLinks per GPU into the NVSwitch fabric: every pair sees NV6. PCIe: pairs share a leaf
    // switch, quads a second-level switch, each baseboard one CPU.
    links: _links(16, (a, b) => ({ pcie: a >> 3 !== b >> 3 ? 'SYS' : a >> 2 !== b >> 2 ? 'NODE' : a >> 1 !== b >> 1 ? 'PXB' : 'PIX', nvlink: 6 })),
    cpus: _cpus(96),
    memory: 1536 * GIB,
  };
}

function dgxA100Gpus(host: string): InventoryGpu[] {
  return _gpus(host, A100_SXM4_80GB, ['07', '0F', '47', '4E', '87', '90', 'B7', 'BD'], [3, 3, 1, 1, 7, 7, 5, 5]);
}

/** DGX A100: NV12 everywhere (NVSwitch); GPU pairs share a PCIe switch (PXB), the rest cross NUMA nodes. */
function _dgxA100Links(): Link[] {
  return _links(8, (a, b) => ({ pcie: a >> 1 === b >> 1 ? 'PXB' : 'SYS', nvlink: 12 }));
}

function dgxA100(): Inventory {
  const host = 'dgx-a100';
  return { version: INVENTORY_VERSION, host, source: `preset:${host}`, gpus: dgxA100Gpus(host), links: _dgxA100Links(), cpus: _cpus(256), memory: 2048 * GIB };
}

function _mig(host: string, gpu: number, profiles: string[]): MigDevice[] {
  return profiles.map((profile, k) => {
    const memoryTotal = A100_80GB_MIG[profile];
    if (memoryTotal === undefined) throw new Error(`preset table: unknown MIG profile ${profile}`);
    return { uuid: `MIG-${_uuid(`${host}/gpu${gpu}/mig${k}`)}`, profile, memoryTotal };
  });
}

function dgxA100Mig(): Inventory {
  const host = 'dgx-a100-mig';
  const gpus = dgxA100Gpus(host);
  // Valid A100-80GB layouts: 7 × 1g.10gb; 3 × 2g.20gb + 1g.10gb; 4g.40gb + 3g.40gb; 7g.80gb.
  const layouts: Record<number, string[]> = {
    0: ['1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb'],
    1: ['1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb', '1g.10gb'],
    2: ['2g.20gb', '2g.20gb', '2g.20gb', '1g.10gb'],
    3: ['4g.40gb', '3g.40gb'],
    4: ['7g.80gb'],
  };
  for (const g of gpus) {
    const layout = layouts[g.index];
    if (layout !== undefined) g.mig = _mig(host, g.index, layout);
  }
  return { version: INVENTORY_VERSION, host, source: `preset:${host}`, gpus, links: _dgxA100Links(), cpus: _cpus(256), memory: 2048 * GIB };
}

function dgxH100(): Inventory {
  const host = 'dgx-h100';
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(host, H100_SXM5_80GB, ['18', '2A', '3A', '5D', '9A', 'AB', 'BA', 'DB'], [0, 0, 0, 0, 1, 1, 1, 1]),
    // 18 NVLinks per GPU into four NVSwitches: NV18 everywhere. Each GPU has its own PCIe switch.
    links: _links(8, (a, b) => ({ pcie: a >> 2 === b >> 2 ? 'NODE' : 'SYS', nvlink: 18 })),
    cpus: _cpus(224),
    memory: 2048 * GIB,
  };
}

function l40sPcie(): Inventory {
  const host = '8x-l40s-pcie';
  return {
    version: INVENTORY_VERSION,
    host,
    source: `preset:${host}`,
    gpus: _gpus(host, L40S, ['17', '18', '3A', '3B', '98', '99', 'BA', 'BB'], [0, 0, 0, 0, 1, 1, 1, 1]),
    // No NVLink. Two PCIe switches per socket, two GPUs each.
    links: _links(8, (a, b) => ({ pcie: a >> 2 !== b >> 2 ? 'SYS' : a >> 1 !== b >> 1 ? 'NODE' : 'PIX', nvlink: 0 })),
    cpus: _cpus(128),
    memory: 1024 * GIB,
  };
}

const PRESETS: Preset[] = [
  { name: 'dgx1-pascal', description: 'NVIDIA DGX-1 (Pascal): 8 × Tesla P100-SXM2-16GB, NVLink hybrid cube mesh (1 link per pair)', inventory: dgx1Pascal() },
  { name: 'dgx1-volta', description: 'NVIDIA DGX-1 (Volta): 8 × Tesla V100-SXM2-32GB, NVLink hybrid cube mesh (1-2 links per pair)', inventory: dgx1Volta() },
  { name: '4x-rtx8000', description: 'Workstation: 4 × Quadro RTX 8000 48GB, NVLink bridges on pairs 0-1 and 2-3', inventory: rtx8000x4() },
  { name: 'dgx2', description: 'NVIDIA DGX-2: 16 × Tesla V100-SXM3-32GB on NVSwitch (NV6 between every pair)', inventory: dgx2() },
  { name: 'dgx-a100', description: 'NVIDIA DGX A100: 8 × A100-SXM4-80GB on NVSwitch (NV12 between every pair)', inventory: dgxA100() },
  { name: 'dgx-a100-mig', description: 'NVIDIA DGX A100 with MIG on GPUs 0-4 (7×1g.10gb, 7×1g.10gb, 3×2g.20gb+1g.10gb, 4g.40gb+3g.40gb, 7g.80gb)', inventory: dgxA100Mig() },
  { name: 'dgx-h100', description: 'NVIDIA DGX H100: 8 × H100-SXM5-80GB on NVSwitch (NV18 between every pair)', inventory: dgxH100() },
  { name: '8x-l40s-pcie', description: 'PCIe server: 8 × L40S 48GB, two sockets, two PCIe switches per socket, no NVLink', inventory: l40sPcie() },
];

/** Names and descriptions of every preset. */
export function listPresets(): Array<{ name: string; description: string }> {
  return PRESETS.map(({ name, description }) => ({ name, description }));
}

/** A fresh copy of one preset's inventory. */
export function getPreset(name: string): Inventory {
  const p = PRESETS.find((x) => x.name === name);
  if (p === undefined) fail('UNKNOWN_PRESET', 'preset', `one of ${PRESETS.map((x) => x.name).join(', ')}`, name);
  return structuredClone(p.inventory);
}
