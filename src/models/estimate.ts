// estimateMemory: what a GGUF model needs, following Ollama v0.11.4's EstimateGPULayers
// (llm/memory.go) and GraphSize (fs/ggml/ggml.go), computed from the header alone.
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, keysOf, own, readInput, rejectUnknownKeys, requireArray, requireBoolean, requireInteger, requireObject, requireOneOf } from '../shared/validate.js';
import { type GgufHeader, type GgufTensorInfo, groupLayers, isKnownTensorType, layerBytes, readGgufHeaderFromBytes, readGgufHeaderFromFile } from './gguf.js';

/** Memory a model needs, in bytes (README: "Memory from a GGUF header"). */
export type MemoryEstimate = {
  /** Bytes of the weights Ollama places: every `blk.N` layer plus the output layer (output_norm + output, or token_embd when tied). */
  weights: number;
  /** Bytes of the KV cache over all layers (context × parallel tokens). */
  kvCache: number;
  /** Bytes of the compute graph, per GPU that holds layers (full-offload size on one GPU, partial size on several or when not all fits). */
  graph: number;
  /** Bytes to load the whole model: what lands on the GPUs plus what overflows; includes Ollama's per-GPU reserve (457 MiB CUDA minimum and one spare layer). Without `gpus`, for one GPU with room for everything. */
  total: number;
  /** With `gpus`: layers offloaded, counting the output layer (a model with N blocks has N + 1). */
  layers?: number;
  /** With `gpus`: bytes Ollama would allocate on each GPU, in the order given (0 for a GPU with no layers). */
  perGpu?: number[];
  /** With `gpus`: layers placed on each GPU, in the order given (the output layer counts on the GPU that holds it). */
  layersPerGpu?: number[];
  /** With `gpus`: bytes allocated on all GPUs together (the sum of perGpu). */
  vram?: number;
  /** With `gpus`: whether every layer, the output layer included, fits on the GPUs. */
  fits?: boolean;
  /** Attention heads of the model (the largest per-layer count): tensor-parallel sizes must divide it (vLLM's rule). */
  heads: number;
  /** KV heads of the model (the largest per-layer count): a tensor-parallel size above it replicates them. */
  kvHeads: number;
  /** Adjustments made to the request (a quantised KV cache without flash attention, a context above the model's, …). */
  warnings?: string[];
};

/** Tokens of context per sequence when none is given: Ollama's default, used by the API, the CLI (`--context`) and the page. */
export const DEFAULT_CONTEXT_LENGTH = 4096;

/** Options of estimateMemory. */
export type EstimateOptions = {
  /** Tokens of context per sequence; default DEFAULT_CONTEXT_LENGTH (4096, Ollama's default), never above the model's context length. */
  contextLength?: number;
  /** Sequences served at once; default 1. The KV cache holds contextLength × parallel tokens. */
  parallel?: number;
  /** KV cache element type; default 'f16'. Quantised types take effect only with flashAttention, as in Ollama. */
  kvCacheType?: 'f16' | 'q8_0' | 'q4_0';
  /** Whether flash attention is on; default false. */
  flashAttention?: boolean;
  /** Tokens per batch; default 512. */
  batch?: number;
  /** Free bytes on each GPU (CUDA); with it, layers are placed as Ollama places them. */
  gpus?: number[];
};

const ESTIMATE_OPTION_KEYS = keysOf<EstimateOptions>()(['contextLength', 'parallel', 'kvCacheType', 'flashAttention', 'batch', 'gpus']);

/** Already-parsed GGUF header: metadata keys and tensor infos (as readGgufHeaderFromBytes returns them, or @huggingface/gguf). */
export type ParsedGguf = GgufHeader;

/** Per-GPU memory Ollama keeps free on CUDA devices (discover.CudaMinimumMemory), in bytes. */
export const CUDA_MINIMUM_MEMORY = 457 * 1024 * 1024;

const KV_BYTES_PER_ELEMENT = { f16: 2, q8_0: 1, q4_0: 0.5 } as const;

/** The model keys GraphSize reads, resolved with Ollama's defaults. */
type _ModelKeys = {
  arch: string;
  blockCount: number;
  embedding: number;
  headsMax: number;
  headsMin: number;
  headsKvMax: number;
  headsKvMin: number;
  keyLength: number;
  valueLength: number;
  contextLength: number;
  vocab: number;
};

