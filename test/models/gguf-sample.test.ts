// The shipped GGUF sample (data/samples/llama-3.2-1b.header.gguf), which the documentation's `estimate`
// and `plan --gguf` examples read: its generator makes it byte for byte, it is small, and it estimates
// as the same model shape written by the test suite's own GGUF writer does.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';
import { ROOT } from '../support/cli.js';

const SAMPLE = join(ROOT, 'data', 'samples', 'llama-3.2-1b.header.gguf');

describe('the GGUF sample', () => {
  it('is what data/samples/make-gguf.mjs writes, and a few kB', async () => {
    const { sampleGguf } = (await import(join(ROOT, 'data', 'samples', 'make-gguf.mjs'))) as { sampleGguf(): Uint8Array };
    const shipped = readFileSync(SAMPLE);
    expect(Buffer.compare(Buffer.from(sampleGguf()), shipped)).toBe(0);
    expect(statSync(SAMPLE).size).toBeLessThan(16 * 1024);
  });

  it('estimates as the same shape written by the suite writer (with its tokenizer) does', async () => {
    const reference = writeGguf(llamaSpec({ blocks: 16, embedding: 2048, heads: 32, kvHeads: 8, ffn: 8192, vocab: 128256, contextLength: 131072, dtype: 8, tiedEmbeddings: true }));
    for (const options of [{ contextLength: 8192 }, { contextLength: 8192, gpus: [24 * 2 ** 30, 24 * 2 ** 30] }, { contextLength: 4096, parallel: 4 }]) {
      const sample = await estimateMemory(SAMPLE, options);
      const expected = await estimateMemory(reference, options);
      expect({ ...sample, warnings: undefined }).toEqual({ ...expected, warnings: undefined });
      // The one difference: no token list in the sample, so the vocabulary comes from token_embd.weight.
      expect(sample.warnings).toEqual([expect.stringContaining('vocabulary size 128256 is taken from tensor token_embd.weight')]);
    }
    // Llama 3.2 1B at Q8_0 (34 bytes per 32 weights, norms f32): 16 blocks of 64,634,880 bytes, the
    // token embedding 279,085,056 and the output norm 8,192; its published Q8_0 file is 1.32 GB.
    expect((await estimateMemory(SAMPLE)).weights).toBe(1_313_251_328);
  });
});
