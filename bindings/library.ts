// Loads libnvidia-ml through koffi and binds each NVML symbol on its own.

import { isMissingModule } from '../src/shared/optional.js';
import { NVML, NvmlError } from './errors.js';

/** Where NVML is looked for after the `library` option and $GPUALLOC_NVML_LIBRARY: the soname, then distro paths. */
export const NVML_SEARCH_PATHS: readonly string[] = [
  'libnvidia-ml.so.1',
  '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1',
  '/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1',
  '/usr/lib64/libnvidia-ml.so.1',
  '/usr/lib/libnvidia-ml.so.1',
  '/usr/local/nvidia/lib64/libnvidia-ml.so.1',
  '/usr/lib/wsl/lib/libnvidia-ml.so.1',
  '/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1',
];

/** Most NVLinks per GPU over NVML versions (36 in NVML 13.3); indices past a GPU's count answer INVALID_ARGUMENT. */
export const NVLINK_MAX_LINKS = 36;

/** An opaque nvmlDevice_t (koffi 3 hands pointers over as bigint). */
export type DeviceHandle = unknown;

/** nvmlPciInfo_t as koffi decodes it. */
export type PciInfo = { busIdLegacy: string; domain: number; bus: number; device: number; pciDeviceId: number; pciSubSystemId: number; busId: string };

/** nvmlMemory_t as koffi decodes it (bytes). */
export type MemoryInfo = { total: number | bigint; free: number | bigint; used: number | bigint };

type Fn = (...args: unknown[]) => number;

/** The bound symbols of one library; every optional one is undefined where the library lacks it. */
export type NvmlApi = {
  path: string;
  init: Fn;
  initName: string;
  shutdown: Fn;
  getCount: Fn;
  getCountName: string;
  getHandleByIndex: Fn;
  getHandleByIndexName: string;
  errorString?: (rc: number) => string;
  getUUID?: Fn;
  getName?: Fn;
  getMinorNumber?: Fn;
  getMemoryInfo?: Fn;
  getPciInfo?: Fn;
  getPciInfoName?: string;
  getNumaNodeId?: Fn;
  getTopologyCommonAncestor?: Fn;
  getNvLinkState?: Fn;
  getNvLinkRemotePciInfo?: Fn;
  getNvLinkRemoteDeviceType?: Fn;
  getMigMode?: Fn;
  getMaxMigDeviceCount?: Fn;
  getMigDeviceHandleByIndex?: Fn;
  getComputeRunningProcesses?: Fn;
  /** Bytes per nvmlProcessInfo_t of the bound version (24 for v2/v3, 16 for v1). */
  processInfoSize: number;
  /** Symbols the library lacks (optional ones only; a missing required one throws). */
  missing: string[];
};

type Koffi = typeof import('koffi');

let koffiModule: Koffi | undefined;
const apis = new Map<string, NvmlApi>();

/** Imports koffi on first use, so the package loads where the native module is absent. */
async function loadKoffi(): Promise<Koffi> {
  if (koffiModule !== undefined) return koffiModule;
  try {
    const mod = (await import('koffi')) as Koffi & { default?: Koffi };
    koffiModule = (mod.default ?? mod) as Koffi;
  } catch (cause) {
    // koffi is an optional peer dependency: say which package to install when it is absent.
    if (isMissingModule(cause, 'koffi'))
      throw new NvmlError(NVML.LIBRARY_NOT_FOUND, 'import(koffi)', 'NVML discovery needs the optional package koffi, which is not installed: run `npm install koffi`', { cause });
    throw new NvmlError(NVML.LIBRARY_NOT_FOUND, 'import(koffi)', `NVML discovery needs the koffi FFI module, which could not be loaded: ${(cause as Error).message}`, { cause });
  }
  return koffiModule;
}

/** A named koffi type, declared once per process (koffi's type names are process-global). */
function declared<T>(koffi: Koffi, name: string, declare: () => T): T {
  try {
    return koffi.type(name) as T;
  } catch {
    return declare();
  }
}

