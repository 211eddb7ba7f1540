// The inventory: what `gpualloc discover` writes and every command reads, and its validation.
// The same rules, as far as JSON Schema can say them, are in schema/inventory.v1.json.
import { AllocationError } from '../shared/errors.js';
import { type Labels, requireLabels } from '../shared/labels.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, keysOf, readInput, rejectUnknownKeys, requireArray, requireBoolean, requireInteger, requireObject, requireString } from '../shared/validate.js';
import { type Link, MAX_NVLINKS, PCIE_LEVELS, type PcieLevel, validateTopology } from './topology.js';

/** Current inventory schema version. */
export const INVENTORY_VERSION = 1;

/** Bounds past which an inventory value is absurd rather than a real machine's. */
export const INVENTORY_LIMITS = {
  /** Most memory of one GPU, in bytes (16 TiB; the largest GPUs today have under 300 GB). */
  maxGpuMemory: 2 ** 44,
  /** Most memory of one host, in bytes (1 PiB). */
  maxHostMemory: 2 ** 50,
  /** Most MIG devices of one GPU (7 on A100/H100; room for more). */
  maxMigDevices: 64,
  /** Most compute processes listed per GPU. */
  maxProcesses: 100_000,
  /** Most CPUs of one host. */
  maxCpus: 1 << 20,
  /** Longest string field (host, IDs, UUIDs, names), in UTF-16 code units. */
  maxStringLength: 256,
  /** Highest NUMA node number. */
  maxNumaNode: 1023,
  /** Highest device minor number (Linux minor numbers are 20 bits). */
  maxMinorNumber: (1 << 20) - 1,
} as const;

/** A MIG device inside a GPU. memoryTotal in bytes; profile as in its name, such as "1g.10gb". */
export type MigDevice = { uuid: string; profile: string; memoryTotal: number };

const MIG_KEYS = keysOf<MigDevice>()(['uuid', 'profile', 'memoryTotal']);

/** A running compute process. usedMemory in bytes. */
export type GpuProcess = { pid: number; usedMemory: number };

const PROCESS_KEYS = keysOf<GpuProcess>()(['pid', 'usedMemory']);

/**
 * One GPU. Memory in bytes. `mig` is present exactly when MIG mode is enabled (possibly empty);
 * `lost: true` marks a GPU the driver reported lost (its other fields may be missing, memoryTotal 0).
 */
export type InventoryGpu = {
  index: number;
  id?: string;
  uuid?: string;
  name?: string;
  memoryTotal: number;
  memoryUsed?: number;
  pciBusId?: string;
  numaNode?: number;
  minorNumber?: number;
  lost?: boolean;
  mig?: MigDevice[];
  processes?: GpuProcess[];
};

/** The keys of an inventory GPU, in the order files are written. */
const GPU_KEYS = keysOf<InventoryGpu>()(['index', 'id', 'uuid', 'name', 'memoryTotal', 'memoryUsed', 'pciBusId', 'numaNode', 'minorNumber', 'lost', 'mig', 'processes']);

/** A host's devices and topology. memory in bytes. */
export type Inventory = {
  version: number;
  host?: string;
  source?: string;
  gpus: InventoryGpu[];
  links: Link[];
  cpus?: string[];
  memory?: number;
  /** The node's labels (Kubernetes' syntax), such as `{ "nvidia.com/gpu.clique": "c1" }`: what plans' topology constraints name. */
  labels?: Labels;
};

/** The keys of an inventory, in the order files are written. */
const INVENTORY_KEYS = keysOf<Inventory>()(['version', 'host', 'source', 'gpus', 'links', 'cpus', 'memory', 'labels']);
const LINK_KEYS = keysOf<Link>()(['a', 'b', 'pcie', 'nvlink']);

/** PCI bus ID as NVML writes it: domain (4 or 8 hex digits), bus, device, function. */
const PCI_BUS_ID = /^[0-9a-fA-F]{4}(?:[0-9a-fA-F]{4})?:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

/** `field: TEXT` for a rule beyond a field's type (duplicates, missing fields, links); restated as INVALID_INVENTORY. */
function problem(field: string, text: string): never {
  throw AllocationError.at('INVALID_ARGUMENT', field, text);
}

