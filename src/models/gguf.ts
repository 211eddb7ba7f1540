// GGUF header reading: metadata and tensor infos only, never the weights. A small reader of the
// format (v1-v3, either byte order) over a buffer or over ranges of a local file; array payloads the
// caller does not need (`skipArray`) are stepped over, their length kept, without decoding an item.
// Every failure is AllocationError('INVALID_GGUF') naming what is wrong and where.
import { AllocationError } from '../shared/errors.js';

/** One tensor's declared name, shape (elements per dimension) and GGML type id. */
export type GgufTensorInfo = { name: string; shape: ReadonlyArray<number | bigint>; dtype: number };

/**
 * What estimateMemory needs from a GGUF file: its metadata keys and tensor infos. Metadata values:
 * integers up to 32 bits and floats as numbers, 64-bit integers as bigint, bools, strings, arrays
 * of these. `arrayLengths`: the item count of each array that was skipped (left out of metadata).
 */
export type GgufHeader = { metadata: Record<string, unknown>; tensorInfos: GgufTensorInfo[]; arrayLengths?: Record<string, number> };

/** Options of the header readers. */
export type GgufReadOptions = {
  /** Arrays whose key this returns true for are stepped over: left out of metadata, their length in arrayLengths. */
  skipArray?: (key: string) => boolean;
};

/** A source of the file's bytes: `read(start, end)` returns bytes [start, end) clipped to what exists. */
type _ByteSource = { label: string; available: number; read(start: number, end: number): Promise<Uint8Array> };

const _MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"
const _SUPPORTED_VERSIONS = [1, 2, 3];
/** Bytes read from a file at a time. */
const _WINDOW = 1 << 20;
/** Most dimensions a tensor may declare (ggml has 4; the estimate accepts up to 8). */
const _MAX_DIMS = 8;
/** Byte size of each fixed-size GGUF value type (0 u8 … 12 f64); strings (8) and arrays (9) vary. */
const _FIXED_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

function _invalid(label: string, message: string, cause?: unknown): never {
  // The file (`label`) is the one the `source` field gave; the message names it instead of the field.
  throw AllocationError.of('INVALID_GGUF', { origin: label, path: 'source', named: true, detail: message, cause });
}

