// GGUF header reading: metadata and tensor infos only, never the weights. Parsing is done by
// @huggingface/gguf; this module feeds it bytes (a buffer or ranges of a local file) through its
// `fetch` hook and turns every failure into AllocationError('INVALID_GGUF') naming what is wrong.
import { AllocationError } from './errors.js';

/** One tensor's declared name, shape (elements per dimension) and GGML type id. */
export type GgufTensorInfo = { name: string; shape: ReadonlyArray<number | bigint>; dtype: number };

/** What estimateMemory needs from a GGUF file: its metadata keys and tensor infos. */
export type GgufHeader = { metadata: Record<string, unknown>; tensorInfos: GgufTensorInfo[] };

/** A source of the file's bytes: `read(start, end)` returns bytes [start, end) clipped to what exists. */
type _ByteSource = { label: string; available: number; read(start: number, end: number): Promise<Uint8Array> };

const _MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"
const _SUPPORTED_VERSIONS = [1, 2, 3];
// Any http(s) URL makes the parser use our fetch hook; nothing is ever fetched from it.
const _SHIM_URL = 'https://gguf.invalid/model.gguf';

function _invalid(label: string, message: string, cause?: unknown): never {
  throw new AllocationError('INVALID_GGUF', `${label}: ${message}`, { field: 'source', cause });
}

