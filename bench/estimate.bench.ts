// Workload 7: memory estimate of a 70B-shaped GGUF header (llama 3 70B: 80 blocks, 8192 wide,
// 64 heads, 8 KV heads, 128,256-token vocabulary, Q4_K) across 4 GPUs, header built in memory.
// estimateMemory has no kernels: it is the same TypeScript on both backends, so it is timed once;
// a second case starts from already-parsed metadata, to separate the parse from the estimate, and a
// third reads the same shape with a 1,024-token vocabulary: the reader steps over the token list, so
// the 128k-token header should cost at most ESTIMATE_HEADER_RATIO_TARGET times the 1k-token one.

import { estimateMemory } from '../src/models/estimate.js';
import { readGgufHeaderFromBytes } from '../src/models/gguf.js';
import { llamaSpec, writeGguf } from '../test/fixtures/gguf-writer.js';
import type { Suite } from './harness.js';

const GIB = 2 ** 30;

/** The model shape (llama 3 70B). */
export const SEVENTY_B = { blocks: 80, embedding: 8192, heads: 64, kvHeads: 8, ffn: 28672, vocab: 128_256, contextLength: 131_072, dtype: 12 } as const;

/** The same model with a 1,024-token vocabulary (the small header the 128k-token one is compared with). */
export const SEVENTY_B_1K_VOCAB = { ...SEVENTY_B, vocab: 1024 } as const;

/** Names of the two header cases the target compares (bench/targets.ts). */
export const HEADER_CASE = { large: '70B GGUF header', small: '70B shape, 1k-token GGUF header' } as const;

/** Free bytes on each of the 4 GPUs (4 × 24 GiB cards). */
export const FOUR_GPUS: readonly number[] = [24 * GIB, 24 * GIB, 24 * GIB, 24 * GIB];

/** Estimate suite. */
export const suite: Suite = {
  family: 'estimate',
  description: 'estimateMemory from GGUF header bytes (parse + Ollama estimate), 70B shape, 4 GPUs; backend-independent',
  async cases() {
    const header = writeGguf(llamaSpec({ ...SEVENTY_B }));
    const small = writeGguf(llamaSpec({ ...SEVENTY_B_1K_VOCAB }));
    const parsed = await readGgufHeaderFromBytes(header);
    const options = { contextLength: 8192, gpus: [...FOUR_GPUS] };
    return [
      {
        family: 'estimate',
        name: `${HEADER_CASE.large} (${(header.length / 2 ** 20).toFixed(1)} MiB, 128,256 tokens), 4 GPUs`,
        run: { ts: () => estimateMemory(header, options) },
        note: 'no kernels: the same TypeScript serves both backends, timed once (ts column)',
      },
      {
        family: 'estimate',
        name: `${HEADER_CASE.small} (${(small.length / 2 ** 10).toFixed(0)} KiB), 4 GPUs`,
        run: { ts: () => estimateMemory(small, options) },
        note: 'the same shape with 1,024 tokens: what the header costs without the token list (ts column)',
      },
      {
        family: 'estimate',
        name: '70B, already-parsed metadata, 4 GPUs',
        run: { ts: () => estimateMemory(parsed, options) },
        note: 'the estimate alone, from { metadata, tensorInfos } parsed once (ts column)',
      },
    ];
  },
};