/** An object with only `keys` (an unknown key is named, with the closest known one). */
function record(field: string, value: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = requireObject(field, value);
  rejectUnknownKeys(field, o, keys);
  return o;
}

/** A non-negative integer of at most `max`. */
function count(field: string, value: unknown, max: number): number {
  return requireInteger(field, value, 0, max);
}

/** A string (non-empty unless `nonEmpty` is false) of at most INVENTORY_LIMITS.maxStringLength characters. */
function text(field: string, value: unknown, nonEmpty = true): string {
  return requireString(field, value, INVENTORY_LIMITS.maxStringLength, nonEmpty);
}

function at(record: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * Validates an inventory (schema version 1) and returns a normalised copy: GPUs sorted by index,
 * one link per unordered pair with a < b, sorted. Errors are AllocationError('INVALID_INVENTORY')
 * whose message starts with `origin` (a file name) and names the path of the bad field, such as
 * `gpus[3].memoryTotal: expected a non-negative integer, got -1`. Rejected beyond the shapes:
 * duplicate GPU indices, IDs, UUIDs (MIG included) or PCI bus IDs; links naming GPUs that are not
 * listed; a pair given twice with different values; memory used above total; absurd sizes.
 */
export function validateInventory(value: unknown, origin = 'inventory'): Inventory {
  try {
    return readInventory(readInput('inventory', value, false));
  } catch (error) {
    // Every problem is INVALID_INVENTORY, said from `origin`.
    if (error instanceof AllocationError) throw error.restated({ code: 'INVALID_INVENTORY', origin });
    throw error;
  }
}

function readInventory(input: unknown): Inventory {
  const root = record('', input, INVENTORY_KEYS);
  const version = at(root, 'version');
  if (version === undefined) problem('version', `missing (this gpualloc reads inventory version ${INVENTORY_VERSION})`);
  if (version !== INVENTORY_VERSION) fail('INVALID_ARGUMENT', 'version', `${INVENTORY_VERSION} (the inventory version this gpualloc reads)`, version);
  const out: Inventory = { version: INVENTORY_VERSION, gpus: [], links: [] };
  const host = at(root, 'host');
  if (host !== undefined) out.host = text('host', host);
  const source = at(root, 'source');
  if (source !== undefined) out.source = text('source', source);

  const rawGpus = at(root, 'gpus');
  if (rawGpus === undefined) problem('gpus', 'missing (an array of GPUs, possibly empty)');
  const gpus = requireArray('gpus', rawGpus, LIMITS.maxGpus).map((raw, i) => readGpu(`gpus[${i}]`, raw));
  const seen = { index: new Map<number, string>(), id: new Map<string, string>(), uuid: new Map<string, string>(), bus: new Map<string, string>() };
  const unique = <K>(map: Map<K, string>, key: K | undefined, path: string, what: string) => {
    if (key === undefined) return;
    const prev = map.get(key);
    if (prev !== undefined) problem(path, `duplicate ${what} ${describeValue(key)} (also at ${prev})`);
    map.set(key, path);
  };
  gpus.forEach((g, i) => {
    const p = `gpus[${i}]`;
    unique(seen.index, g.index, `${p}.index`, 'GPU index');
    unique(seen.id, g.id, `${p}.id`, 'GPU id');
    unique(seen.uuid, g.uuid, `${p}.uuid`, 'UUID');
    unique(seen.bus, g.pciBusId === undefined ? undefined : canonicalBusId(g.pciBusId), `${p}.pciBusId`, 'PCI bus ID');
    g.mig?.forEach((m, j) => unique(seen.uuid, m.uuid, `${p}.mig[${j}].uuid`, 'UUID'));
  });
  out.gpus = gpus.sort((x, y) => x.index - y.index);

  const rawLinks = at(root, 'links');
  if (rawLinks !== undefined) out.links = readLinks(rawLinks, seen.index, out.gpus);

  const cpus = at(root, 'cpus');
  if (cpus !== undefined) out.cpus = requireArray('cpus', cpus, INVENTORY_LIMITS.maxCpus).map((c, i) => text(`cpus[${i}]`, c));
  const memory = at(root, 'memory');
  if (memory !== undefined) out.memory = count('memory', memory, INVENTORY_LIMITS.maxHostMemory);
  const labels = at(root, 'labels');
  if (labels !== undefined) out.labels = requireLabels('labels', labels);
  return ordered(out, INVENTORY_KEYS);
}

/** "00000000:07:00.0" and "0000:07:00.0" name the same device. */
function canonicalBusId(busId: string): string {
  const lower = busId.toLowerCase();
  return lower.length === 16 ? lower.slice(4) : lower;
}

function readGpu(p: string, raw: unknown): InventoryGpu {
  const g = record(p, raw, GPU_KEYS);
  const index = at(g, 'index');
  if (index === undefined) problem(`${p}.index`, 'missing (the NVML index of the GPU)');
  const memoryTotal = at(g, 'memoryTotal');
  if (memoryTotal === undefined) problem(`${p}.memoryTotal`, 'missing (bytes)');
  const gpu: InventoryGpu = { index: count(`${p}.index`, index, LIMITS.maxGpus - 1), memoryTotal: 0 };
  const id = at(g, 'id');
  if (id !== undefined) gpu.id = text(`${p}.id`, id);
  const uuid = at(g, 'uuid');
  if (uuid !== undefined) gpu.uuid = text(`${p}.uuid`, uuid);
  const name = at(g, 'name');
  if (name !== undefined) gpu.name = text(`${p}.name`, name, false);
  gpu.memoryTotal = count(`${p}.memoryTotal`, memoryTotal, INVENTORY_LIMITS.maxGpuMemory);
  const used = at(g, 'memoryUsed');
  if (used !== undefined) {
    gpu.memoryUsed = count(`${p}.memoryUsed`, used, INVENTORY_LIMITS.maxGpuMemory);
    if (gpu.memoryUsed > gpu.memoryTotal) fail('INVALID_ARGUMENT', `${p}.memoryUsed`, `at most memoryTotal (${gpu.memoryTotal})`, used);
  }
  const bus = at(g, 'pciBusId');
  if (bus !== undefined) {
    if (typeof bus !== 'string' || !PCI_BUS_ID.test(bus)) fail('INVALID_ARGUMENT', `${p}.pciBusId`, 'a PCI bus ID such as "0000:07:00.0"', bus);
    gpu.pciBusId = bus;
  }
  const numa = at(g, 'numaNode');
  if (numa !== undefined) gpu.numaNode = count(`${p}.numaNode`, numa, INVENTORY_LIMITS.maxNumaNode);
  const minor = at(g, 'minorNumber');
  if (minor !== undefined) gpu.minorNumber = count(`${p}.minorNumber`, minor, INVENTORY_LIMITS.maxMinorNumber);
  const lost = at(g, 'lost');
  if (lost !== undefined) {
    gpu.lost = requireBoolean(`${p}.lost`, lost);
  }
  const mig = at(g, 'mig');
  if (mig !== undefined) {
    gpu.mig = requireArray(`${p}.mig`, mig, INVENTORY_LIMITS.maxMigDevices).map((rawMig, j) => {
      const mp = `${p}.mig[${j}]`;
      const m = record(mp, rawMig, MIG_KEYS);
      const total = count(`${mp}.memoryTotal`, at(m, 'memoryTotal'), INVENTORY_LIMITS.maxGpuMemory);
      if (total > gpu.memoryTotal) fail('INVALID_ARGUMENT', `${mp}.memoryTotal`, `at most the GPU's memoryTotal (${gpu.memoryTotal})`, total);
      return { uuid: text(`${mp}.uuid`, at(m, 'uuid')), profile: text(`${mp}.profile`, at(m, 'profile')), memoryTotal: total };
    });
  }
  const processes = at(g, 'processes');
  if (processes !== undefined) {
    gpu.processes = requireArray(`${p}.processes`, processes, INVENTORY_LIMITS.maxProcesses).map((rawProc, j) => {
      const pp = `${p}.processes[${j}]`;
      const proc = record(pp, rawProc, PROCESS_KEYS);
      return { pid: count(`${pp}.pid`, at(proc, 'pid'), 2 ** 32 - 1), usedMemory: count(`${pp}.usedMemory`, at(proc, 'usedMemory'), INVENTORY_LIMITS.maxGpuMemory) };
    });
  }
  return ordered(gpu, GPU_KEYS);
}

/** A copy with keys in schema order and undefined ones left out, so written files read the same every time. */
function ordered<T extends object>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}

