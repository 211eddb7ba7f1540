// gpualloc/nvml: this host's GPUs through NVML (issue 7; placeholder).
import type { Inventory } from '../src/inventory.js';

/** Discovers this host's GPUs (placeholder: always reports no library). */
export async function discoverDevices(_options: { refresh?: boolean; library?: string } = {}): Promise<Inventory> {
  throw new Error('NVML discovery is not built yet (issue 7)');
}
