// `gpualloc estimate` on a generated GGUF file in a temp dir, as a user runs it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-cli-'));
  // llama-3-8B shape, Q4_0
  await writeFile(join(dir, 'llama3-8b.gguf'), writeGguf(llamaSpec({ blocks: 32, embedding: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 128256, contextLength: 8192 })));
  await writeFile(join(dir, 'notes.txt'), 'not a model');
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['estimate', ...argv], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

const MiB = 2 ** 20;
const block = 122_716_160; // Q4_0 llama-3-8B block: see estimate-llama.test.ts
const kvLayer = 32 * MiB;
const output = 295_518_208;

describe('gpualloc estimate', () => {
  test('prints the breakdown', async () => {
    const r = await run('llama3-8b.gguf', '--context', '8192');
    expect(r.code).toBe(0);
    expect(r.out).toContain('kv cache  1 GiB (1073741824 B)');
    expect(r.out).toContain(`weights   3.93 GiB (${32 * block + output} B)`);
    expect(r.out).toMatch(/graph +560 MiB \(587204608 B\)/);
    expect(r.err).toBe('');
  });

  test('--gpus: per-GPU table, layers, fits', async () => {
    const r = await run('llama3-8b.gguf', '--context', '8192', '--gpus', '24GiB,24GiB');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/gpu\s+free\s+allocated\s+layers/);
    expect(r.out).toMatch(/\n0\s+24 GiB\s+\S+ \S+\s+17\n/);
    expect(r.out).toMatch(/\n1\s+24 GiB\s+\S+ \S+\s+16\n/);
    expect(r.out).toContain('layers on GPUs  33');
    expect(r.out).toContain('fits            yes');
  });

  test('--json, and exit 1 when it does not fit', async () => {
    const r = await run('llama3-8b.gguf', '--context', '8192', '--gpus', '2GiB,2GiB', '--json');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    expect(json.file).toBe('llama3-8b.gguf');
    expect(json.kvCache).toBe(2 ** 30);
    expect(json.fits).toBe(false);
    expect(json.perGpu).toHaveLength(2);
    // each 2 GiB GPU holds minimum + spare + k layers + partial graph (710385664): k = 1 … check the sum of layers
    const free = 2 * 2 ** 30;
    const perLayer = block + kvLayer;
    const k = Math.ceil((free - 457 * MiB - 710_385_664 - perLayer) / perLayer) - 1;
    expect(json.layersPerGpu).toEqual([k, k]);
  });

  test('--kv-cache q8_0 without --flash-attention warns; with it halves the KV', async () => {
    const warned = await run('llama3-8b.gguf', '--context', '8192', '--kv-cache', 'q8_0');
    expect(warned.out).toContain('kv cache  1 GiB');
    expect(warned.out).toMatch(/warning: kvCacheType q8_0 takes effect only with flash attention/);
    const fa = await run('llama3-8b.gguf', '--context', '8192', '--kv-cache', 'q8_0', '--flash-attention', '--parallel', '2');
    expect(fa.out).toContain('kv cache  1 GiB (1073741824 B)');
  });

  test('bad input: exit 2 with a message', async () => {
    const notGguf = await run('notes.txt');
    expect(notGguf.code).toBe(2);
    expect(notGguf.err).toMatch(/notes\.txt: not a GGUF file/);
    const missing = await run('missing.gguf', '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out).error.code).toBe('INVALID_ARGUMENT');
    expect((await run()).code).toBe(2);
    expect((await run('llama3-8b.gguf', '--kv-cache', 'q5_1')).err).toMatch(/--kv-cache/);
    expect((await run('llama3-8b.gguf', '--gpus', '80XB')).err).toMatch(/--gpus\[0\]/);
    expect((await run('llama3-8b.gguf', '--context', 'lots')).err).toMatch(/--context/);
    expect((await run('llama3-8b.gguf', '--bogus')).code).toBe(2);
  });

  test('--help', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: gpualloc estimate MODEL.gguf');
  });
});