/** Checks magic, version and the fixed header fields; returns the version and byte order. */
function _checkPreamble(head: Uint8Array, label: string): { version: number; littleEndian: boolean } {
  if (head.length < 4) _invalid(label, `not a GGUF file: only ${head.length} bytes (a GGUF file starts with the 4 bytes "GGUF")`);
  if (!_MAGIC.every((b, i) => head[i] === b)) {
    const shown = Array.from(head.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    _invalid(label, `not a GGUF file: it starts with bytes ${shown}, expected 47 47 55 46 ("GGUF")`);
  }
  if (head.length < 8) _invalid(label, `truncated header: ${head.length} bytes, the version field ends at byte 8`);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const le = view.getUint32(4, true);
  // A big-endian file's version reads as v << 24 in little endian: its low 16 bits are zero.
  const littleEndian = (le & 0xffff) !== 0;
  const version = littleEndian ? le : view.getUint32(4, false);
  if (!_SUPPORTED_VERSIONS.includes(version)) _invalid(label, `unsupported GGUF version ${version} (supported: ${_SUPPORTED_VERSIONS.join(', ')})`);
  const fixed = version === 1 ? 16 : 24;
  if (head.length < fixed) _invalid(label, `truncated header: ${head.length} bytes, the tensor and key counts of GGUF v${version} end at byte ${fixed}`);
  return { version, littleEndian };
}

/** Thrown by the cursor when the header runs past the bytes read so far (but not past the source). */
const _MORE = Symbol('more bytes');

/** A read position over the head of the file: bytes [0, head.length) of `available`. */
class _Cursor {
  pos = 0;
  private readonly view: DataView;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly head: Uint8Array,
    private readonly available: number,
    private readonly label: string,
    private readonly le: boolean,
    private readonly wide: boolean,
  ) {
    this.view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  }

  truncated(): never {
    return _invalid(this.label, `truncated header: it runs past the ${this.available} bytes given`);
  }

  /** Checks that bytes [pos, pos + n) exist and were read; returns pos. */
  private need(n: number): number {
    const end = this.pos + n;
    if (!(end <= this.available)) this.truncated();
    if (end > this.head.length) throw _MORE;
    return this.pos;
  }

  /** Moves past n bytes without reading them. */
  skip(n: number): void {
    const end = this.pos + n;
    if (!(end <= this.available)) this.truncated();
    this.pos = end;
  }

  u32(): number {
    const at = this.need(4);
    this.pos += 4;
    return this.view.getUint32(at, this.le);
  }

  u64(): bigint {
    const at = this.need(8);
    this.pos += 8;
    return this.view.getBigUint64(at, this.le);
  }

  /** A count or length: u32 in GGUF v1, u64 after (two u32 halves, no BigInt); one past 2^53 cannot fit in any file. */
  size(): number {
    if (!this.wide) return this.u32();
    const at = this.need(8);
    this.pos += 8;
    const lo = this.view.getUint32(this.le ? at : at + 4, this.le);
    const hi = this.view.getUint32(this.le ? at + 4 : at, this.le);
    if (hi >= 0x200000) this.truncated();
    return hi * 0x100000000 + lo;
  }

  /** Steps over `count` strings: reads each length, seeks past its bytes (a token list is most of a header). */
  skipStrings(count: number): void {
    if (!this.wide) {
      for (let i = 0; i < count; i++) this.skip(this.u32());
      return;
    }
    // The hot loop of a 128k-token header: locals only, each length read while it is below 2^31 (so
    // positions stay small integers; the generic path otherwise), and the byte order a constant of
    // each loop; a string's bytes are never looked at.
    const { view, available } = this;
    const limit = this.head.length;
    let pos = this.pos;
    let i = 0;
    while (i < count) {
      if (this.le) {
        for (; i < count && pos + 8 <= limit; i++) {
          const length = view.getInt32(pos, true);
          if (length < 0 || view.getInt32(pos + 4, true) !== 0) break;
          pos = pos + 8 + length;
        }
      } else {
        for (; i < count && pos + 8 <= limit; i++) {
          const length = view.getInt32(pos + 4, false);
          if (length < 0 || view.getInt32(pos, false) !== 0) break;
          pos = pos + 8 + length;
        }
      }
      if (pos > available) this.truncated();
      if (i === count) break;
      // A length past 2^31, or the end of the bytes read: the generic path (truncated, or more to read).
      this.pos = pos;
      this.skip(this.size());
      pos = this.pos;
      i++;
    }
    this.pos = pos;
  }

  string(): string {
    const length = this.size();
    const at = this.need(length);
    this.pos += length;
    return this.decoder.decode(this.head.subarray(at, at + length));
  }

  /** One value of a fixed-size type (see _FIXED_SIZE). */
  fixed(type: number): unknown {
    const size = _FIXED_SIZE[type]!; // _value calls this only for a type _FIXED_SIZE holds
    const at = this.need(size);
    this.pos += size;
    const v = this.view;
    switch (type) {
      case 0:
        return v.getUint8(at);
      case 1:
        return v.getInt8(at);
      case 2:
        return v.getUint16(at, this.le);
      case 3:
        return v.getInt16(at, this.le);
      case 4:
        return v.getUint32(at, this.le);
      case 5:
        return v.getInt32(at, this.le);
      case 6:
        return v.getFloat32(at, this.le);
      case 7:
        return v.getUint8(at) !== 0;
      case 10:
        return v.getBigUint64(at, this.le);
      case 11:
        return v.getBigInt64(at, this.le);
      default:
        return v.getFloat64(at, this.le);
    }
  }
}

/** One metadata value of GGUF type `type`: read, or stepped over when `skip` (then undefined). */
function _value(c: _Cursor, type: number, key: string, label: string, skip: boolean): unknown {
  const size = _FIXED_SIZE[type];
  if (size !== undefined) {
    if (!skip) return c.fixed(type);
    c.skip(size);
    return undefined;
  }
  if (type === 8) {
    if (!skip) return c.string();
    c.skip(c.size());
    return undefined;
  }
  if (type !== 9) return _invalid(label, `malformed header: metadata key ${JSON.stringify(key)}: unknown value type ${type}`);
  const itemType = c.u32();
  const count = c.size();
  const itemSize = _FIXED_SIZE[itemType];
  if (itemSize === undefined && itemType !== 8 && itemType !== 9) _invalid(label, `malformed header: metadata key ${JSON.stringify(key)}: unknown array item type ${itemType}`);
  if (skip && itemSize !== undefined) {
    c.skip(count * itemSize); // read the length, seek past
    return undefined;
  }
  if (skip && itemType === 8) {
    c.skipStrings(count);
    return undefined;
  }
  if (skip) {
    for (let i = 0; i < count; i++) _value(c, itemType, key, label, true); // nested arrays
    return undefined;
  }
  const items: unknown[] = [];
  for (let i = 0; i < count; i++) items.push(_value(c, itemType, key, label, false));
  return items;
}

