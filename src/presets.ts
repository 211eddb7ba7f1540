// Built-in presets named after real machines (issue 4 fills them in).
import { AllocationError } from './errors.js';
import type { Inventory } from './inventory.js';

/** A built-in machine. */
export type Preset = { name: string; description: string; inventory: Inventory };

const PRESETS: Preset[] = [];

/** Names and descriptions of every preset. */
export function listPresets(): Array<{ name: string; description: string }> {
  return PRESETS.map(({ name, description }) => ({ name, description }));
}

/** A fresh copy of one preset's inventory. */
export function getPreset(name: string): Inventory {
  const p = PRESETS.find((x) => x.name === name);
  if (p === undefined) throw new AllocationError('UNKNOWN_PRESET', `preset: expected one of ${PRESETS.map((x) => x.name).join(', ')}, got ${JSON.stringify(name)}`, { field: 'preset' });
  return structuredClone(p.inventory);
}
