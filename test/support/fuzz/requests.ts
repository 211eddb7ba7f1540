// Valid requests of every public entry point, small enough to run thousands of times: the seeds that
// hostile edits start from, and the "next valid call" that must still match the ts baseline.
import fc from 'fast-check';
import type { AlignedRequest } from '../../../src/devices/aligned.js';
import type { ReplicaRequest } from '../../../src/devices/replicas.js';
import type { SplitRequest } from '../../../src/devices/split.js';
import type { PcieLevel, Topology } from '../../../src/hardware/topology.js';
import type { PlacementRequest, Slot } from '../../../src/placement/index.js';

const GIB = 2 ** 30;
const PCIE: PcieLevel[] = ['INTERNAL', 'PIX', 'PXB', 'PHB', 'NODE', 'SYS'];

/** Device-like IDs, with the awkward ones a real host can have. */
export const deviceId = fc.oneof(
  fc.nat({ max: 40 }).map((k) => `cuda${k}`),
  fc.nat({ max: 9 }).map((k) => `GPU-${k}::${k % 3}`),
  fc.constantFrom('__proto__', 'constructor', 'cuda01', 'CUDA1', 'x', '', '\uD800', 'MIG-a/1'),
  fc.string({ maxLength: 6 }),
);

/** naturalSort input. */
export const sortIds = fc.array(deviceId, { maxLength: 24 });

/** A valid splitDevices request. */
export const splitRequest: fc.Arbitrary<SplitRequest> = fc
  .record({
    agents: fc.uniqueArray(
      fc.oneof(
        fc.nat({ max: 9 }).map((k) => `agent-${k}`),
        fc.constantFrom('__proto__', 'constructor'),
      ),
      { minLength: 1, maxLength: 4 },
    ),
    cuda: fc.uniqueArray(
      fc.nat({ max: 30 }).map((k) => `cuda${k}`),
      { maxLength: 10 },
    ),
    cpu: fc.uniqueArray(fc.nat({ max: 63 }).map(String), { maxLength: 10 }),
    mode: fc.constantFrom('shared' as const, 'auto-split' as const),
    mem: fc.nat({ max: 1024 }).map((g) => g * GIB),
    reserved: fc.nat({ max: 4 }).map((g) => g * GIB),
  })
  .map(({ agents, cuda, cpu, mode, mem, reserved }) => ({
    agents,
    mode,
    devices: { cuda: cuda.map((id, k) => (k % 2 === 0 ? id : { id, slots: { 'cuda.device': 1, 'cuda.mem': 80 * GIB } })), cpu },
    amounts: { mem: mem + reserved },
    reserved: { mem: reserved },
  }));

/** A valid manual-mode splitDevices request (manual entries validate deeply). */
export const manualSplitRequest: fc.Arbitrary<SplitRequest> = fc.constant({
  agents: ['a1', 'a2'],
  mode: 'manual' as const,
  devices: { cuda: ['cuda0', 'cuda1', 'cuda2'] },
  amounts: { mem: 100 },
  manual: { a1: { cuda: ['cuda0'], mem: 40 }, a2: { cuda: ['cuda2', 'cuda1'], mem: 60 } },
});

/** A valid allocateReplicas request. */
export const replicaRequest: fc.Arbitrary<ReplicaRequest> = fc
  .record({
    gpus: fc.integer({ min: 1, max: 4 }),
    replicas: fc.integer({ min: 1, max: 4 }),
    takenMask: fc.nat(),
    size: fc.nat({ max: 8 }),
    requiredCount: fc.nat({ max: 2 }),
    policy: fc.constantFrom(undefined, 'distributed' as const, 'pack' as const, 'spread' as const),
    withParents: fc.boolean(),
  })
  .map(({ gpus, replicas, takenMask, size, requiredCount, policy, withParents }) => {
    const devices: string[] = [];
    for (let g = 0; g < gpus; g++) for (let r = 0; r < replicas; r++) devices.push(`GPU-${g}::${r}`);
    const available = devices.filter((_, k) => ((takenMask >>> (k % 30)) & 1) === 0);
    const required = available.slice(0, Math.min(requiredCount, available.length, size));
    const req: ReplicaRequest = { devices, available, required, size };
    if (policy !== undefined) req.policy = policy;
    if (withParents) req.parents = Object.fromEntries(devices.map((d) => [d, `phys-${d.slice(4, 5)}`]));
    return req;
  });

/** A topology of n GPUs with random links. */
export function topologyOf(n: number): fc.Arbitrary<Topology> {
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) pairs.push([a, b]);
  return fc.array(fc.record({ keep: fc.boolean(), pcie: fc.constantFrom(undefined, ...PCIE), nvlink: fc.nat({ max: 12 }) }), { minLength: pairs.length, maxLength: pairs.length }).map((cells) => ({
    gpus: n,
    links: pairs.flatMap(([a, b], k) => {
      const c = cells[k];
      if (!c.keep) return [];
      const link: Topology['links'][number] = { a, b };
      if (c.pcie !== undefined) link.pcie = c.pcie;
      if (c.nvlink > 0) link.nvlink = c.nvlink;
      return [link];
    }),
  }));
}