function readLinks(raw: unknown, indices: Map<number, string>, gpus: InventoryGpu[]): Link[] {
  const n = indices.size;
  // Both directions of every pair may be listed (as `nvidia-smi topo -m` shows them), if they agree.
  const list = requireArray('links', raw, Math.max(0, n * (n - 1)));
  const byPair = new Map<number, { link: Link; path: string }>();
  list.forEach((rawLink, i) => {
    const p = `links[${i}]`;
    const l = record(p, rawLink, LINK_KEYS);
    const a = count(`${p}.a`, at(l, 'a'), Number.MAX_SAFE_INTEGER);
    const b = count(`${p}.b`, at(l, 'b'), Number.MAX_SAFE_INTEGER);
    if (!indices.has(a)) problem(`${p}.a`, `GPU index ${a} is not in gpus (indices: ${[...indices.keys()].sort((x, y) => x - y).join(', ') || 'none'})`);
    if (!indices.has(b)) problem(`${p}.b`, `GPU index ${b} is not in gpus (indices: ${[...indices.keys()].sort((x, y) => x - y).join(', ') || 'none'})`);
    if (a === b) problem(p, `a GPU cannot link to itself (a = b = ${a})`);
    const link: Link = { a: Math.min(a, b), b: Math.max(a, b) };
    const pcie = at(l, 'pcie');
    if (pcie !== undefined) {
      if (typeof pcie !== 'string' || !(PCIE_LEVELS as readonly string[]).includes(pcie)) fail('INVALID_ARGUMENT', `${p}.pcie`, `one of ${PCIE_LEVELS.join(', ')}`, pcie);
      link.pcie = pcie as PcieLevel;
    }
    const nvlink = at(l, 'nvlink');
    if (nvlink !== undefined) link.nvlink = count(`${p}.nvlink`, nvlink, MAX_NVLINKS);
    const key = link.a * LIMITS.maxGpus + link.b;
    const prev = byPair.get(key);
    if (prev === undefined) byPair.set(key, { link, path: p });
    else if (prev.link.pcie !== link.pcie || prev.link.nvlink !== link.nvlink) {
      problem(p, `the pair (${link.a}, ${link.b}) is also given by ${prev.path} with different values (${describeValue(prev.link)} vs ${describeValue(link)}): links must be symmetric`);
    }
  });
  const links = [...byPair.values()].map((x) => x.link);
  // One source of truth for link rules: the topology validator sorts and re-checks the result.
  const gpusCount = gpus.length === 0 ? 0 : gpus[gpus.length - 1]!.index + 1;
  return [...validateTopology({ gpus: gpusCount, links }, 'links').links];
}

/** The topology part of an inventory: indices up to the highest GPU index, and its links. */
export function inventoryTopology(inventory: Inventory): { gpus: number; links: Link[] } {
  const gpus = inventory.gpus.reduce((n, g) => Math.max(n, g.index + 1), 0);
  return { gpus, links: inventory.links };
}

/**
 * The GPUs of an inventory that a whole-GPU pick (allocateAligned, the CLI's `aligned`) may take,
 * by index ascending: those not lost and, unless `allowMig`, not in MIG mode (a GPU whose `mig` is
 * present hands out slices, which gpualloc replicas allocates); and the GPUs left out for MIG mode.
 */
export function wholeGpuCandidates(inventory: Inventory, options: { allowMig?: boolean } = {}): { available: number[]; mig: number[] } {
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, ['allowMig']);
  const allowMig = o.allowMig === undefined ? false : requireBoolean('options.allowMig', o.allowMig);
  const available: number[] = [];
  const mig: number[] = [];
  for (const g of inventory.gpus) {
    if (g.lost === true) continue;
    if (g.mig !== undefined && !allowMig) mig.push(g.index);
    else available.push(g.index);
  }
  const up = (a: number, b: number) => a - b;
  return { available: available.sort(up), mig: mig.sort(up) };
}
