// Loading the WebAssembly core and moving flat arrays in and out of its memory.
import { instantiateSync } from '@assemblyscript/loader';
import { AllocationError } from '../shared/errors.js';
import { describeValue } from '../shared/validate.js';

/**
 * A compiled WebAssembly.Module, typed without the DOM library: a Node project compiling against
 * lib ES2022 (no WebAssembly declarations) type-checks this package's declarations.
 */
export interface CompiledModule {
  readonly [Symbol.toStringTag]?: string;
}

/** WebAssembly.Memory, typed without the DOM library. */
export interface CoreMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}

/** Wasm bytes. */
export type WasmBytes = ArrayBuffer | ArrayBufferView;

/** The raw exports of build/release.wasm (see assembly/index.ts). Kernel modules cast to their own signatures. */
export type CoreExports = {
  memory: CoreMemory;
  reserve(bytes: number): number;
  reservedBytes(): number;
  debugTrap(kind: number): number;
  loadPairScores(ptr: number, n: number): number;
  [kernel: string]: unknown;
};

/** Which build of the core to load. */
export type CoreBuild = 'release' | 'debug';

const compiled = new Map<CoreBuild, Promise<WebAssembly.Module>>();

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

function wasmUrl(build: CoreBuild): URL {
  // The same relative path holds from src/wasm/ (sources, Vite) and from dist/src/wasm/ (dist/build/ holds a copy).
  if (build === 'release') return new URL('../../build/release.wasm', import.meta.url);
  // Resolved against a variable, not import.meta.url itself, so bundlers (Vite) do not ship the
  // debug build (several times the release's size) with every page.
  const here = import.meta.url;
  return new URL('../../build/debug.wasm', here);
}