/** A valid allocateAligned request (up to 10 GPUs: both policies stay exact and fast). */
export const alignedRequest: fc.Arbitrary<AlignedRequest> = fc
  .integer({ min: 1, max: 10 })
  .chain((n) =>
    fc.record({
      topology: topologyOf(n),
      available: fc.shuffledSubarray(
        Array.from({ length: n }, (_, k) => k),
        { minLength: 1 },
      ),
      size: fc.integer({ min: 1, max: n }),
      requiredCount: fc.nat({ max: 2 }),
      policy: fc.constantFrom(undefined, 'topology' as const, 'besteffort' as const),
    }),
  )
  .map(({ topology, available, size, requiredCount, policy }) => {
    const req: AlignedRequest = { topology, available, size, required: available.slice(0, Math.min(requiredCount, size)) };
    if (policy !== undefined) req.policy = policy;
    return req;
  });

/** GPUs of one node: indices 0..n-1 with 16..80 GiB each. */
function nodeGpus(n: number): fc.Arbitrary<Array<{ index: number; memoryTotal: number }>> {
  return fc.array(fc.constantFrom(16, 24, 40, 48, 80), { minLength: n, maxLength: n }).map((t) => t.map((g, index) => ({ index, memoryTotal: g * GIB })));
}

/** Slots that fit on the given GPUs (each takes at most a quarter of its smallest GPU). */
function slotsOn(gpus: Array<{ index: number; memoryTotal: number }>, prefix: string): fc.Arbitrary<Slot[]> {
  const n = gpus.length;
  return fc
    .array(
      fc.record({
        first: fc.nat({ max: n - 1 }),
        span: fc.integer({ min: 1, max: n }),
        quarterPct: fc.integer({ min: 1, max: 100 }),
        stale: fc.boolean(),
        model: fc.constantFrom('m1', 'm2', undefined),
        last: fc.option(fc.nat({ max: 1000 }), { nil: undefined }),
      }),
      { maxLength: 3 },
    )
    .map((specs) =>
      specs.map((s, k) => {
        const idx = Array.from({ length: Math.min(s.span, n - s.first) }, (_, j) => s.first + j);
        const smallest = Math.min(...idx.map((i) => gpus[i].memoryTotal));
        const slot: Slot = { id: `${prefix}s${k}`, gpus: idx, memoryPerGpu: Math.floor((smallest / 4) * (s.quarterPct / 100)) };
        if (s.model !== undefined) slot.model = s.model;
        if (s.last !== undefined) slot.lastActivity = s.last;
        if (s.stale) slot.stale = true;
        return slot;
      }),
    );
}

/** A valid planPlacement request on up to 8 GPUs. */
export const placementRequest: fc.Arbitrary<PlacementRequest> = fc
  .integer({ min: 1, max: 8 })
  .chain((n) =>
    nodeGpus(n).chain((gpus) =>
      fc.record({
        gpus: fc.constant(gpus),
        slots: slotsOn(gpus, ''),
        topology: fc.option(topologyOf(n), { nil: undefined }),
        memoryGiB: fc.integer({ min: 1, max: 400 }),
        policy: fc.constantFrom(undefined, 'spread' as const, 'pack' as const),
        model: fc.constantFrom(undefined, 'm1', 'm3'),
        limit: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        allowEviction: fc.option(fc.boolean(), { nil: undefined }),
      }),
    ),
  )
  .map(({ gpus, slots, topology, memoryGiB, policy, model, limit, allowEviction }) => {
    const req: PlacementRequest = { gpus, slots, memory: memoryGiB * GIB };
    if (topology !== undefined) req.topology = topology;
    if (policy !== undefined) req.policy = policy;
    if (model !== undefined) req.model = model;
    if (limit !== undefined) req.limit = limit;
    if (allowEviction !== undefined) req.allowEviction = allowEviction;
    return req;
  });

/** ClusterState init: 1..3 nodes of up to 4 GPUs with existing slots (slot IDs unique across nodes). */
export const clusterInit = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 })
  .chain((widths) =>
    fc.tuple(
      ...widths.map((w, k) =>
        nodeGpus(w).chain((gpus) =>
          fc.record({ id: fc.constant(k === 1 ? '__proto__' : `node-${k}`), gpus: fc.constant(gpus), slots: slotsOn(gpus, `n${k}-`), topology: fc.option(topologyOf(w), { nil: undefined }) }),
        ),
      ),
    ),
  )
  .map((nodes) => ({ nodes: nodes.map((n) => (n.topology === undefined ? { id: n.id, gpus: n.gpus, slots: n.slots } : n)) }));

/** A cluster plan request (state.plan). */
export const clusterPlanRequest = fc.record({
  memory: fc.integer({ min: 1, max: 160 }).map((g) => g * GIB),
  model: fc.constantFrom('m1', 'm2', 'm3'),
  policy: fc.constantFrom('spread' as const, 'pack' as const),
});

/** A valid validateTopology input. */
export const topologyInput = fc.integer({ min: 0, max: 8 }).chain(topologyOf);

/** Byte-size strings parseBytes accepts. */
export const byteText = fc.tuple(fc.nat({ max: 4096 }), fc.constantFrom('', 'B', 'KB', 'MB', 'GB', 'TB', 'KiB', 'MiB', 'GiB', 'TiB', 'k', 'm', 'g', 't', 'gib')).map(([n, u]) => `${n}${u}`);
