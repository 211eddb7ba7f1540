// Reads one host's GPUs and topology from a bound NVML library into an Inventory.
import { type GpuProcess, INVENTORY_VERSION, type Inventory, type InventoryGpu, type MigDevice } from '../src/hardware/inventory.js';
import { type Link, MAX_NVLINKS, NVML_TOPOLOGY_LEVEL } from '../src/hardware/topology.js';
import { NVML, NvmlError, nvmlName } from './errors.js';
import { type DeviceHandle, type MemoryInfo, NVLINK_MAX_LINKS, type NvmlApi, type PciInfo } from './library.js';

/** nvmlIntNvLinkDeviceType_t values. */
const NVLINK_REMOTE = { GPU: 0, SWITCH: 2 } as const;

/** Buffer size NVML documents for UUIDs and names. */
const STRING_BUFFER = 96;

/** Thrown inside one GPU's walk when it answers GPU_IS_LOST; caught per GPU. */
class GpuLost extends Error {}

/** Host facts that do not come from NVML (filled by the caller so this file stays free of node:os). */
export type HostFacts = { host?: string; cpus?: string[]; memory?: number };

/** "00000000:07:00.0" → "0000:07:00.0": lower case, one leading "0000" stripped from the 8-digit domain form. */
export function normalizeBusId(busId: string): string {
  const lower = busId.trim().toLowerCase();
  return /^[0-9a-f]{8}:/.test(lower) && lower.startsWith('0000') ? lower.slice(4) : lower;
}

/** The MIG profile in a MIG device's name: "NVIDIA A100-SXM4-40GB MIG 1g.5gb" → "1g.5gb". */
export function migProfile(name: string): string {
  const m = /(?:^|\s)((?:\d+c\.)?\d+g\.\d+gb(?:\+[a-z0-9]+)*)\s*$/i.exec(name);
  if (m !== null) return m[1]!; // group 1 is not optional
  const after = /\bMIG\s+(\S+)\s*$/.exec(name);
  return after !== null ? after[1]! : name.trim();
}