function _bad(message: string): never {
  throw new AllocationError('INVALID_GGUF', message, { field: 'source' });
}

function _uint(value: unknown, key: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  return _bad(`metadata key ${key}: expected an unsigned integer, got ${describeValue(value)}`);
}

/** A key that is a number or an array of per-layer numbers (Ollama's UintOrArrayValue): its min and max. */
function _uintOrArray(value: unknown, key: string): { min: number; max: number } | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const numbers = value.map((v, i) => _uint(v, `${key}[${i}]`) as number);
    return { min: Math.min(...numbers), max: Math.max(...numbers) };
  }
  const n = _uint(value, key) as number;
  return { min: n, max: n };
}

/** The key whose array sizes the vocabulary; the reader keeps only its length. */
const _TOKENS_KEY = 'tokenizer.ggml.tokens';

/**
 * The vocabulary size: the length of tokenizer.ggml.tokens; without that key (a warning says so), the
 * vocabulary dimension of tensor token_embd.weight (GGUF shape [embedding, vocab]), else the
 * metadata key ARCH.vocab_size. INVALID_GGUF only when none of them gives it.
 */
function _vocab(header: GgufHeader, arch: string, warnings: string[]): number {
  const tokens = own(header.metadata, _TOKENS_KEY);
  if (tokens !== undefined) {
    if (!Array.isArray(tokens)) _bad(`metadata key ${_TOKENS_KEY}: expected an array of strings, got ${describeValue(tokens)}`);
    return tokens.length;
  }
  const skipped = header.arrayLengths === undefined ? undefined : own(header.arrayLengths, _TOKENS_KEY);
  if (typeof skipped === 'number') return skipped;
  const embd = header.tensorInfos.find((t) => t.name === 'token_embd.weight');
  if (embd !== undefined && embd.shape.length >= 2 && Number(embd.shape[1]) > 0 && Number.isSafeInteger(Number(embd.shape[1]))) {
    const vocab = Number(embd.shape[1]);
    warnings.push(`metadata key ${_TOKENS_KEY} is missing; the vocabulary size ${vocab} is taken from tensor token_embd.weight's shape [${embd.shape.join(', ')}]`);
    return vocab;
  }
  const sizeKey = `${arch}.vocab_size`;
  const declared = _uint(own(header.metadata, sizeKey), sizeKey);
  if (declared !== undefined && declared > 0) {
    warnings.push(`metadata key ${_TOKENS_KEY} is missing; the vocabulary size ${declared} is taken from metadata key ${sizeKey}`);
    return declared;
  }
  return _bad(`missing metadata key ${_TOKENS_KEY}, and neither tensor token_embd.weight nor metadata key ${sizeKey} gives the vocabulary size (Ollama sizes the output graph by the vocabulary)`);
}

function _modelKeys(header: GgufHeader, warnings: string[]): _ModelKeys {
  const metadata = header.metadata;
  const arch = own(metadata, 'general.architecture');
  if (arch === undefined) _bad('missing metadata key general.architecture');
  if (typeof arch !== 'string' || arch === '') _bad(`metadata key general.architecture: expected a string, got ${describeValue(arch)}`);
  const key = (name: string) => `${arch}.${name}`;
  const required = (name: string): number => {
    const v = _uint(own(metadata, key(name)), key(name));
    if (v === undefined) _bad(`missing metadata key ${key(name)}`);
    if (v === 0) _bad(`metadata key ${key(name)}: expected a positive integer, got 0`);
    return v;
  };
  const blockCount = required('block_count');
  const embedding = required('embedding_length');
  const heads = _uintOrArray(own(metadata, key('attention.head_count')), key('attention.head_count'));
  if (heads === undefined) _bad(`missing metadata key ${key('attention.head_count')}`);
  let headsKv = _uintOrArray(own(metadata, key('attention.head_count_kv')), key('attention.head_count_kv'));
  if (headsKv === undefined) {
    warnings.push(`metadata key ${key('attention.head_count_kv')} is missing; Ollama then assumes 1 KV head`);
    headsKv = { min: 1, max: 1 };
  }
  const embeddingHeads = heads.min > 0 ? Math.floor(embedding / heads.min) : 0;
  const keyLength = _uint(own(metadata, key('attention.key_length')), key('attention.key_length')) ?? embeddingHeads;
  const valueLength = _uint(own(metadata, key('attention.value_length')), key('attention.value_length')) ?? embeddingHeads;
  return {
    arch,
    blockCount,
    embedding,
    headsMax: heads.max,
    headsMin: heads.min,
    headsKvMax: headsKv.max,
    headsKvMin: headsKv.min,
    keyLength,
    valueLength,
    contextLength: _uint(own(metadata, key('context_length')), key('context_length')) ?? 0,
    vocab: _vocab(header, arch, warnings),
  };
}

