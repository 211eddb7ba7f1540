import { describe, expect, it } from 'vitest';
import { validateInventory } from '../../src/hardware/inventory.js';
import { getPreset, listPresets } from '../../src/hardware/presets.js';

describe('presets pass inventory validation', () => {
  for (const { name } of listPresets()) {
    it(name, () => {
      const inv = getPreset(name);
      expect(validateInventory(structuredClone(inv), `preset:${name}`)).toEqual(inv);
      // Round trip through JSON (what `gpualloc discover` writes and --inventory reads).
      expect(validateInventory(JSON.parse(JSON.stringify(inv)), `preset:${name}`)).toEqual(inv);
    });
  }
});