function toNumber(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

function cString(buf: Buffer): string {
  const end = buf.indexOf(0);
  return buf.toString('utf8', 0, end < 0 ? buf.length : end);
}

/** Codes that mean "this field is not available here": the field is left out. */
function absent(rc: number): boolean {
  return rc === NVML.NOT_SUPPORTED || rc === NVML.NO_PERMISSION || rc === NVML.INVALID_ARGUMENT || rc === NVML.NOT_FOUND || rc === NVML.FUNCTION_NOT_FOUND;
}

/** Walks every GPU, then every pair. `nvmlShutdown` runs whatever happens after a successful init. */
export function readInventory(api: NvmlApi, host: HostFacts): Inventory {
  const fail = (rc: number, fn: string, what: string): never => {
    const text = api.errorString?.(rc);
    throw new NvmlError(rc, fn, `${fn} failed${what ? ` (${what})` : ''}: ${nvmlName(rc)}${text ? ` (${text})` : ''}`);
  };
  const initRc = api.init();
  if (initRc !== NVML.SUCCESS) {
    if (initRc === NVML.DRIVER_NOT_LOADED) {
      throw new NvmlError(
        initRc,
        api.initName,
        `NVIDIA driver not loaded: ${api.path} was found, but ${api.initName} answered NVML_ERROR_DRIVER_NOT_LOADED (is the nvidia kernel module loaded? try \`nvidia-smi\`)`,
      );
    }
    fail(initRc, api.initName, `initialising NVML from ${api.path}`);
  }
  try {
    return walk(api, host, fail);
  } finally {
    api.shutdown();
  }
}

type Fail = (rc: number, fn: string, what: string) => never;

type GpuState = { gpu: InventoryGpu; handle?: DeviceHandle; busId?: string; links?: Map<string, number>; switchLinks: number };

function walk(api: NvmlApi, host: HostFacts, fail: Fail): Inventory {
  const countOut: [number] = [0];
  const rc = api.getCount(countOut);
  if (rc !== NVML.SUCCESS) fail(rc, api.getCountName, 'counting GPUs');
  const count = countOut[0];
  const states: GpuState[] = [];
  for (let index = 0; index < count; index++) states.push(readGpu(api, index, fail));
  for (const s of states) if (s.gpu.lost !== true) readNvLinks(api, s);
  const links = readLinks(api, states, fail);
  return {
    version: INVENTORY_VERSION,
    ...(host.host === undefined ? {} : { host: host.host }),
    source: 'nvml',
    gpus: states.map((s) => s.gpu),
    links,
    ...(host.cpus === undefined ? {} : { cpus: host.cpus }),
    ...(host.memory === undefined ? {} : { memory: host.memory }),
  };
}

function readGpu(api: NvmlApi, index: number, fail: Fail): GpuState {
  const gpu: InventoryGpu = { index, id: `cuda${index}`, memoryTotal: 0 };
  const state: GpuState = { gpu, switchLinks: 0 };
  const out = [null as unknown];
  const rc = api.getHandleByIndex(index, out);
  if (rc === NVML.GPU_IS_LOST) {
    gpu.lost = true;
    return state;
  }
  if (rc !== NVML.SUCCESS) fail(rc, api.getHandleByIndexName, `GPU ${index}`);
  const handle = out[0];
  state.handle = handle;
  // Answers a per-GPU call: true on success, false where the field is not available.
  const check = (code: number, fn: string, required = false): boolean => {
    if (code === NVML.SUCCESS) return true;
    if (code === NVML.GPU_IS_LOST) throw new GpuLost();
    if (!required && absent(code)) return false;
    return fail(code, fn, `GPU ${index}`);
  };
  try {
    const uuid = readString(api.getUUID, handle);
    if (uuid !== undefined && check(uuid.rc, 'nvmlDeviceGetUUID')) gpu.uuid = uuid.value;
    const name = readString(api.getName, handle);
    if (name !== undefined && check(name.rc, 'nvmlDeviceGetName')) gpu.name = name.value;
    if (api.getMemoryInfo !== undefined) {
      const mem: Partial<MemoryInfo> = {};
      if (check(api.getMemoryInfo(handle, mem), 'nvmlDeviceGetMemoryInfo', true)) {
        gpu.memoryTotal = toNumber(mem.total ?? 0);
        gpu.memoryUsed = toNumber(mem.used ?? 0);
      }
    }
    if (api.getPciInfo !== undefined) {
      const pci: Partial<PciInfo> = {};
      if (check(api.getPciInfo(handle, pci), api.getPciInfoName ?? 'nvmlDeviceGetPciInfo_v3') && pci.busId) {
        state.busId = normalizeBusId(pci.busId);
        gpu.pciBusId = state.busId;
      }
    }
    if (api.getNumaNodeId !== undefined) {
      const node = [0];
      if (check(api.getNumaNodeId(handle, node), 'nvmlDeviceGetNumaNodeId')) gpu.numaNode = node[0];
    }
    if (api.getMinorNumber !== undefined) {
      const minor = [0];
      if (check(api.getMinorNumber(handle, minor), 'nvmlDeviceGetMinorNumber')) gpu.minorNumber = minor[0];
    }
    const mig = readMig(api, handle, check);
    if (mig !== undefined) gpu.mig = mig;
    const processes = readProcesses(api, handle, check);
    if (processes !== undefined) gpu.processes = processes;
  } catch (error) {
    if (!(error instanceof GpuLost)) throw error;
    gpu.lost = true;
    state.handle = undefined;
  }
  return state;
}

function readString(f: ((...args: unknown[]) => number) | undefined, handle: DeviceHandle): { rc: number; value: string } | undefined {
  if (f === undefined) return undefined;
  const buf = Buffer.alloc(STRING_BUFFER);
  const rc = f(handle, buf, STRING_BUFFER);
  return { rc, value: rc === NVML.SUCCESS ? cString(buf) : '' };
}

type Check = (code: number, fn: string, required?: boolean) => boolean;

/** MIG devices when MIG is enabled (an empty list when enabled with none); undefined when not MIG. */
function readMig(api: NvmlApi, handle: DeviceHandle, check: Check): MigDevice[] | undefined {
  if (api.getMigMode === undefined) return undefined;
  const current = [0];
  const pending = [0];
  if (!check(api.getMigMode(handle, current, pending), 'nvmlDeviceGetMigMode') || current[0] !== 1) return undefined;
  const devices: MigDevice[] = [];
  if (api.getMaxMigDeviceCount === undefined || api.getMigDeviceHandleByIndex === undefined) return devices;
  const max: [number] = [0];
  if (!check(api.getMaxMigDeviceCount(handle, max), 'nvmlDeviceGetMaxMigDeviceCount')) return devices;
  for (let i = 0; i < max[0]; i++) {
    const out = [null as unknown];
    if (!check(api.getMigDeviceHandleByIndex(handle, i, out), 'nvmlDeviceGetMigDeviceHandleByIndex')) continue;
    const mig = out[0];
    const uuid = readString(api.getUUID, mig);
    const name = readString(api.getName, mig);
    const mem: Partial<MemoryInfo> = {};
    const memRc = api.getMemoryInfo?.(mig, mem) ?? NVML.FUNCTION_NOT_FOUND;
    const device: MigDevice = {
      uuid: uuid !== undefined && check(uuid.rc, 'nvmlDeviceGetUUID') ? uuid.value : '',
      profile: name !== undefined && check(name.rc, 'nvmlDeviceGetName') ? migProfile(name.value) : '',
      memoryTotal: check(memRc, 'nvmlDeviceGetMemoryInfo') ? toNumber(mem.total ?? 0) : 0,
    };
    devices.push(device);
  }
  return devices;
}

/** Running compute processes: ask for the count first (INSUFFICIENT_SIZE says it), then read them. */
function readProcesses(api: NvmlApi, handle: DeviceHandle, check: Check): GpuProcess[] | undefined {
  const f = api.getComputeRunningProcesses;
  if (f === undefined) return undefined;
  const fn = 'nvmlDeviceGetComputeRunningProcesses';
  const size = api.processInfoSize;
  for (let attempt = 0; attempt < 4; attempt++) {
    const count: [number] = [0];
    let rc = f(handle, count, null);
    if (rc === NVML.SUCCESS) return [];
    if (rc !== NVML.INSUFFICIENT_SIZE) return check(rc, fn) ? [] : undefined;
    // Room for a few more in case processes start between the two calls.
    const room = count[0] + 4;
    const buf = Buffer.alloc(room * size);
    count[0] = room;
    rc = f(handle, count, buf);
    if (rc === NVML.INSUFFICIENT_SIZE) continue;
    if (!check(rc, fn)) return undefined;
    const processes: GpuProcess[] = [];
    for (let i = 0; i < Math.min(count[0], room); i++) {
      processes.push({ pid: buf.readUInt32LE(i * size), usedMemory: Number(buf.readBigUInt64LE(i * size + 8)) });
    }
    processes.sort((a, b) => a.pid - b.pid);
    return processes;
  }
  return undefined;
}

/** Counts one GPU's active NVLinks by remote bus ID, and those that end at an NVSwitch. */
function readNvLinks(api: NvmlApi, s: GpuState): void {
  if (api.getNvLinkState === undefined || api.getNvLinkRemotePciInfo === undefined || s.handle === undefined) return;
  const links = new Map<string, number>();
  try {
    for (let link = 0; link < NVLINK_MAX_LINKS; link++) {
      const active = [0];
      const rc = api.getNvLinkState(s.handle, link, active);
      if (rc === NVML.GPU_IS_LOST) throw new GpuLost();
      if (rc !== NVML.SUCCESS || active[0] !== 1) continue;
      if (api.getNvLinkRemoteDeviceType !== undefined) {
        const type = [0];
        const trc = api.getNvLinkRemoteDeviceType(s.handle, link, type);
        if (trc === NVML.GPU_IS_LOST) throw new GpuLost();
        if (trc === NVML.SUCCESS && type[0] === NVLINK_REMOTE.SWITCH) {
          s.switchLinks++;
          continue;
        }
      }
      const pci: Partial<PciInfo> = {};
      const prc = api.getNvLinkRemotePciInfo(s.handle, link, pci);
      if (prc === NVML.GPU_IS_LOST) throw new GpuLost();
      if (prc !== NVML.SUCCESS || !pci.busId) continue;
      const bus = normalizeBusId(pci.busId);
      links.set(bus, (links.get(bus) ?? 0) + 1);
    }
  } catch (error) {
    if (!(error instanceof GpuLost)) throw error;
    s.gpu.lost = true;
    s.handle = undefined;
    return;
  }
  s.links = links;
}

/** One link per pair of reachable GPUs: PCIe level from the common ancestor, NVLink count as NVML.md describes. */
function readLinks(api: NvmlApi, states: GpuState[], fail: Fail): Link[] {
  const links: Link[] = [];
  for (let i = 0; i < states.length; i++) {
    for (let j = i + 1; j < states.length; j++) {
      const a = states[i]!; // i < j < states.length
      const b = states[j]!;
      if (a.handle === undefined || b.handle === undefined) continue;
      const link: Link = { a: a.gpu.index, b: b.gpu.index };
      if (api.getTopologyCommonAncestor !== undefined) {
        const level: [number] = [0];
        const rc = api.getTopologyCommonAncestor(a.handle, b.handle, level);
        if (rc === NVML.GPU_IS_LOST) continue;
        if (rc === NVML.SUCCESS) {
          const pcie = NVML_TOPOLOGY_LEVEL[level[0]];
          if (pcie !== undefined) link.pcie = pcie;
        } else if (!absent(rc)) fail(rc, 'nvmlDeviceGetTopologyCommonAncestor', `GPUs ${a.gpu.index} and ${b.gpu.index}`);
      }
      const direct = Math.max(b.busId === undefined ? 0 : (a.links?.get(b.busId) ?? 0), a.busId === undefined ? 0 : (b.links?.get(a.busId) ?? 0));
      const viaSwitch = a.switchLinks > 0 && b.switchLinks > 0 ? Math.min(a.switchLinks, b.switchLinks) : 0;
      const nvlink = Math.min(MAX_NVLINKS, direct + viaSwitch);
      if (nvlink > 0) link.nvlink = nvlink;
      if (link.pcie !== undefined || link.nvlink !== undefined) links.push(link);
    }
  }
  return links;
}