function _checkParsed(value: Record<string, unknown>): GgufHeader {
  const metadata = requireObject('source.metadata', own(value, 'metadata'));
  const infos = requireArray('source.tensorInfos', own(value, 'tensorInfos'), 10_000_000);
  const tensorInfos = infos.map((raw, i): GgufTensorInfo => {
    const t = requireObject(`source.tensorInfos[${i}]`, raw);
    const name = own(t, 'name');
    if (typeof name !== 'string') fail('INVALID_ARGUMENT', `source.tensorInfos[${i}].name`, 'a string', name);
    const shape = requireArray(`source.tensorInfos[${i}].shape`, own(t, 'shape'), 8);
    shape.forEach((d, k) => {
      const ok = (typeof d === 'number' && Number.isSafeInteger(d) && d >= 0) || (typeof d === 'bigint' && d >= 0n);
      if (!ok) fail('INVALID_ARGUMENT', `source.tensorInfos[${i}].shape[${k}]`, 'a non-negative integer', d);
    });
    const rawType = own(t, 'dtype');
    // A bigint dtype is fine; any other non-number is rejected without coercing it (coercion runs caller code).
    const dtype = requireInteger(`source.tensorInfos[${i}].dtype`, typeof rawType === 'bigint' && rawType >= 0n && rawType < 2n ** 32n ? Number(rawType) : rawType, 0, 2 ** 32 - 1);
    return { name, shape: shape as Array<number | bigint>, dtype };
  });
  const lengths = own(value, 'arrayLengths');
  if (lengths === undefined) return { metadata, tensorInfos };
  const arrayLengths: Record<string, number> = {};
  for (const [key, n] of Object.entries(requireObject('source.arrayLengths', lengths))) {
    Object.defineProperty(arrayLengths, key, { value: requireInteger(`source.arrayLengths.${key}`, n, 0, Number.MAX_SAFE_INTEGER), enumerable: true });
  }
  return { metadata, tensorInfos, arrayLengths };
}

/** The estimate reads no tokenizer array but the token list's length: the reader steps over them (a 128k-token list is most of a header). */
const _READ = { skipArray: (key: string) => key.startsWith('tokenizer.') };

async function _readSource(source: unknown): Promise<GgufHeader> {
  if (typeof source === 'string') {
    if (source === '') fail('INVALID_ARGUMENT', 'source', 'a file path, the file bytes or parsed metadata', source);
    return readGgufHeaderFromFile(source, _READ);
  }
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return readGgufHeaderFromBytes(source, 'source', _READ);
  if (source !== null && typeof source === 'object' && !Array.isArray(source) && own(source as Record<string, unknown>, 'metadata') !== undefined) {
    return _checkParsed(source as Record<string, unknown>);
  }
  return fail('INVALID_ARGUMENT', 'source', 'a file path, a Uint8Array or ArrayBuffer of the file head, or { metadata, tensorInfos }', source);
}

type _Options = { contextLength: number; parallel: number; kvCacheType: 'f16' | 'q8_0' | 'q4_0'; flashAttention: boolean; batch: number; gpus?: number[] };

function _checkOptions(options: unknown): _Options {
  const o = requireObject('options', options ?? {});
  rejectUnknownKeys('options', o, ESTIMATE_OPTION_KEYS);
  const opt = <T>(k: string, check: (field: string, v: unknown) => T, fallback: T): T => {
    const v = own(o, k);
    return v === undefined ? fallback : check(`options.${k}`, v);
  };
  const gpus = own(o, 'gpus');
  return {
    contextLength: opt('contextLength', (f, v) => requireInteger(f, v, 1, 1 << 30), DEFAULT_CONTEXT_LENGTH),
    parallel: opt('parallel', (f, v) => requireInteger(f, v, 1, 1 << 16), 1),
    kvCacheType: opt('kvCacheType', (f, v) => requireOneOf(f, v, ['f16', 'q8_0', 'q4_0'] as const), 'f16' as const),
    flashAttention: opt('flashAttention', requireBoolean, false),
    batch: opt('batch', (f, v) => requireInteger(f, v, 1, 1 << 20), 512),
    gpus: gpus === undefined ? undefined : requireArray('options.gpus', gpus, LIMITS.maxGpus).map((g, i) => requireInteger(`options.gpus[${i}]`, g, 0, LIMITS.maxBytes)),
  };
}

