// gpualloc/nvml: this host's GPUs and topology through NVML (Node only; koffi is imported lazily).
import { cpus, hostname, totalmem } from 'node:os';
import { type Inventory, validateInventory } from '../src/hardware/inventory.js';
import { readInventory } from './discover.js';
import { loadNvml, nvmlCandidates } from './library.js';

export { migProfile, normalizeBusId } from './discover.js';
export { NVML_RETURN, NvmlError, nvmlName } from './errors.js';
export { NVML_SEARCH_PATHS } from './library.js';

/** Options of discoverDevices. */
export type DiscoverOptions = {
  /** Read NVML again instead of returning this process's cached inventory. */
  refresh?: boolean;
  /** Path of libnvidia-ml to try first (before $GPUALLOC_NVML_LIBRARY, the soname and the distro paths). */
  library?: string;
  /** When false, try only `library` (or $GPUALLOC_NVML_LIBRARY where no library is given), not the soname and distro paths. Default true. */
  fallback?: boolean;
};

const cache = new Map<string, Inventory>();

/**
 * Discovers this host's GPUs through NVML: per GPU index, UUID, name, memory (bytes), PCI bus ID,
 * NUMA node, minor number, MIG devices and compute processes; PCIe level and NVLink count per pair.
 * The result is cached per process and per library (`refresh: true` re-reads). Throws NvmlError
 * when NVML cannot be loaded or initialised; a GPU that answers GPU_IS_LOST comes back `lost: true`.
 */
export async function discoverDevices(options: DiscoverOptions = {}): Promise<Inventory> {
  // Keyed by the paths loadNvml tries, in order: two calls that try the same list read the same library.
  const fallback = options.fallback ?? true;
  const key = nvmlCandidates(options.library, process.env, fallback).join('\n');
  let inventory = options.refresh === true ? undefined : cache.get(key);
  if (inventory === undefined) {
    const api = await loadNvml(options.library, process.env, fallback);
    const raw = readInventory(api, { host: hostname(), cpus: cpus().map((_, i) => String(i)), memory: totalmem() });
    inventory = validateInventory(raw, `NVML (${api.path})`);
    cache.set(key, inventory);
  }
  return structuredClone(inventory);
}

export type { GpuProcess, Inventory, InventoryGpu, MigDevice } from '../src/hardware/inventory.js';
