// The inventory: what `gpualloc discover` writes and every command reads, and its validation.
// The same rules, as far as JSON Schema can say them, are in schema/inventory.v1.json.
import { closestName } from '../shared/suggest.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { MAX_NVLINKS, PCIE_LEVELS, validateTopology, type Link, type PcieLevel } from './topology.js';
import { describeValue, readInput } from '../shared/validate.js';

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

/** A running compute process. usedMemory in bytes. */
export type GpuProcess = { pid: number; usedMemory: number };

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

/** A host's devices and topology. memory in bytes. */
export type Inventory = {
  version: number;
  host?: string;
  source?: string;
  gpus: InventoryGpu[];
  links: Link[];
  cpus?: string[];
  memory?: number;
};

const INVENTORY_KEYS = ['version', 'host', 'source', 'gpus', 'links', 'cpus', 'memory'] as const;
const GPU_KEYS = ['index', 'id', 'uuid', 'name', 'memoryTotal', 'memoryUsed', 'pciBusId', 'numaNode', 'minorNumber', 'lost', 'mig', 'processes'] as const;
const MIG_KEYS = ['uuid', 'profile', 'memoryTotal'] as const;
const PROCESS_KEYS = ['pid', 'usedMemory'] as const;
const LINK_KEYS = ['a', 'b', 'pcie', 'nvlink'] as const;

/** PCI bus ID as NVML writes it: domain (4 or 8 hex digits), bus, device, function. */
const PCI_BUS_ID = /^[0-9a-fA-F]{4}(?:[0-9a-fA-F]{4})?:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

/** Reads one inventory, throwing INVALID_INVENTORY with the path of the first bad field. */
class _Reader {
  constructor(readonly origin: string) {}

  fail(path: string, expected: string, value: unknown): never {
    throw new AllocationError('INVALID_INVENTORY', `${this.origin}: ${path}: expected ${expected}, got ${describeValue(value)}`, { field: path });
  }

  problem(path: string, text: string): never {
    throw new AllocationError('INVALID_INVENTORY', `${this.origin}: ${path}: ${text}`, { field: path });
  }

  object(path: string, value: unknown, keys: readonly string[]): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(path, 'an object', value);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!keys.includes(key)) {
        const closest = closestName(key, keys);
        this.problem(path === '' ? key : `${path}.${key}`, `unknown field (${closest === undefined ? '' : `did you mean ${closest}? `}allowed: ${keys.join(', ')})`);
      }
    }
    return record;
  }

  array(path: string, value: unknown, max: number): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'an array', value);
    if (value.length > max) this.fail(path, `at most ${max} items`, value);
    return value;
  }

  integer(path: string, value: unknown, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) this.fail(path, 'a non-negative integer', value);
    if (value > max) this.fail(path, `an integer of at most ${max}`, value);
    return value === 0 ? 0 : value;
  }

  string(path: string, value: unknown, nonEmpty = true): string {
    if (typeof value !== 'string') this.fail(path, 'a string', value);
    if (nonEmpty && value.length === 0) this.fail(path, 'a non-empty string', value);
    if (value.length > INVENTORY_LIMITS.maxStringLength) this.fail(path, `a string of at most ${INVENTORY_LIMITS.maxStringLength} characters`, value);
    return value;
  }
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
  const r = new _Reader(origin);
  let input: unknown;
  try {
    input = readInput('inventory', value, false);
  } catch (cause) {
    // Same code as every other inventory problem, and the same origin prefix.
    if (cause instanceof AllocationError) throw new AllocationError('INVALID_INVENTORY', `${origin}: ${cause.message}`, { field: cause.field, cause });
    throw cause;
  }
  const root = r.object('', input, INVENTORY_KEYS);
  const version = at(root, 'version');
  if (version === undefined) r.problem('version', `missing (this gpualloc reads inventory version ${INVENTORY_VERSION})`);
  if (version !== INVENTORY_VERSION) r.fail('version', `${INVENTORY_VERSION} (the inventory version this gpualloc reads)`, version);
  const out: Inventory = { version: INVENTORY_VERSION, gpus: [], links: [] };
  const host = at(root, 'host');
  if (host !== undefined) out.host = r.string('host', host);
  const source = at(root, 'source');
  if (source !== undefined) out.source = r.string('source', source);

  const rawGpus = at(root, 'gpus');
  if (rawGpus === undefined) r.problem('gpus', 'missing (an array of GPUs, possibly empty)');
  const gpus = r.array('gpus', rawGpus, LIMITS.maxGpus).map((raw, i) => readGpu(r, `gpus[${i}]`, raw));
  const seen = { index: new Map<number, string>(), id: new Map<string, string>(), uuid: new Map<string, string>(), bus: new Map<string, string>() };
  const unique = <K>(map: Map<K, string>, key: K | undefined, path: string, what: string) => {
    if (key === undefined) return;
    const prev = map.get(key);
    if (prev !== undefined) r.problem(path, `duplicate ${what} ${describeValue(key)} (also at ${prev})`);
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
  if (rawLinks !== undefined) out.links = readLinks(r, rawLinks, seen.index, out.gpus);

  const cpus = at(root, 'cpus');
  if (cpus !== undefined) out.cpus = r.array('cpus', cpus, INVENTORY_LIMITS.maxCpus).map((c, i) => r.string(`cpus[${i}]`, c));
  const memory = at(root, 'memory');
  if (memory !== undefined) out.memory = r.integer('memory', memory, INVENTORY_LIMITS.maxHostMemory);
  return ordered(out, INVENTORY_KEYS);
}

