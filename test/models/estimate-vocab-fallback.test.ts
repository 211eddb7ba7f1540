// A GGUF without tokenizer.ggml.tokens (issue 18, point 6): the vocabulary comes from token_embd.weight's
// shape, else from ARCH.vocab_size, with a warning; INVALID_GGUF only when nothing gives it.
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { AllocationError } from '../../src/shared/errors.js';
import { type GgufSpec, type GgufValue, llamaSpec, type TensorSpec, writeGguf } from '../fixtures/gguf-writer.js';

const VOCAB = 32_000;
// A vocabulary this large makes the output graph term (4·batch·(embedding + vocab)) the larger one,
// so a wrong vocabulary changes the estimate's graph.
const spec = llamaSpec({ blocks: 2, embedding: 512, heads: 8, kvHeads: 4, ffn: 1024, vocab: VOCAB, dtype: 8 });
const entries = spec.metadata as Array<[string, GgufValue]>;
const withoutTokens = entries.filter(([k]) => k !== 'tokenizer.ggml.tokens');

function gguf(metadata: Array<[string, GgufValue]>, tensors: TensorSpec[] = spec.tensors!): Uint8Array {
  return writeGguf({ ...spec, metadata, tensors } satisfies GgufSpec);
}

async function error(bytes: Uint8Array): Promise<AllocationError> {
  const e = await estimateMemory(bytes, { contextLength: 2048 }).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AllocationError);
  return e as AllocationError;
}

describe('vocabulary without tokenizer.ggml.tokens', () => {
  const reference = estimateMemory(writeGguf(spec), { contextLength: 2048 });

  test('from token_embd.weight [embedding, vocab]: the same estimate as with the token list, and a warning', async () => {
    const e = await estimateMemory(gguf(withoutTokens), { contextLength: 2048 });
    const { warnings, ...numbers } = e;
    expect(numbers).toEqual(await reference);
    expect(warnings).toEqual([`metadata key tokenizer.ggml.tokens is missing; the vocabulary size ${VOCAB} is taken from tensor token_embd.weight's shape [512, ${VOCAB}]`]);
  });

  test('from llama.vocab_size when there is no token_embd.weight either', async () => {
    const tensors = spec.tensors!.filter((t) => t.name !== 'token_embd.weight');
    const e = await estimateMemory(gguf([...withoutTokens, ['llama.vocab_size', VOCAB]], tensors), { contextLength: 2048 });
    const { warnings, ...numbers } = e;
    // output.weight is present, so token_embd never counted in the weights: everything else is equal.
    expect(numbers).toEqual(await reference);
    expect(warnings).toEqual([`metadata key tokenizer.ggml.tokens is missing; the vocabulary size ${VOCAB} is taken from metadata key llama.vocab_size`]);
  });

  test('a wrong vocabulary would change the graph: the fallback is not a no-op', async () => {
    const small = await estimateMemory(
      gguf(
        [...withoutTokens, ['llama.vocab_size', 100]],
        spec.tensors!.filter((t) => t.name !== 'token_embd.weight'),
      ),
      { contextLength: 2048 },
    );
    expect(small.graph).toBeLessThan((await reference).graph);
  });

  test('nothing gives it: INVALID_GGUF naming the three places looked at', async () => {
    const tensors = spec.tensors!.filter((t) => t.name !== 'token_embd.weight');
    const e = await error(gguf(withoutTokens, tensors));
    expect(e.code).toBe('INVALID_GGUF');
    expect(e.message).toMatch(/missing metadata key tokenizer\.ggml\.tokens, and neither tensor token_embd\.weight nor metadata key llama\.vocab_size gives the vocabulary size/);
  });

  test('a token list that is not an array is still an error, not a fallback', async () => {
    const e = await error(gguf([...withoutTokens, ['tokenizer.ggml.tokens', 'abc']]));
    expect(e.message).toMatch(/tokenizer\.ggml\.tokens: expected an array of strings, got "abc"/);
  });
});