async function compile(build: CoreBuild, source?: BufferSource | URL | string): Promise<WebAssembly.Module> {
  if (source !== undefined && typeof source !== 'string' && !(source instanceof URL)) return WebAssembly.compile(source);
  const url = source === undefined ? wasmUrl(build) : source instanceof URL ? source : new URL(source, import.meta.url);
  // process.getBuiltinModule (Node >= 20.16), not import(): a dynamic import makes bundlers ship a
  // module-preload helper with every page. A runtime without it fetches the file: URL (Deno can).
  const fs = isNode() && url.protocol === 'file:' ? process.getBuiltinModule?.('node:fs/promises') : undefined;
  if (fs !== undefined) {
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(url);
    } catch (cause) {
      throw new AllocationError('INTERNAL', `cannot read the WebAssembly core at ${url.pathname}: run \`npm run build:wasm\` first`, { cause });
    }
    return WebAssembly.compile(bytes as unknown as BufferSource);
  }
  const response = await fetch(url);
  if (!response.ok) throw new AllocationError('INTERNAL', `cannot fetch the WebAssembly core from ${url.href}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Compiles the core once per process (per build); later engines reuse the compiled module. */
export function compiledCore(build: CoreBuild = 'release', source?: WasmBytes | URL | string): Promise<CompiledModule> {
  if (source !== undefined) return compile(build, source as BufferSource | URL | string);
  let p = compiled.get(build);
  if (p === undefined) {
    p = compile(build);
    compiled.set(build, p);
    p.catch(() => compiled.delete(build));
  }
  return p;
}

/**
 * One instance of the core. Calls go through `call` (or, on a kernel's hot path, a try/catch that
 * throws `trapped(error)`), which turns a trap into AllocationError('INTERNAL') and re-instantiates
 * the core so the next call starts clean.
 */
export class WasmCore {
  /** Current exports; replaced when the core is re-instantiated after a trap. */
  exports: CoreExports;
  /** How many times the core was re-instantiated after a trap. */
  restarts = 0;
  /** Bumped on every (re-)instantiation: kernels that cache state in the core compare it. */
  generation = 0;
  private readonly module: WebAssembly.Module;
  private heap: Int32Array = new Int32Array(0);
  private heapF: Float64Array = new Float64Array(0);
  private heapGeneration = -1;
  private arenaBase = 0;
  private arenaBytes = -1;
  private arenaGeneration = -1;
  private pairs: Int32Array | null = null;
  private pairsGeneration = -1;

  constructor(module: CompiledModule) {
    this.module = module as WebAssembly.Module;
    this.exports = this.instantiate();
  }

  private instantiate(): CoreExports {
    // AssemblyScript's loader instantiates the core and provides its one import, `env.abort` (an
    // assertion or allocation failure, worded with its message and place read from the core's memory).
    const result = instantiateSync<CoreExports>(this.module, {});
    this.generation++;
    // The instance's own exports, not the loader's: the loader wraps each function as
    // `(...args) => { setArgumentsLength(args.length); return fn(...args) }` for optional parameters,
    // which the core does not use (it exports no __setArgumentsLength); the wrapper would only cost an
    // array, a spread and a call per kernel call (about 0.1 µs for placementSearch).
    const exports = result.exports as unknown as Record<string, unknown>;
    return (typeof exports.__setArgumentsLength === 'function' ? exports : result.instance.exports) as unknown as CoreExports;
  }

  /** WebAssembly memory size in 64 KiB pages. */
  pages(): number {
    return this.exports.memory.buffer.byteLength >>> 16;
  }

  /**
   * Reserves scratch space for one call: `sizes` in bytes, each region 16-byte aligned; returns
   * each region's pointer (one per size: a tuple of sizes gives a tuple of pointers). Any view made
   * before this call is stale afterwards.
   */
  reserve<const S extends readonly number[]>(sizes: S): { -readonly [K in keyof S]: number } {
    let total = 0;
    const offsets: number[] = [];
    for (const s of sizes) {
      offsets.push(total);
      total += (s + 15) & ~15;
    }
    const base = this.reserveBlock(total);
    return offsets.map((o) => base + o) as { -readonly [K in keyof S]: number };
  }

  /**
   * reserve() for a caller that lays out its own regions (each rounded up to 16 bytes, as reserve
   * does): reserves `bytes` and returns the base, without an array per call.
   */
  reserveBlock(bytes: number): number {
    if (bytes > 0x7fff0000) throw new AllocationError('LIMIT_EXCEEDED', `input needs ${bytes} bytes of core memory, more than the 2 GiB the core can address`);
    // The arena only moves when a reservation outgrows it, and every reservation comes through here:
    // a block that fits the arena of this instance is its base, without a call into the core.
    if (bytes <= this.arenaBytes && this.arenaGeneration === this.generation) return this.arenaBase;
    const base = this.call(() => this.exports.reserve(bytes));
    this.arenaBase = base;
    this.arenaBytes = this.exports.reservedBytes();
    this.arenaGeneration = this.generation;
    return base;
  }

  /**
   * An Int32Array over the whole of the core's memory, made again only when the memory has grown
   * (or the core restarted) since the last call: index it with `ptr >> 2`. Stale after any call
   * into the core that may grow memory; ask again.
   */
  heap32(): Int32Array {
    this.refreshViews();
    return this.heap;
  }

  /** heap32() as a Float64Array (index it with `ptr >> 3`). */
  heapF64(): Float64Array {
    this.refreshViews();
    return this.heapF;
  }

  private refreshViews(): void {
    // Growing the memory detaches the old buffer (a view over it reads as length 0); a restart
    // brings a new memory (a new generation). Either way: new views.
    if (this.heap.length === 0 || this.heapGeneration !== this.generation) {
      const buffer = this.exports.memory.buffer;
      this.heap = new Int32Array(buffer);
      this.heapF = new Float64Array(buffer);
      this.heapGeneration = this.generation;
    }
  }

  /**
   * Makes `matrix` (n×n, row-major) the core's pair-score matrix unless it already is: every kernel
   * module loads it through here, so the last load is known without asking the core. Callers must
   * not change a matrix after passing it (topologyFor's matrices are never changed). The matrix goes
   * through the start of the scratch arena: call this before writing a call's inputs there.
   */
  ensurePairScores(matrix: Int32Array, n: number): void {
    if (matrix === this.pairs && this.pairsGeneration === this.generation) return;
    const ptr = this.reserveBlock(matrix.length * 4);
    this.heap32().set(matrix, ptr >> 2);
    this.call(() => this.exports.loadPairScores(ptr, n));
    this.pairs = matrix;
    this.pairsGeneration = this.generation;
  }

  /** A fresh Uint16Array view of `length` items at `ptr`. */
  u16(ptr: number, length: number): Uint16Array {
    return new Uint16Array(this.exports.memory.buffer, ptr, length);
  }

  /** Runs `fn` against the core; a trap becomes AllocationError('INTERNAL') and the core restarts. */
  call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw this.trapped(error);
    }
  }

  /**
   * What `call` throws for an error out of the core: an AllocationError as it is; anything else (a
   * trap) restarts the core and becomes AllocationError('INTERNAL'). For a hot path that calls an
   * export inside its own try/catch instead of through `call` (no closure per call): `throw core.trapped(error)`.
   */
  trapped(error: unknown): AllocationError {
    if (error instanceof AllocationError) return error;
    const message = error instanceof Error ? error.message : String(error);
    this.exports = this.instantiate();
    this.restarts++;
    return new AllocationError('INTERNAL', `the WebAssembly core trapped (${message}); it was re-instantiated, and the next call starts clean`, { cause: error });
  }
}

/** Compiles (once) and instantiates the core. */
export async function loadCore(options: { build?: CoreBuild; wasm?: unknown } = {}): Promise<WasmCore> {
  const source = options.wasm;
  let core: WasmCore;
  try {
    if (source instanceof WebAssembly.Module) core = new WasmCore(source);
    else {
      if (source !== undefined && typeof source !== 'string' && !(source instanceof URL) && !(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source)) {
        throw AllocationError.at(
          'INVALID_ARGUMENT',
          'options.wasm',
          `expected wasm bytes (ArrayBuffer or a typed array), a URL or a path, or a compiled WebAssembly.Module, got ${describeValue(source)}`,
        );
      }
      core = new WasmCore(await compiledCore(options.build ?? 'release', source as BufferSource | URL | string | undefined));
    }
  } catch (error) {
    if (error instanceof AllocationError) throw error;
    // Bytes that are not wasm, a module that needs other imports, a URL that cannot be read.
    throw AllocationError.at('INVALID_ARGUMENT', 'options.wasm', `not a loadable gpualloc core (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  // A module that loads but is not this core would fail every call later: say so now.
  const missing = ['memory', 'reserve', 'reservedBytes', 'debugTrap', 'naturalOrder'].filter((name) => core.exports[name] === undefined);
  if (missing.length > 0) throw AllocationError.at('INVALID_ARGUMENT', 'options.wasm', `not a gpualloc core (missing exports: ${missing.join(', ')})`);
  return core;
}