/** "00000000:07:00.0" and "0000:07:00.0" name the same device. */
function canonicalBusId(busId: string): string {
  const lower = busId.toLowerCase();
  return lower.length === 16 ? lower.slice(4) : lower;
}

function readGpu(r: _Reader, p: string, raw: unknown): InventoryGpu {
  const g = r.object(p, raw, GPU_KEYS);
  const index = at(g, 'index');
  if (index === undefined) r.problem(`${p}.index`, 'missing (the NVML index of the GPU)');
  const memoryTotal = at(g, 'memoryTotal');
  if (memoryTotal === undefined) r.problem(`${p}.memoryTotal`, 'missing (bytes)');
  const gpu: InventoryGpu = { index: r.integer(`${p}.index`, index, LIMITS.maxGpus - 1), memoryTotal: 0 };
  const id = at(g, 'id');
  if (id !== undefined) gpu.id = r.string(`${p}.id`, id);
  const uuid = at(g, 'uuid');
  if (uuid !== undefined) gpu.uuid = r.string(`${p}.uuid`, uuid);
  const name = at(g, 'name');
  if (name !== undefined) gpu.name = r.string(`${p}.name`, name, false);
  gpu.memoryTotal = r.integer(`${p}.memoryTotal`, memoryTotal, INVENTORY_LIMITS.maxGpuMemory);
  const used = at(g, 'memoryUsed');
  if (used !== undefined) {
    gpu.memoryUsed = r.integer(`${p}.memoryUsed`, used, INVENTORY_LIMITS.maxGpuMemory);
    if (gpu.memoryUsed > gpu.memoryTotal) r.fail(`${p}.memoryUsed`, `at most memoryTotal (${gpu.memoryTotal})`, used);
  }
  const bus = at(g, 'pciBusId');
  if (bus !== undefined) {
    if (typeof bus !== 'string' || !PCI_BUS_ID.test(bus)) r.fail(`${p}.pciBusId`, 'a PCI bus ID such as "0000:07:00.0"', bus);
    gpu.pciBusId = bus;
  }
  const numa = at(g, 'numaNode');
  if (numa !== undefined) gpu.numaNode = r.integer(`${p}.numaNode`, numa, INVENTORY_LIMITS.maxNumaNode);
  const minor = at(g, 'minorNumber');
  if (minor !== undefined) gpu.minorNumber = r.integer(`${p}.minorNumber`, minor, INVENTORY_LIMITS.maxMinorNumber);
  const lost = at(g, 'lost');
  if (lost !== undefined) {
    if (typeof lost !== 'boolean') r.fail(`${p}.lost`, 'a boolean', lost);
    gpu.lost = lost;
  }
  const mig = at(g, 'mig');
  if (mig !== undefined) {
    gpu.mig = r.array(`${p}.mig`, mig, INVENTORY_LIMITS.maxMigDevices).map((rawMig, j) => {
      const mp = `${p}.mig[${j}]`;
      const m = r.object(mp, rawMig, MIG_KEYS);
      const total = r.integer(`${mp}.memoryTotal`, at(m, 'memoryTotal'), INVENTORY_LIMITS.maxGpuMemory);
      if (total > gpu.memoryTotal) r.fail(`${mp}.memoryTotal`, `at most the GPU's memoryTotal (${gpu.memoryTotal})`, total);
      return { uuid: r.string(`${mp}.uuid`, at(m, 'uuid')), profile: r.string(`${mp}.profile`, at(m, 'profile')), memoryTotal: total };
    });
  }
  const processes = at(g, 'processes');
  if (processes !== undefined) {
    gpu.processes = r.array(`${p}.processes`, processes, INVENTORY_LIMITS.maxProcesses).map((rawProc, j) => {
      const pp = `${p}.processes[${j}]`;
      const proc = r.object(pp, rawProc, PROCESS_KEYS);
      return { pid: r.integer(`${pp}.pid`, at(proc, 'pid'), 2 ** 32 - 1), usedMemory: r.integer(`${pp}.usedMemory`, at(proc, 'usedMemory'), INVENTORY_LIMITS.maxGpuMemory) };
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

function readLinks(r: _Reader, raw: unknown, indices: Map<number, string>, gpus: InventoryGpu[]): Link[] {
  const n = indices.size;
  // Both directions of every pair may be listed (as `nvidia-smi topo -m` shows them), if they agree.
  const list = r.array('links', raw, Math.max(0, n * (n - 1)));
  const byPair = new Map<number, { link: Link; path: string }>();
  list.forEach((rawLink, i) => {
    const p = `links[${i}]`;
    const l = r.object(p, rawLink, LINK_KEYS);
    const a = r.integer(`${p}.a`, at(l, 'a'), Number.MAX_SAFE_INTEGER);
    const b = r.integer(`${p}.b`, at(l, 'b'), Number.MAX_SAFE_INTEGER);
    if (!indices.has(a)) r.problem(`${p}.a`, `GPU index ${a} is not in gpus (indices: ${[...indices.keys()].sort((x, y) => x - y).join(', ') || 'none'})`);
    if (!indices.has(b)) r.problem(`${p}.b`, `GPU index ${b} is not in gpus (indices: ${[...indices.keys()].sort((x, y) => x - y).join(', ') || 'none'})`);
    if (a === b) r.problem(p, `a GPU cannot link to itself (a = b = ${a})`);
    const link: Link = { a: Math.min(a, b), b: Math.max(a, b) };
    const pcie = at(l, 'pcie');
    if (pcie !== undefined) {
      if (typeof pcie !== 'string' || !(PCIE_LEVELS as readonly string[]).includes(pcie)) r.fail(`${p}.pcie`, `one of ${PCIE_LEVELS.join(', ')}`, pcie);
      link.pcie = pcie as PcieLevel;
    }
    const nvlink = at(l, 'nvlink');
    if (nvlink !== undefined) link.nvlink = r.integer(`${p}.nvlink`, nvlink, MAX_NVLINKS);
    const key = link.a * LIMITS.maxGpus + link.b;
    const prev = byPair.get(key);
    if (prev === undefined) byPair.set(key, { link, path: p });
    else if (prev.link.pcie !== link.pcie || prev.link.nvlink !== link.nvlink) {
      r.problem(p, `the pair (${link.a}, ${link.b}) is also given by ${prev.path} with different values (${describeValue(prev.link)} vs ${describeValue(link)}): links must be symmetric`);
    }
  });
  const links = [...byPair.values()].map((x) => x.link);
  // One source of truth for link rules: the topology validator sorts and re-checks the result.
  const gpusCount = gpus.length === 0 ? 0 : gpus[gpus.length - 1].index + 1;
  try {
    return validateTopology({ gpus: gpusCount, links }, 'links').links;
  } catch (cause) {
    if (cause instanceof AllocationError) throw new AllocationError('INVALID_INVENTORY', `${r.origin}: ${cause.message}`, { field: cause.field, cause });
    throw cause;
  }
}

/** The topology part of an inventory: indices up to the highest GPU index, and its links. */
export function inventoryTopology(inventory: Inventory): { gpus: number; links: Link[] } {
  const gpus = inventory.gpus.reduce((n, g) => Math.max(n, g.index + 1), 0);
  return { gpus, links: inventory.links };
}
