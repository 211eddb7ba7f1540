// Where a command's inventory comes from: --inventory FILE, else NVML discovery, else a preset.
import { AllocationError } from '../errors.js';
import { validateInventory, type Inventory } from '../inventory.js';
import { getPreset } from '../presets.js';
import type { Io } from './common.js';

/** The preset used when there is no inventory file and no GPU. */
export const DEFAULT_PRESET = 'dgx-a100';

/** The inventory a command works on, and a one-line notice saying where it came from. */
export type InventorySource = { inventory: Inventory; notice: string };

/**
 * Resolves `--inventory FILE` / `--preset NAME`; with neither, discovers this host's GPUs through
 * NVML and falls back to the default preset. Prints the notice to stderr unless `quiet`.
 */
export async function resolveInventory(options: { inventory?: string; preset?: string; quiet?: boolean }, io: Io): Promise<InventorySource> {
  let source: InventorySource;
  if (options.inventory !== undefined && options.preset !== undefined) throw new AllocationError('INVALID_ARGUMENT', 'give either --inventory or --preset, not both');
  if (options.inventory !== undefined) {
    const { readFile } = await import('node:fs/promises');
    const { resolve } = await import('node:path');
    const path = resolve(io.cwd, options.inventory);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (cause) {
      throw new AllocationError('INVALID_INVENTORY', `--inventory: cannot read ${options.inventory}: ${(cause as Error).message}`, { field: 'inventory', cause });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new AllocationError('INVALID_INVENTORY', `--inventory: ${options.inventory} is not valid JSON: ${(cause as Error).message}`, { field: 'inventory', cause });
    }
    source = { inventory: validateInventory(json, options.inventory), notice: `using inventory file ${options.inventory}` };
  } else if (options.preset !== undefined) {
    source = { inventory: getPreset(options.preset), notice: `using preset ${options.preset}` };
  } else {
    let discovered: Inventory | undefined;
    let why = '';
    try {
      const nvml = await import('../../bindings/index.js');
      discovered = await nvml.discoverDevices();
    } catch (error) {
      why = error instanceof Error ? error.message : String(error);
    }
    if (discovered !== undefined && discovered.gpus.length > 0) source = { inventory: discovered, notice: `using this host's ${discovered.gpus.length} GPUs (NVML)` };
    else source = { inventory: getPreset(DEFAULT_PRESET), notice: `no GPU found through NVML${why ? ` (${why.split('\n')[0]})` : ''}; using preset ${DEFAULT_PRESET}` };
  }
  if (!options.quiet) io.err(`gpualloc: ${source.notice}\n`);
  return source;
}
