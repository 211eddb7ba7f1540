#!/usr/bin/env node
// Writes data/samples/llama-3.2-1b.header.gguf: the header of a GGUF file shaped like Llama 3.2 1B
// (16 blocks, embedding 2048, 32 heads, 8 KV heads, feed-forward 8192, vocabulary 128,256, tied
// embeddings, Q8_0 weights), with its metadata and tensor infos and no tensor data: about 9 kB, which
// is all `gpualloc estimate` and `gpualloc plan --gguf` read of a model. The numbers are the published
// model's shape, not its weights. The tokenizer's 128,256 token strings are left out to keep the file
// small, so the estimate takes the vocabulary size from token_embd.weight's shape and says so.
//
//   node data/samples/make-gguf.mjs [OUT]      (default: data/samples/llama-3.2-1b.header.gguf)
//
// The format (GGUF v3, little-endian): "GGUF", version u32, tensor count u64, metadata count u64;
// each metadata entry: key (u64 length + UTF-8), value type u32, value; each tensor info: name,
// dimension count u32, dimensions u64 (fastest first), GGML type u32, data offset u64; then zero
// padding to the 32-byte alignment where tensor data would begin. A test regenerates the file and
// compares it byte for byte with the one in the repository.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BLOCKS = 16;
const EMBEDDING = 2048;
const HEADS = 32;
const KV_HEADS = 8;
const FFN = 8192;
const VOCAB = 128256;
const CONTEXT = 131072;
const F32 = 0;
const Q8_0 = 8;
const ALIGNMENT = 32;

const METADATA = [
  ['general.architecture', 'string', 'llama'],
  ['general.name', 'string', 'Llama 3.2 1B shape (header only, no weights)'],
  ['general.file_type', 'u32', 7], // MOSTLY_Q8_0
  ['llama.block_count', 'u32', BLOCKS],
  ['llama.context_length', 'u32', CONTEXT],
  ['llama.embedding_length', 'u32', EMBEDDING],
  ['llama.feed_forward_length', 'u32', FFN],
  ['llama.attention.head_count', 'u32', HEADS],
  ['llama.attention.head_count_kv', 'u32', KV_HEADS],
  ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
  ['llama.rope.freq_base', 'f32', 500000],
  ['llama.vocab_size', 'u32', VOCAB],
  ['tokenizer.ggml.model', 'string', 'gpt2'],
];

function tensors() {
  const kvDim = (EMBEDDING / HEADS) * KV_HEADS;
  const list = [['token_embd.weight', [EMBEDDING, VOCAB], Q8_0]];
  for (let i = 0; i < BLOCKS; i++) {
    list.push(
      [`blk.${i}.attn_norm.weight`, [EMBEDDING], F32],
      [`blk.${i}.attn_q.weight`, [EMBEDDING, EMBEDDING], Q8_0],
      [`blk.${i}.attn_k.weight`, [EMBEDDING, kvDim], Q8_0],
      [`blk.${i}.attn_v.weight`, [EMBEDDING, kvDim], Q8_0],
      [`blk.${i}.attn_output.weight`, [EMBEDDING, EMBEDDING], Q8_0],
      [`blk.${i}.ffn_norm.weight`, [EMBEDDING], F32],
      [`blk.${i}.ffn_gate.weight`, [EMBEDDING, FFN], Q8_0],
      [`blk.${i}.ffn_up.weight`, [EMBEDDING, FFN], Q8_0],
      [`blk.${i}.ffn_down.weight`, [FFN, EMBEDDING], Q8_0],
    );
  }
  // Tied embeddings: no output.weight (the model reuses token_embd.weight).
  list.push(['output_norm.weight', [EMBEDDING], F32]);
  return list;
}

/** Bytes a tensor's data takes: F32 4 per element; Q8_0 34 per block of 32 elements. */
function dataBytes(shape, type) {
  const n = shape.reduce((a, b) => a * b, 1);
  return type === F32 ? n * 4 : (n / 32) * 34;
}

/** The file's bytes. */
export function sampleGguf() {
  const parts = [];
  const u32 = (v) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    parts.push(b);
  };
  const u64 = (v) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    parts.push(b);
  };
  const f32 = (v) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    parts.push(b);
  };
  const str = (s) => {
    const b = Buffer.from(s, 'utf8');
    u64(b.length);
    parts.push(b);
  };
  const TYPE = { u32: 4, f32: 6, string: 8 };
  const list = tensors();
  parts.push(Buffer.from('GGUF', 'ascii'));
  u32(3);
  u64(list.length);
  u64(METADATA.length);
  for (const [key, type, value] of METADATA) {
    str(key);
    u32(TYPE[type]);
    if (type === 'u32') u32(value);
    else if (type === 'f32') f32(value);
    else str(value);
  }
  let offset = 0;
  for (const [name, shape, type] of list) {
    str(name);
    u32(shape.length);
    for (const d of shape) u64(d);
    u32(type);
    u64(offset);
    offset += Math.ceil(dataBytes(shape, type) / ALIGNMENT) * ALIGNMENT;
  }
  const length = parts.reduce((a, b) => a + b.length, 0);
  parts.push(Buffer.alloc((ALIGNMENT - (length % ALIGNMENT)) % ALIGNMENT));
  return Buffer.concat(parts);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? fileURLToPath(new URL('llama-3.2-1b.header.gguf', import.meta.url));
  const bytes = sampleGguf();
  writeFileSync(out, bytes);
  console.log(`wrote ${bytes.length} bytes to ${out}`);
}