/** Checks magic, version and the fixed header fields before the parser runs, for precise messages. */
function _checkPreamble(head: Uint8Array, label: string): void {
  if (head.length < 4) _invalid(label, `not a GGUF file: only ${head.length} bytes (a GGUF file starts with the 4 bytes "GGUF")`);
  if (!_MAGIC.every((b, i) => head[i] === b)) {
    const shown = Array.from(head.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    _invalid(label, `not a GGUF file: it starts with bytes ${shown}, expected 47 47 55 46 ("GGUF")`);
  }
  if (head.length < 8) _invalid(label, `truncated header: ${head.length} bytes, the version field ends at byte 8`);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const le = view.getUint32(4, true);
  const version = (le & 0xffff) !== 0 ? le : view.getUint32(4, false);
  if (!_SUPPORTED_VERSIONS.includes(version)) _invalid(label, `unsupported GGUF version ${version} (supported: ${_SUPPORTED_VERSIONS.join(', ')})`);
  const fixed = version === 1 ? 16 : 24;
  if (head.length < fixed) _invalid(label, `truncated header: ${head.length} bytes, the tensor and key counts of GGUF v${version} end at byte ${fixed}`);
}

async function _parse(source: _ByteSource): Promise<GgufHeader> {
  _checkPreamble(await source.read(0, 24), source.label);
  let requestsPastEnd = 0;
  // The parser asks for 2 MB ranges and reads one range ahead; a second range wholly past the end
  // of the bytes we have means the header itself runs past them.
  const shimFetch = async (_url: unknown, init?: { headers?: Record<string, string> }): Promise<Response> => {
    const range = /bytes=(\d+)-(\d+)/.exec(init?.headers?.Range ?? init?.headers?.range ?? '');
    if (range === null) throw new Error('GGUF parser asked for bytes without a Range header');
    const start = Number(range[1]);
    const end = Number(range[2]) + 1;
    if (start >= source.available && ++requestsPastEnd > 1) _invalid(source.label, `truncated header: it runs past the ${source.available} bytes given`);
    const bytes = await source.read(start, end);
    return new Response(bytes as unknown as BodyInit, { status: 206, headers: { 'content-range': `bytes ${start}-${end - 1}/*` } });
  };
  const { gguf } = await import('@huggingface/gguf');
  let parsed: Awaited<ReturnType<typeof gguf>>;
  try {
    parsed = await gguf(_SHIM_URL, { fetch: shimFetch as unknown as typeof fetch });
  } catch (error) {
    if (error instanceof AllocationError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (requestsPastEnd > 0 || error instanceof RangeError) _invalid(source.label, `truncated header: it runs past the ${source.available} bytes given (${message})`, error);
    _invalid(source.label, `malformed header: ${message}`, error);
  }
  const headerEnd = parsed.tensorInfoByteRange[1];
  // Past the end the parser reads zeros, so a cut-off header can parse; its end offset tells.
  if (headerEnd > source.available) _invalid(source.label, `truncated header: the header needs ${headerEnd} bytes, only ${source.available} given`);
  const metadata = parsed.metadata as unknown as Record<string, unknown>;
  return {
    metadata,
    tensorInfos: parsed.tensorInfos.map((t) => ({ name: t.name, shape: t.shape, dtype: Number(t.dtype) })),
  };
}

/** Parses the GGUF header held in `bytes` (the whole file or just its head). */
export function readGgufHeaderFromBytes(bytes: Uint8Array | ArrayBuffer, label = 'source'): Promise<GgufHeader> {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return _parse({
    label,
    available: data.length,
    read: async (start, end) => data.slice(Math.min(start, data.length), Math.min(end, data.length)),
  });
}

/** Parses the GGUF header of a local file (Node only), reading its head in ranges, never the weights. */
export async function readGgufHeaderFromFile(path: string): Promise<GgufHeader> {
  if (typeof process === 'undefined' || process.versions?.node === undefined) {
    throw new AllocationError('INVALID_ARGUMENT', `source: a file path (${JSON.stringify(path)}) can only be read in Node; pass the file's bytes (Uint8Array or ArrayBuffer) instead`, { field: 'source' });
  }
  const { open } = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new AllocationError('INVALID_ARGUMENT', `source: cannot open ${JSON.stringify(path)} (${code})`, { field: 'source', cause: error });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new AllocationError('INVALID_ARGUMENT', `source: ${JSON.stringify(path)} is not a regular file`, { field: 'source' });
    const size = stat.size;
    return await _parse({
      label: path,
      available: size,
      read: async (start, end) => {
        const from = Math.min(start, size);
        const length = Math.max(0, Math.min(end, size) - from);
        const buffer = new Uint8Array(length);
        let done = 0;
        while (done < length) {
          const { bytesRead } = await handle.read(buffer, done, length - done, from + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        return buffer.subarray(0, done);
      },
    });
  } finally {
    await handle.close();
  }
}

/** GGML type id → [block size in elements, bytes per block], as in Ollama's fs/ggml TensorType. */
const _TYPE_LAYOUT: Record<number, readonly [number, number]> = (() => {
  const t: Record<number, readonly [number, number]> = {};
  const k = 256; // elements per block of the k-quants and i-quants
  t[0] = [1, 4]; // F32
  t[1] = [1, 2]; // F16
  t[2] = [32, 2 + 32 / 2]; // Q4_0
  t[3] = [32, 2 + 2 + 32 / 2]; // Q4_1
  t[4] = [32, 1 + 32 / 2]; // MXFP4 (old id)
  t[6] = [32, 2 + 4 + 32 / 2]; // Q5_0
  t[7] = [32, 2 + 2 + 4 + 32 / 2]; // Q5_1
  t[8] = [32, 2 + 32]; // Q8_0
  t[9] = [32, 2 + 2 + 32]; // Q8_1
  t[10] = [k, k / 16 + k / 4 + 2 + 2]; // Q2_K
  t[11] = [k, k / 8 + k / 4 + 12 + 2]; // Q3_K
  t[12] = [k, 2 + 2 + 12 + k / 2]; // Q4_K
  t[13] = [k, 2 + 2 + 12 + k / 8 + k / 2]; // Q5_K
  t[14] = [k, k / 2 + k / 4 + k / 16 + 2]; // Q6_K
  t[15] = [k, 4 + k + (2 * k) / 16]; // Q8_K
  t[16] = [k, 2 + (2 * k) / 8]; // IQ2_XXS
  t[17] = [k, 2 + (2 * k) / 8 + k / 32]; // IQ2_XS
  t[18] = [k, 2 + k / 4 + k / 8]; // IQ3_XXS
  t[19] = [k, 2 + k / 8 + k / 16]; // IQ1_S
  t[20] = [32, 2 + 32 / 2]; // IQ4_NL
  t[21] = [k, 2 + k / 4 + k / 8 + k / 32 + 4]; // IQ3_S
  t[22] = [k, 2 + k / 4 + k / 16]; // IQ2_S
  t[23] = [k, 2 + 2 + k / 2 + k / 64]; // IQ4_XS
  t[24] = [1, 1]; // I8
  t[25] = [1, 2]; // I16
  t[26] = [1, 4]; // I32
  t[27] = [1, 8]; // I64
  t[28] = [1, 8]; // F64
  t[29] = [k, k / 8 + k / 16 + k / 32]; // IQ1_M
  t[30] = [1, 2]; // BF16
  t[39] = [32, 1 + 32 / 2]; // MXFP4
  return t;
})();

/** Whether Ollama knows the byte size of GGML type `dtype` (unknown types count as 0 bytes there). */
export function isKnownTensorType(dtype: number): boolean {
  return Object.prototype.hasOwnProperty.call(_TYPE_LAYOUT, dtype);
}

/** Bytes of one tensor: elements × type size / block size (integer division), 0 for unknown types, as Ollama computes it. */
export function tensorBytes(info: GgufTensorInfo): number {
  const layout = isKnownTensorType(info.dtype) ? _TYPE_LAYOUT[info.dtype] : undefined;
  if (layout === undefined) return 0;
  let elements = 1n;
  for (const dim of info.shape) elements *= BigInt(dim);
  const bytes = (elements * BigInt(layout[1])) / BigInt(layout[0]);
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) throw new AllocationError('INVALID_GGUF', `tensor ${JSON.stringify(info.name)}: declared shape [${info.shape.join(', ')}] is more bytes than can be represented exactly`, { field: 'source' });
  return Number(bytes);
}

/**
 * Groups tensors into layers by name as Ollama's GroupLayers does: `blk.N.*` (and `mm.N.*`) by their
 * numbered prefix, everything else by the first name part (`output`, `output_norm`, `token_embd`).
 * Each layer maps the rest of the name to the tensor (a repeated name keeps the last one).
 */
export function groupLayers(tensors: readonly GgufTensorInfo[]): Map<string, Map<string, GgufTensorInfo>> {
  const layers = new Map<string, Map<string, GgufTensorInfo>>();
  for (const t of tensors) {
    let parts = t.name.split('.');
    const index = parts.findIndex((p) => p === 'blk' || p === 'mm');
    if (index !== -1 && parts.length > index + 2) parts = [parts.slice(0, index + 2).join('.'), ...parts.slice(index + 2)];
    let layer = layers.get(parts[0]);
    if (layer === undefined) {
      layer = new Map();
      layers.set(parts[0], layer);
    }
    layer.set(parts.slice(1).join('.'), t);
  }
  return layers;
}

/** Bytes of a layer: the sum of its tensors. */
export function layerBytes(layer: Map<string, GgufTensorInfo>): number {
  let sum = 0;
  for (const t of layer.values()) sum += tensorBytes(t);
  return sum;
}
