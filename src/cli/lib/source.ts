// Where a command's inventory comes from: --inventory FILE, else NVML discovery, else a preset.

import type { Inventory } from '../../hardware/inventory.js';
import { getPreset } from '../../hardware/presets.js';
import { AllocationError } from '../../shared/errors.js';
import type { Io } from './common.js';
import { inventoryFromText } from './strict-files.js';

/** The preset used when there is no inventory file and no GPU. */
export const DEFAULT_PRESET = 'dgx-a100';

/** The inventory a command works on, and a one-line notice saying where it came from. */
export type InventorySource = { inventory: Inventory; notice: string };

/**
 * Resolves `--inventory FILE` (validated; errors name the file and the bad field) or `--preset NAME`;
 * with neither, discovers this host's GPUs through NVML (`library`, else $GPUALLOC_NVML_LIBRARY, else
 * the usual paths) and, where there is no NVML or no GPU, falls back to the default preset. Prints a
 * one-line notice saying which it used to stderr unless `quiet`.
 */
export async function resolveInventory(options: { inventory?: string; preset?: string; quiet?: boolean; library?: string }, io: Io): Promise<InventorySource> {
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
    // Strict: syntax errors, unknown keys and bad values name the file, line and column.
    source = { inventory: inventoryFromText(text, options.inventory), notice: `using inventory file ${options.inventory}` };
  } else if (options.preset !== undefined) {
    source = { inventory: getPreset(options.preset), notice: `using preset ${options.preset}` };
  } else {
    source = await discoverOrPreset(options.library ?? io.env.GPUALLOC_NVML_LIBRARY);
  }
  if (!options.quiet) io.err(`gpualloc: ${source.notice}\n`);
  return source;
}

/** NVML discovery, or the default preset with the reason discovery gave nothing. */
async function discoverOrPreset(library: string | undefined): Promise<InventorySource> {
  let why: string;
  try {
    const nvml = await import('../../../bindings/index.js');
    const discovered = await nvml.discoverDevices({ library });
    if (discovered.gpus.length > 0) {
      const lost = discovered.gpus.filter((g) => g.lost === true).length;
      return { inventory: discovered, notice: `using this host's ${discovered.gpus.length} GPUs (NVML)${lost > 0 ? `, ${lost} reported lost` : ''}` };
    }
    why = 'NVML found no GPU';
  } catch (error) {
    why = shortReason(error);
  }
  return { inventory: getPreset(DEFAULT_PRESET), notice: `no GPU through NVML (${why}); using preset ${DEFAULT_PRESET}` };
}

/** A short reason for the notice: NVML's messages can list every path that was tried. */
function shortReason(error: unknown): string {
  const nvmlName = error instanceof Error && error.name === 'NvmlError' ? (error as Error & { nvmlName?: string }).nvmlName : undefined;
  if (nvmlName === 'NVML_ERROR_LIBRARY_NOT_FOUND') return 'NVML library not found';
  if (nvmlName === 'NVML_ERROR_DRIVER_NOT_LOADED') return 'NVIDIA driver not loaded';
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
