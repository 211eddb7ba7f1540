// The inventory: what `gpualloc discover` writes and every command reads (issue 7 owns validation).
import type { Link } from './topology.js';

/** Current inventory schema version. */
export const INVENTORY_VERSION = 1;

/** A MIG device inside a GPU. memoryTotal in bytes. */
export type MigDevice = { uuid: string; profile: string; memoryTotal: number };

/** A running compute process. usedMemory in bytes. */
export type GpuProcess = { pid: number; usedMemory: number };

/** One GPU. Memory in bytes. */
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

/** Validates an inventory (placeholder: issue 7 adds the full schema). */
export function validateInventory(value: unknown, _origin = 'inventory'): Inventory {
  return value as Inventory;
}

/** The topology part of an inventory. */
export function inventoryTopology(inventory: Inventory): { gpus: number; links: Link[] } {
  return { gpus: inventory.gpus.length, links: inventory.links };
}