const _big = (n: number) => BigInt(n);
const _max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Ollama's GraphSize: the KV cache per layer and the graph for partial and full offload. Integer
 * arithmetic (uint64, truncating division) as in Go; a 0 graph means "no formula for this architecture".
 */
function _graphSize(
  m: _ModelKeys,
  layers: Map<string, Map<string, GgufTensorInfo>>,
  metadata: Record<string, unknown>,
  contextTokens: number,
  batchTokens: number,
  parallel: number,
  bytesPerElement: number,
): { kv: number[]; partial: number; full: number } {
  const context = _big(contextTokens);
  const batch = _big(batchTokens);
  const embedding = _big(m.embedding);
  const heads = _big(m.headsMax);
  const headsKV = _big(m.headsKvMax);
  const vocab = _big(m.vocab);
  const embeddingHeads = _big(m.headsMin > 0 ? Math.floor(m.embedding / m.headsMin) : 0);
  const embeddingHeadsK = _big(m.keyLength);
  const kvLayer = (tokens: number) => Math.floor(tokens * (m.keyLength + m.valueLength) * m.headsKvMax * bytesPerElement);
  const kv = Array.from({ length: m.blockCount }, () => kvLayer(contextTokens));
  const kvTotal = kv.reduce((a, b) => a + b, 0);
  const blk0 = layers.get('blk.0');
  let full = 0n;
  let partial = 0n;
  switch (m.arch) {
    case 'llama':
    case 'llama4': {
      full = _max(4n * batch * (1n + 4n * embedding + context * (1n + heads)), 4n * batch * (embedding + vocab));
      partial = 4n * batch * embedding;
      partial += _max(
        4n * batch * (1n + embedding + _max(context, embedding)) + (embedding * embedding * 9n) / 16n + 4n * context * (batch * heads + embeddingHeads * headsKV),
        4n * batch * (embedding + vocab) + (embedding * vocab * 105n) / 128n,
      );
      const gateExps = blk0?.get('ffn_gate_exps.weight');
      const gate0 = blk0?.get('ffn_gate.0.weight');
      if (gateExps !== undefined) {
        // mixtral 8x22b
        const ff = _big(_uint(own(metadata, `${m.arch}.feed_forward_length`), `${m.arch}.feed_forward_length`) ?? 0);
        partial = _max(
          3n * _big(layerBytes(new Map([['', gateExps]]))) + 4n * batch * (2n * ff + headsKV + embedding + context + embeddingHeads * headsKV),
          4n * (context * batch * heads + context * embeddingHeads * headsKV + batch * 1024n + embeddingHeads * headsKV * batch),
        );
      } else if (gate0 !== undefined) {
        // mixtral 8x7b
        const ffnGateWeight1 = BigInt(gate0.shape[1] ?? 0);
        full = 4n * batch * (2n + 3n * embedding + context * (1n + heads) + 2n * headsKV + ffnGateWeight1);
        partial = _max(
          4n * batch * (3n + embeddingHeads * headsKV + embedding + context * (1n + heads) + ffnGateWeight1) + ((embedding * embedding + 3n * embedding * headsKV * ffnGateWeight1) * 9n) / 16n,
          4n * batch * (1n + 2n * embedding + context * (1n + heads)) + embedding * ((6n * context * headsKV) / heads + (embedding * 9n) / 16n),
        );
      }
      break;
    }
    case 'mllama': {
      const visionTokens = 1601;
      const tiles = 4;
      const cross = own(metadata, `${m.arch}.attention.cross_attention_layers`);
      const crossLayers = Array.isArray(cross) ? cross.map(Number) : [];
      for (let i = 0; i < kv.length; i++) if (crossLayers.includes(i)) kv[i] = m.headsKvMax * (m.keyLength + m.valueLength) * 4 * visionTokens * tiles;
      full = _max(4n * batch * (2n + 3n * embedding + embeddingHeadsK * heads + context * (1n + heads)), 4n * batch * (embedding + vocab));
      const ropeFreqs = layers.get('rope_freqs')?.get('weights');
      const ropeFreqsCount = ropeFreqs === undefined ? 0n : ropeFreqs.shape.reduce<bigint>((a, d) => a * BigInt(d), 1n);
      partial = _max(
        4n * (batch * (2n * embedding + 1n + context * (1n + heads) + embeddingHeadsK * heads) + ropeFreqsCount + embeddingHeadsK * context * headsKV),
        4n * batch * (embedding + vocab) + (embedding * vocab * 105n) / 128n,
      );
      break;
    }
    case 'gemma':
    case 'gemma2':
    case 'gemma3':
    case 'gemma3n': {
      full = _max(4n * batch * (embedding + vocab), 4n * batch * (2n + context + context * heads + 2n * embedding + 2n * embeddingHeadsK * heads));
      partial = _max(
        4n * embedding * batch + (embedding * vocab * 105n) / 128n + 4n * vocab * batch,
        4n * batch * (2n * embedding + 1n + 2n * embeddingHeadsK * heads + context + context * heads) + 4n * embeddingHeadsK * context * 8n + (embedding * embeddingHeadsK * heads * 9n) / 16n,
      );
      if (m.arch === 'gemma3n') {
        full *= 4n;
        partial *= 4n;
      }
      if (m.arch === 'gemma3') {
        // every 6th layer is global (full context); the others keep a sliding window
        const window = _uint(own(metadata, `${m.arch}.attention.sliding_window`), `${m.arch}.attention.sliding_window`) ?? 0;
        const slidingTokens = parallel * window + batchTokens;
        for (let i = 0; i < kv.length; i++) if ((i + 1) % 6 !== 0) kv[i] = kvLayer(slidingTokens);
      }
      break;
    }
    case 'command-r':
      full = _max(4n * batch * (embedding + vocab), 4n * batch * (2n + 4n * embedding + context * (1n + heads)));
      partial = _max(
        4n * batch * (embedding + vocab) + (embedding * vocab * 105n) / 128n,
        4n * batch * (1n + 2n * embedding + context * (1n + heads)) + 4n * embedding * context + (embedding * embedding * 9n) / 16n,
      );
      break;
    case 'qwen2':
      full = _max(4n * batch * (embedding + vocab), 4n * batch * (1n + 2n * embedding + context + context * heads));
      partial = _max(4n * batch * (embedding + vocab) + (embedding * vocab * 105n) / 128n, 4n * (batch * (1n + 2n * embedding + context * (1n + heads)) + embedding * (1n + context)));
      break;
    case 'phi2':
      full = _max(4n * batch * (embedding + vocab), 4n * batch * (1n + 4n * embedding + context + context * heads));
      partial = _max(4n * batch * (2n * embedding + vocab) + (embedding * vocab * 105n) / 128n, 4n * batch * (2n + 3n * embedding + context + context * heads));
      break;
    case 'stablelm':
      full = 4n * batch * (context * (1n + heads) + 3n * embedding + 2n);
      partial = _max(4n * batch * (vocab + 2n * embedding), full);
      break;
    case 'deepseek2':
      full = _max(4n * batch * (3n * embedding + vocab), 4n * batch * (3n * embedding + 2n + context * (1n + headsKV) + 2n * embeddingHeadsK * headsKV));
      partial = _max(
        4n * batch * (3n * embedding + vocab) + (embedding * vocab * 105n) / 128n,
        4n * batch * (2n * embedding + 1n + 2n * embeddingHeadsK * headsKV + context + context * headsKV) +
          4n * embeddingHeadsK * context * headsKV +
          (embedding * embeddingHeadsK * headsKV * 9n) / 16n,
      );
      break;
    case 'chatglm': {
      full = 4n * batch * (embedding + vocab);
      partial = 4n * batch * (embedding + vocab) + (embedding * vocab * 105n) / 128n;
      const qkvBias = blk0?.get('attn_qkv.bias');
      if (qkvBias !== undefined) {
        const bias = BigInt(qkvBias.shape[0] ?? 0);
        full = _max(full, 4n * batch * (2n + 2n * embedding + context + context * heads + embeddingHeadsK * heads + bias));
        partial = _max(partial, 4n * batch * (1n + 2n * embedding + embeddingHeadsK * heads + context + context * heads) + 4n * embeddingHeadsK * context + 4n * context * embeddingHeadsK + 4n * bias);
      }
      break;
    }
    case 'gptoss':
    case 'gpt-oss': {
      // even layers use a 4096-token sliding window per sequence
      for (let i = 0; i < kv.length; i++) kv[i] = i % 2 === 0 ? kvLayer(parallel * 4096 + batchTokens) : kvLayer(contextTokens);
      full = (((4n * heads) / _big(Math.max(m.headsKvMin, 1))) * _big(kvTotal)) / 6n;
      partial = 2n * full;
      break;
    }
  }
  return { kv, partial: Number(partial), full: Number(full) };
}

