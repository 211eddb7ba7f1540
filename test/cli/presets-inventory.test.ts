// `gpualloc presets --inventory NAME [--out FILE]`: a preset written as an inventory file, read back by
// every command that takes --inventory, so the discover → plan --inventory walkthrough runs without a GPU.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { validateInventory } from '../../src/hardware/inventory.js';
import { getPreset, listPresets } from '../../src/hardware/presets.js';
import { inTempDir } from '../support/cli.js';

async function run(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd });
  return { code, out, err };
}

describe('gpualloc presets --inventory', () => {
  it('prints every preset as a valid inventory equal to the preset', async () => {
    await inTempDir('gpualloc-presets-', async (dir) => {
      for (const { name } of listPresets()) {
        const r = await run(['presets', '--inventory', name], dir);
        expect(r.code).toBe(0);
        expect(r.err).toBe('');
        expect(r.out.endsWith('}\n')).toBe(true);
        const inventory = validateInventory(JSON.parse(r.out), name);
        expect(inventory).toEqual(getPreset(name));
      }
    });
  });

  it('--out writes the file, says so on stderr, and plan --inventory reads it as it reads the preset', async () => {
    await inTempDir('gpualloc-presets-', async (dir) => {
      const w = await run(['presets', '--inventory', 'dgx1-volta', '--out', 'node.json'], dir);
      expect(w.code).toBe(0);
      expect(w.out).toBe('');
      expect(w.err).toBe('gpualloc: wrote the inventory of preset dgx1-volta (8 GPUs) to node.json\n');
      const text = readFileSync(join(dir, 'node.json'), 'utf8');
      expect(text).toBe((await run(['presets', '--inventory', 'dgx1-volta'], dir)).out);
      const fromFile = await run(['plan', '--inventory', 'node.json', '--memory', '100GiB', '--tp', '1,2,4', '--json'], dir);
      const fromPreset = await run(['plan', '--preset', 'dgx1-volta', '--memory', '100GiB', '--tp', '1,2,4', '--json'], dir);
      expect(fromFile.code).toBe(0);
      const textFromFile = await run(['plan', '--inventory', 'node.json', '--memory', '100GiB', '--tp', '1,2,4'], dir);
      const textFromPreset = await run(['plan', '--preset', 'dgx1-volta', '--memory', '100GiB', '--tp', '1,2,4'], dir);
      expect(textFromFile.err).toBe(textFromPreset.err.replace('using preset dgx1-volta', 'using inventory file node.json'));
      expect(textFromFile.out).toBe(textFromPreset.out);
      expect(JSON.parse(fromFile.out).options).toEqual(JSON.parse(fromPreset.out).options);
      expect(JSON.parse(fromFile.out).options.length).toBeGreaterThan(0);
    });
  });

  it('an unknown preset is exit 2 naming --inventory and the value, and writes nothing', async () => {
    await inTempDir('gpualloc-presets-', async (dir) => {
      const r = await run(['presets', '--inventory', 'dgx-a1000', '--out', 'node.json'], dir);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^gpualloc: --inventory: expected one of .*dgx-a100.*, got "dgx-a1000"\n$/);
      expect(existsSync(join(dir, 'node.json'))).toBe(false);
    });
  });

  it('--out without --inventory, and an unwritable --out, are exit 2 naming --out', async () => {
    await inTempDir('gpualloc-presets-', async (dir) => {
      const alone = await run(['presets', '--out', 'node.json'], dir);
      expect(alone.code).toBe(2);
      expect(alone.err).toContain('--out: needs --inventory NAME');
      expect(existsSync(join(dir, 'node.json'))).toBe(false);
      const bad = await run(['presets', '--inventory', 'dgx2', '--out', 'missing/dir/node.json', '--json'], dir);
      expect(bad.code).toBe(2);
      expect(JSON.parse(bad.out).error).toEqual({ code: 'IO_ERROR', message: expect.stringMatching(/^--out: ENOENT/) });
    });
  });
});