function types(koffi: Koffi) {
  const pci = declared(koffi, 'gpualloc_nvmlPciInfo_t', () =>
    koffi.struct('gpualloc_nvmlPciInfo_t', {
      busIdLegacy: koffi.array('char', 16, 'String'),
      domain: 'uint',
      bus: 'uint',
      device: 'uint',
      pciDeviceId: 'uint',
      pciSubSystemId: 'uint',
      busId: koffi.array('char', 32, 'String'),
    }),
  );
  const memory = declared(koffi, 'gpualloc_nvmlMemory_t', () => koffi.struct('gpualloc_nvmlMemory_t', { total: 'uint64', free: 'uint64', used: 'uint64' }));
  const device = declared(koffi, 'gpualloc_nvmlDevice_t', () => koffi.pointer('gpualloc_nvmlDevice_t', koffi.opaque()));
  if (koffi.sizeof(pci) !== 68 || koffi.sizeof(memory) !== 24)
    throw new NvmlError(NVML.UNKNOWN, 'koffi.struct', `unexpected NVML struct sizes (nvmlPciInfo_t ${koffi.sizeof(pci)}, nvmlMemory_t ${koffi.sizeof(memory)}; expected 68, 24)`);
  return { pci, memory, device };
}

function message(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * The paths loadNvml tries, in order, without repeats: the `library` option, then
 * $GPUALLOC_NVML_LIBRARY, then the soname, then the distro paths. Without `fallback`, only `library`,
 * or $GPUALLOC_NVML_LIBRARY where no library is given. An empty path counts as not given.
 */
export function nvmlCandidates(library: string | undefined, env: Record<string, string | undefined>, fallback = true): string[] {
  const given = (path: string | undefined): path is string => path !== undefined && path !== '';
  const named = fallback ? [library, env.GPUALLOC_NVML_LIBRARY, ...NVML_SEARCH_PATHS] : [given(library) ? library : env.GPUALLOC_NVML_LIBRARY];
  const candidates: string[] = [];
  for (const c of named) if (given(c) && !candidates.includes(c)) candidates.push(c);
  return candidates;
}

/**
 * Loads NVML from the first of nvmlCandidates that loads; where none does, the error lists what was
 * tried.
 */
export async function loadNvml(library: string | undefined, env: Record<string, string | undefined>, fallback = true): Promise<NvmlApi> {
  const koffi = await loadKoffi();
  const candidates = nvmlCandidates(library, env, fallback);
  const tried: string[] = [];
  for (const path of candidates) {
    const cached = apis.get(path);
    if (cached !== undefined) return cached;
    let lib: ReturnType<Koffi['load']>;
    try {
      lib = koffi.load(path);
    } catch (cause) {
      // Only a reason other than "not there" (wrong architecture, missing dependency) is worth printing.
      const reason = message(cause).replace(/^Failed to load shared library: /, '');
      tried.push(/No such file or directory/.test(reason) ? path : `${path} (${reason})`);
      continue;
    }
    const api = bind(koffi, lib, path);
    apis.set(path, api);
    return api;
  }
  if (!fallback) {
    // Only the named library was tried: saying the soname failed, or pointing at --library, would mislead.
    const what = tried.length === 0 ? 'no library was named (fallback off)' : `${tried.join(', ')} could not be loaded, and nothing else was tried (fallback off)`;
    throw new NvmlError(NVML.LIBRARY_NOT_FOUND, 'dlopen', `NVML library not found: ${what}. Tried: ${tried.length === 0 ? 'nothing' : tried.join(', ')}.`);
  }
  throw new NvmlError(
    NVML.LIBRARY_NOT_FOUND,
    'dlopen',
    `NVML library not found: libnvidia-ml.so.1 could not be loaded (is the NVIDIA driver installed?). Tried: ${tried.join(', ')}. Install the NVIDIA driver, or set GPUALLOC_NVML_LIBRARY (or --library) to the library's path.`,
  );
}

function bind(koffi: Koffi, lib: ReturnType<Koffi['load']>, path: string): NvmlApi {
  const t = types(koffi);
  const missing: string[] = [];
  const fn = (name: string, result: string, args: unknown[]): Fn | undefined => {
    try {
      return lib.func(name, result, args as never) as Fn;
    } catch {
      missing.push(name);
      return undefined;
    }
  };
  // The first name the library has, among newer-to-older versions of one call.
  const first = (names: readonly [string, ...string[]], result: string, args: unknown[]): { f?: Fn; name?: string } => {
    for (const name of names) {
      try {
        return { f: lib.func(name, result, args as never) as Fn, name };
      } catch {
        // try the next older version
      }
    }
    missing.push(names[0]);
    return {};
  };
  const required = (names: readonly [string, ...string[]], result: string, args: unknown[]): { f: Fn; name: string } => {
    const r = first(names, result, args);
    if (r.f === undefined || r.name === undefined) throw new NvmlError(NVML.FUNCTION_NOT_FOUND, names[0], `${path} is not a usable NVML library: it has no ${names.join(' or ')}`);
    missing.pop();
    return { f: r.f, name: r.name };
  };
  const dev = t.device;
  const outUint = koffi.out(koffi.pointer('uint'));
  const outInt = koffi.out(koffi.pointer('int'));
  const outDev = koffi.out(koffi.pointer(dev));

  const init = required(['nvmlInit_v2', 'nvmlInit'], 'int', []);
  const shutdown = required(['nvmlShutdown'], 'int', []);
  const count = required(['nvmlDeviceGetCount_v2', 'nvmlDeviceGetCount'], 'int', [outUint]);
  const handle = required(['nvmlDeviceGetHandleByIndex_v2', 'nvmlDeviceGetHandleByIndex'], 'int', ['uint', outDev]);
  const errorString = fn('nvmlErrorString', 'const char *', ['int']);
  const pci = first(['nvmlDeviceGetPciInfo_v3', 'nvmlDeviceGetPciInfo_v2'], 'int', [dev, koffi.out(koffi.pointer(t.pci))]);
  const remotePci = first(['nvmlDeviceGetNvLinkRemotePciInfo_v2', 'nvmlDeviceGetNvLinkRemotePciInfo'], 'int', [dev, 'uint', koffi.out(koffi.pointer(t.pci))]);
  const processes = first(['nvmlDeviceGetComputeRunningProcesses_v3', 'nvmlDeviceGetComputeRunningProcesses_v2', 'nvmlDeviceGetComputeRunningProcesses'], 'int', [
    dev,
    koffi.inout(koffi.pointer('uint')),
    'void *',
  ]);
  return {
    path,
    init: init.f,
    initName: init.name,
    shutdown: shutdown.f,
    getCount: count.f,
    getCountName: count.name,
    getHandleByIndex: handle.f,
    getHandleByIndexName: handle.name,
    errorString: errorString === undefined ? undefined : (rc: number) => String(errorString(rc) ?? ''),
    getUUID: fn('nvmlDeviceGetUUID', 'int', [dev, '_Out_ char *', 'uint']),
    getName: fn('nvmlDeviceGetName', 'int', [dev, '_Out_ char *', 'uint']),
    getMinorNumber: fn('nvmlDeviceGetMinorNumber', 'int', [dev, outUint]),
    getMemoryInfo: fn('nvmlDeviceGetMemoryInfo', 'int', [dev, koffi.out(koffi.pointer(t.memory))]),
    getPciInfo: pci.f,
    getPciInfoName: pci.name,
    getNumaNodeId: fn('nvmlDeviceGetNumaNodeId', 'int', [dev, outUint]),
    getTopologyCommonAncestor: fn('nvmlDeviceGetTopologyCommonAncestor', 'int', [dev, dev, outInt]),
    getNvLinkState: fn('nvmlDeviceGetNvLinkState', 'int', [dev, 'uint', outInt]),
    getNvLinkRemotePciInfo: remotePci.f,
    getNvLinkRemoteDeviceType: fn('nvmlDeviceGetNvLinkRemoteDeviceType', 'int', [dev, 'uint', outInt]),
    getMigMode: fn('nvmlDeviceGetMigMode', 'int', [dev, outUint, outUint]),
    getMaxMigDeviceCount: fn('nvmlDeviceGetMaxMigDeviceCount', 'int', [dev, outUint]),
    getMigDeviceHandleByIndex: fn('nvmlDeviceGetMigDeviceHandleByIndex', 'int', [dev, 'uint', outDev]),
    getComputeRunningProcesses: processes.f,
    processInfoSize: processes.name === 'nvmlDeviceGetComputeRunningProcesses' ? 16 : 24,
    missing,
  };
}