/** Ollama's SupportsFlashAttention: not an embedding model, and equal non-zero key and value head sizes. */
function _supportsFlashAttention(m: _ModelKeys, metadata: Record<string, unknown>): boolean {
  if (own(metadata, `${m.arch}.pooling_type`) !== undefined) return false;
  return m.keyLength !== 0 && m.valueLength !== 0 && m.keyLength === m.valueLength;
}

/**
 * Estimates what a GGUF model needs, as Ollama v0.11.4 does (EstimateGPULayers + GraphSize), from the
 * header only. `source` is a local file path (Node), the file's head as bytes, or parsed metadata.
 * With `options.gpus` (free bytes per CUDA GPU) the layers are placed as Ollama places them.
 */
export async function estimateMemory(source: string | Uint8Array | ArrayBuffer | ParsedGguf, options: EstimateOptions = {}): Promise<MemoryEstimate> {
  // Read the caller's objects once (getters, proxies, cycles become AllocationError; nothing is mutated).
  const opts = _checkOptions(readInput('options', options));
  const header = await _readSource(readInput('source', source));
  const { metadata, tensorInfos } = header;
  const warnings: string[] = [];
  const m = _modelKeys(header, warnings);

  let contextLength = opts.contextLength;
  if (m.contextLength > 0 && contextLength > m.contextLength) {
    warnings.push(`contextLength ${contextLength} is above the model's context length ${m.contextLength}; using ${m.contextLength}`);
    contextLength = m.contextLength;
  }
  let kvCacheType: keyof typeof KV_BYTES_PER_ELEMENT = 'f16';
  if (opts.kvCacheType !== 'f16') {
    if (!opts.flashAttention) warnings.push(`kvCacheType ${opts.kvCacheType} takes effect only with flash attention; the KV cache is estimated as f16 (as Ollama does)`);
    else if (!_supportsFlashAttention(m, metadata))
      warnings.push(`kvCacheType ${opts.kvCacheType}: this model does not support flash attention (an embedding model, or key and value head sizes differ); the KV cache is estimated as f16`);
    else kvCacheType = opts.kvCacheType;
  }
  const unknownTypes = [...new Set(tensorInfos.filter((t) => !isKnownTensorType(t.dtype)).map((t) => t.dtype))];
  if (unknownTypes.length > 0) warnings.push(`tensor type${unknownTypes.length > 1 ? 's' : ''} ${unknownTypes.join(', ')} unknown to Ollama's size table; counted as 0 bytes, as Ollama does`);

  const layers = groupLayers(tensorInfos);
  const contextTokens = contextLength * opts.parallel;
  const batchTokens = Math.min(contextTokens, opts.batch);
  const graph = _graphSize(m, layers, metadata, contextTokens, batchTokens, opts.parallel, KV_BYTES_PER_ELEMENT[kvCacheType]);
  const kv = graph.kv;
  const kvTotal = kv.reduce((a, b) => a + b, 0);
  let graphPartial = graph.partial;
  let graphFull = graph.full;
  if (graphPartial === 0) {
    // the fallback for architectures without a formula: GQA × KV / 6
    const gqa = Math.floor(m.headsMax / (m.headsKvMin === 0 ? 1 : m.headsKvMin));
    graphPartial = Number((BigInt(gqa) * BigInt(kvTotal)) / 6n);
  }
  if (graphFull === 0) graphFull = graphPartial;

  const blk0 = layers.get('blk.0');
  if (blk0 === undefined) warnings.push('the model has no blk.0 tensors; Ollama then reserves no spare layer');
  let outputLayer = 0;
  const outputNorm = layers.get('output_norm');
  if (outputNorm !== undefined) outputLayer += layerBytes(outputNorm);
  const output = layers.get('output') ?? layers.get('token_embd');
  if (output !== undefined) outputLayer += layerBytes(output);

  const blockBytes = Array.from({ length: m.blockCount }, (_, i) => {
    const blk = layers.get(`blk.${i}`);
    return blk === undefined ? undefined : layerBytes(blk);
  });
  const gpus = opts.gpus ?? [Number.POSITIVE_INFINITY];
  const placed = _placeLayers(gpus, { blockBytes, kv, blk0Bytes: blk0 === undefined ? 0 : layerBytes(blk0), outputLayer, graphPartial, graphFull, minimumMemory: CUDA_MINIMUM_MEMORY });

  const result: MemoryEstimate = { weights: placed.memoryWeights + outputLayer, kvCache: kvTotal, graph: placed.graph, total: placed.total, heads: m.headsMax, kvHeads: m.headsKvMax };
  if (opts.gpus !== undefined) {
    result.layers = placed.layerCount;
    result.perGpu = placed.layerCount === 0 ? gpus.map(() => 0) : placed.allocations;
    result.layersPerGpu = placed.layerCounts;
    result.vram = placed.layerCount === 0 ? 0 : placed.vram;
    result.fits = placed.layerCount > 0 && placed.layerCount >= m.blockCount + 1;
  }
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

type _Placement = { layerCount: number; layerCounts: number[]; allocations: number[]; vram: number; total: number; graph: number; memoryWeights: number };

/**
 * Ollama's EstimateGPULayers placement: GPUs without room for the graph, the minimum, a spare layer
 * and one more layer are dropped; layers go last-first round-robin (layer i tries GPU i mod j); a
 * GPU that cannot take a layer leaves the rotation; the output layer goes last; every GPU holding
 * layers gets the graph (full size only when everything fits on one GPU's worth of rotation).
 */
function _placeLayers(
  free: number[],
  p: { blockBytes: Array<number | undefined>; kv: number[]; blk0Bytes: number; outputLayer: number; graphPartial: number; graphFull: number; minimumMemory: number },
): _Placement {
  const blockCount = p.blockBytes.length;
  const graphPartial = p.graphPartial;
  let graphFull = p.graphFull;
  if (free.length > 1) graphFull = graphPartial; // multi-GPU always uses the partial graph
  const graphMax = Math.max(graphPartial, graphFull);
  let layerSize = p.blk0Bytes + (p.kv[0] ?? 0); // one layer's worth kept spare on every GPU
  const allocations = free.map(() => 0);
  const layerCounts = free.map(() => 0);
  let withSpace: number[] = [];
  for (let i = 0; i < free.length; i++) {
    if (free[i]! < graphMax + p.minimumMemory + 2 * layerSize) continue;
    withSpace.push(i);
    allocations[i]! += p.minimumMemory + layerSize; // allocations and layerCounts hold one entry per GPU of free
  }
  let layerCount = 0;
  let overflow = 0;
  let memoryWeights = 0;
  for (let i = blockCount - 1; i >= 0; i--) {
    const bytes = p.blockBytes[i];
    if (bytes !== undefined) {
      layerSize = bytes + p.kv[i]!; // kv and blockBytes hold one entry per block
      memoryWeights += bytes;
    }
    for (let j = withSpace.length; j > 0; j--) {
      const g = withSpace[i % j]!; // j is withSpace's length
      if (free[g]! > allocations[g]! + graphMax + layerSize) {
        allocations[g]! += layerSize;
        layerCounts[g]!++;
        layerCount++;
        break;
      }
      withSpace = [...withSpace.slice(0, i % j), ...withSpace.slice((i % j) + 1)];
    }
    if (withSpace.length === 0) overflow += layerSize;
  }
  let fullyLoaded = layerCount >= blockCount;
  if (p.outputLayer > 0) {
    for (let j = withSpace.length; j > 0; j--) {
      const g = withSpace[layerCount % j]!; // j is withSpace's length
      if (free[g]! > allocations[g]! + graphMax + p.outputLayer) {
        allocations[g]! += p.outputLayer;
        layerCounts[g]!++;
        layerCount++;
        break;
      }
    }
    if (layerCount < blockCount + 1) {
      fullyLoaded = false;
      overflow += p.outputLayer;
    }
  }
  const graph = fullyLoaded ? graphFull : graphPartial;
  for (let i = 0; i < free.length; i++) if (layerCounts[i]! > 0) allocations[i]! += graph;
  const vram = allocations.reduce((a, b) => a + b, 0);
  return { layerCount, layerCounts, allocations, vram, total: vram + overflow, graph, memoryWeights };
}
