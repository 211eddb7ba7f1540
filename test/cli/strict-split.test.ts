// gpualloc split --config: unknown keys are errors naming the key, its line and the closest known key;
// TOML syntax errors keep the parser's line and column; exit 2 (issue 18, point 3).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tomlPosition } from '../../src/shared/file-positions.js';
import { closestName } from '../../src/shared/suggest.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-toml-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function split(config: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  await writeFile(join(dir, 'agents.toml'), config);
  let out = '';
  let err = '';
  const code = await main(['split', '--config', 'agents.toml', '--preset', 'dgx-a100', ...extra], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

const AGENTS = '\n[[agents]]\nid = "a"\n\n[[agents]]\nid = "b"\n';

describe('split --config is strict', () => {
  it('a misspelt key is exit 2 naming it, its line and the closest key; nothing is printed on stdout', async () => {
    const r = await split(`[resource]\nallocation_mode = "auto-split"\n${AGENTS}`);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('gpualloc: agents.toml:2:1: unknown key resource.allocation_mode (did you mean allocation-mode?)\n');
  });

  it('reserved_mem, a misspelt table, and a key inside an array of tables', async () => {
    expect((await split(`[resource]\nallocation-mode = "shared"\n  reserved_mem = "4GiB"\n${AGENTS}`)).err).toMatch(
      /^gpualloc: agents\.toml:3:3: unknown key resource\.reserved_mem \(did you mean reserved-mem\?\)\n$/,
    );
    expect((await split(`[resorce]\nallocation-mode = "shared"\n${AGENTS}`)).err).toMatch(/^gpualloc: agents\.toml:1:2: unknown key resorce \(did you mean resource\?\)\n$/);
    const r = await split(`[resource]\nallocation-mode = "manual"\n${AGENTS}[agents.allocation]\ncuda = ["cuda0"]\n`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: agents\.toml:9:2: unknown key agents\[1\]\.allocation \(did you mean allocations\?\)\n$/);
  });

  it('an unknown key nothing resembles lists the allowed keys', async () => {
    expect((await split(`[resource]\nzzz = 1\n${AGENTS}`)).err).toMatch(/agents\.toml:2:1: unknown key resource\.zzz \(allowed: allocation-mode, reserved-mem, memory\)/);
  });

  it('a TOML syntax error keeps the line and column of the parser; --json gives the same as JSON', async () => {
    const r = await split(`[resource]\nallocation-mode = "shared"\nmemory = = 3\n${AGENTS}`, '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({ error: { code: 'INVALID_CONFIG', message: 'agents.toml:3:10: not valid TOML: invalid value' } });
  });

  it('a bad value names its line too', async () => {
    const r = await split(`[resource]\nallocation-mode = "shared"\nreserved-mem = "4XB"\n${AGENTS}`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: agents\.toml:3:1: resource\.reserved-mem: unknown unit "XB"/);
  });

  it('free-form names stay free: device names under [devices] and under allocations', async () => {
    const r = await split(
      `[resource]\nallocation-mode = "manual"\nmemory = "64GiB"\n[devices]\nfpga = ["f0", "f1"]\n[[agents]]\nid = "a"\n[agents.allocations]\nfpga = ["f0"]\nmem = "1GiB"\n[[agents]]\nid = "b"\n[agents.allocations]\nfpga = ["f1"]\n`,
      '--json',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).assignments).toEqual({ a: { fpga: ['f0'], mem: [] }, b: { fpga: ['f1'], mem: [] } });
  });
});

describe('the helpers', () => {
  it('closestName: spelling variants first, then a small edit distance, else nothing', () => {
    expect(closestName('allocation_mode', ['allocation-mode', 'reserved-mem'])).toBe('allocation-mode');
    expect(closestName('Reserved_Mem', ['allocation-mode', 'reserved-mem'])).toBe('reserved-mem');
    expect(closestName('memTotal', ['index', 'memoryTotal', 'memoryUsed'])).toBe('memoryTotal');
    expect(closestName('colour', ['policy', 'limit'])).toBeUndefined();
  });

  it('tomlPosition: dotted keys, inline tables and the nth [[array]] table', () => {
    const text = 'a.b = 1\n[t]\nx = { y = 2 }\n[[arr]]\nk = 1\n[[arr]]\n  k = 2\n';
    expect(tomlPosition(text, ['a', 'b'])).toEqual({ line: 1, column: 1 });
    expect(tomlPosition(text, ['t', 'x', 'y'])).toEqual({ line: 3, column: 7 });
    expect(tomlPosition(text, ['arr', 1, 'k'])).toEqual({ line: 7, column: 3 });
    expect(tomlPosition(text, ['nope'])).toBeUndefined();
  });
});