/** Parses a header from the file's first head.length bytes; throws _MORE when it runs past them. */
function _parseHead(head: Uint8Array, available: number, label: string, version: number, littleEndian: boolean, options: GgufReadOptions): GgufHeader {
  const c = new _Cursor(head, available, label, littleEndian, version > 1);
  c.skip(8);
  const tensorCount = c.size();
  const keyCount = c.size();
  const metadata: Record<string, unknown> = {};
  let arrayLengths: Record<string, number> | undefined;
  for (let k = 0; k < keyCount; k++) {
    const key = c.string();
    const type = c.u32();
    if (type === 9 && options.skipArray?.(key) === true) {
      const at = c.pos;
      c.u32();
      const count = c.size();
      c.pos = at;
      _value(c, type, key, label, true);
      Object.defineProperty((arrayLengths ??= {}), key, { value: count, enumerable: true, writable: true, configurable: true });
      continue;
    }
    // defineProperty: a key such as "__proto__" is an ordinary key.
    Object.defineProperty(metadata, key, { value: _value(c, type, key, label, false), enumerable: true, writable: true, configurable: true });
  }
  const tensorInfos: GgufTensorInfo[] = [];
  for (let t = 0; t < tensorCount; t++) {
    const name = c.string();
    const dims = c.u32();
    if (dims > _MAX_DIMS) _invalid(label, `malformed header: tensor ${JSON.stringify(name)} declares ${dims} dimensions (at most ${_MAX_DIMS})`);
    const shape: Array<number | bigint> = [];
    for (let d = 0; d < dims; d++) {
      if (version === 1) shape.push(c.u32());
      else {
        const n = c.u64();
        shape.push(n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);
      }
    }
    const dtype = c.u32();
    c.skip(8); // the data offset: the estimate never reads the weights
    tensorInfos.push({ name, shape, dtype });
  }
  const header: GgufHeader = { metadata, tensorInfos };
  if (arrayLengths !== undefined) header.arrayLengths = arrayLengths;
  return header;
}

async function _parse(source: _ByteSource, options: GgufReadOptions, first = _WINDOW): Promise<GgufHeader> {
  let head = await source.read(0, Math.min(source.available, first));
  const { version, littleEndian } = _checkPreamble(head.subarray(0, 24), source.label);
  // The header's size is known only once read: parse what was read, and read twice as much when it runs past.
  for (;;) {
    try {
      return _parseHead(head, source.available, source.label, version, littleEndian, options);
    } catch (error) {
      if (error !== _MORE) throw error;
      const more = await source.read(0, Math.min(source.available, 2 * head.length));
      if (more.length <= head.length) _invalid(source.label, `truncated header: it runs past the ${head.length} bytes that could be read`);
      head = more;
    }
  }
}

/** Parses the GGUF header held in `bytes` (the whole file or just its head). */
export function readGgufHeaderFromBytes(bytes: Uint8Array | ArrayBuffer, label = 'source', options: GgufReadOptions = {}): Promise<GgufHeader> {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // The whole buffer at once (a view, not a copy): the parse never needs a second read.
  return _parse({ label, available: data.length, read: async (start, end) => data.subarray(Math.min(start, data.length), Math.min(end, data.length)) }, options, data.length);
}

/** Parses the GGUF header of a local file (Node only), reading its head in ranges, never the weights. */
export async function readGgufHeaderFromFile(path: string, options: GgufReadOptions = {}): Promise<GgufHeader> {
  if (typeof process === 'undefined' || process.versions?.node === undefined) {
    throw AllocationError.at('INVALID_ARGUMENT', 'source', `a file path (${JSON.stringify(path)}) can only be read in Node; pass the file's bytes (Uint8Array or ArrayBuffer) instead`);
  }
  const { open } = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw AllocationError.at('INVALID_ARGUMENT', 'source', `cannot open ${JSON.stringify(path)} (${code})`, { cause: error });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw AllocationError.at('INVALID_ARGUMENT', 'source', `${JSON.stringify(path)} is not a regular file`);
    const size = stat.size;
    return await _parse(
      {
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
      },
      options,
    );
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
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER))
    throw new AllocationError('INVALID_GGUF', `tensor ${JSON.stringify(info.name)}: declared shape [${info.shape.join(', ')}] is more bytes than can be represented exactly`, { field: 'source' });
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
    const name = parts[0]!; // split returns at least one part
    let layer = layers.get(name);
    if (layer === undefined) {
      layer = new Map();
      layers.set(name, layer);
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
