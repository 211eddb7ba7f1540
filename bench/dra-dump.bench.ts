// `gpualloc dra schedule` end to end on a cluster dump, as the CLI runs it (the text parsed, the
// objects read and converted, the cluster read, every pending pod scheduled): a mixed NVIDIA
// cluster of DGX H100 nodes (8 whole GPUs), H100 DynamicMIG nodes (2 GPUs, every MIG placement a
// partition on memory-slice counters) and A100 static MIG nodes, with pending pods asking one or
// two whole GPUs, a 1g.10gb MIG slice, or a prioritized list (3g.40gb, else a whole GPU), all
// through ResourceClaimTemplates. Time (wall and CPU) and peak memory. And createDraCluster on
// scheduler_perf-shaped dumps against JSON.parse of the same text (the target: at most 3×).
//   npm run bench:dra-dump [-- --quick] [-- --only=schedule|create] [-- --out=FILE]
import { loadavg } from 'node:os';
import { table } from '../src/cli/lib/common.js';
import { claimsOfDump, readClusterDump, readDocuments, schedulePods } from '../src/dra/index.js';
import { openEngine } from '../src/engine.js';
import { schedulerPerfCluster } from './dra-inputs.js';
import { argValue, machineInfo, resultsPath, writeResults } from './store.bench.js';

const GPU_ATTRS = (node: string, i: number, product: string, arch: string, cc: string) => ({
  type: { string: 'gpu' },
  uuid: { string: `GPU-${node}-${i}` },
  productName: { string: product },
  brand: { string: 'Nvidia' },
  architecture: { string: arch },
  cudaComputeCapability: { version: cc },
  driverVersion: { version: '570.133.20' },
  cudaDriverVersion: { version: '12.8.0' },
  'resource.kubernetes.io/pciBusID': { string: `0000:${(16 + i * 16).toString(16)}:00.0` },
  'resource.kubernetes.io/pcieRoot': { string: `pci0000:${(8 + i * 16).toString(16)}` },
});

const H100_PROFILES: Array<[string, number, number, number, number, number[]]> = [
  // profile, GI profile ID, SMs, memory MiB, memory slices, placements
  ['1g.10gb', 19, 16, 9984, 1, [0, 1, 2, 3, 4, 5, 6]],
  ['1g.20gb', 15, 26, 20096, 2, [0, 2, 4, 6]],
  ['2g.20gb', 14, 32, 20096, 2, [0, 2, 4]],
  ['3g.40gb', 9, 60, 40448, 4, [0, 4]],
  ['4g.40gb', 5, 64, 40448, 4, [0]],
  ['7g.80gb', 0, 132, 81152, 8, [0]],
];

function node(name: string, cpu: number, memoryGi: number): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { allocatable: { cpu: String(cpu), memory: `${memoryGi}Gi`, pods: '110' } } };
}

function slice(name: string, nodeName: string, count: number, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: { driver: 'gpu.nvidia.com', nodeName, pool: { name: nodeName, generation: 1, resourceSliceCount: count }, ...spec },
  };
}

/** The mixed cluster's objects: 60% DGX H100, 20% H100 DynamicMIG, 20% A100 static MIG. */
function mixedCluster(nodes: number): unknown[] {
  const items: unknown[] = [
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu.nvidia.com' },
      spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'" } }] },
    },
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'mig.nvidia.com' },
      spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'" } }] },
    },
  ];
  for (let k = 0; k < nodes; k++) {
    const kind = k % 5;
    if (kind < 3) {
      const n = `dgx-h100-${k}`;
      items.push(node(n, 224, 2000));
      items.push(
        slice(`${n}-gpu.nvidia.com`, n, 1, {
          devices: Array.from({ length: 8 }, (_, i) => ({ name: `gpu-${i}`, attributes: GPU_ATTRS(n, i, 'NVIDIA H100 80GB HBM3', 'Hopper', '9.0.0'), capacity: { memory: { value: '81559Mi' } } })),
        }),
      );
    } else if (kind === 3) {
      const n = `h100-mig-${k}`;
      items.push(node(n, 96, 1000));
      const counters = (sm: number, mem: number, start: number, size: number) => {
        const c: Record<string, { value: string }> = { multiprocessors: { value: String(sm) }, memory: { value: `${mem}Mi` } };
        for (let s = start; s < start + size; s++) c[`memory-slice-${s}`] = { value: '1' };
        return c;
      };
      items.push(slice(`${n}-counters`, n, 3, { sharedCounters: [0, 1].map((g) => ({ name: `gpu-${g}-counter-set`, counters: counters(132, 81152, 0, 8) })) }));
      for (const g of [0, 1]) {
        const devices: unknown[] = [
          {
            name: `gpu-${g}`,
            attributes: GPU_ATTRS(n, g, 'NVIDIA H100 80GB HBM3', 'Hopper', '9.0.0'),
            capacity: { memory: { value: '81152Mi' }, multiprocessors: { value: '132' } },
            consumesCounters: [{ counterSet: `gpu-${g}-counter-set`, counters: counters(132, 81152, 0, 8) }],
          },
        ];
        for (const [profile, id, sm, mem, size, starts] of H100_PROFILES) {
          for (const start of starts) {
            devices.push({
              name: `gpu-${g}-mig-${profile.replace('.', '')}-${id}-${start}`,
              attributes: { type: { string: 'mig' }, profile: { string: profile }, parentUUID: { string: `GPU-${n}-${g}` }, productName: { string: 'NVIDIA H100 80GB HBM3' } },
              capacity: { multiprocessors: { value: String(sm) }, memory: { value: `${mem}Mi` } },
              consumesCounters: [{ counterSet: `gpu-${g}-counter-set`, counters: counters(sm, mem, start, size) }],
            });
          }
        }
        items.push(slice(`${n}-gpu-${g}`, n, 3, { devices }));
      }
    } else {
      const n = `a100-mig-${k}`;
      items.push(node(n, 128, 1000));
      const devices: unknown[] = [0, 1, 2, 3].map((i) => ({ name: `gpu-${i}`, attributes: GPU_ATTRS(n, i, 'NVIDIA A100-SXM4-40GB', 'Ampere', '8.0.0'), capacity: { memory: { value: '40960Mi' } } }));
      for (const g of [4, 5, 6, 7]) {
        for (const [profile, id, start] of [
          ['1g.5gb', 19, 0],
          ['1g.5gb', 19, 1],
          ['2g.10gb', 14, 2],
          ['3g.20gb', 9, 4],
        ] as const) {
          devices.push({
            name: `gpu-${g}-mig-${profile.replace('.', '')}-${id}-${start}`,
            attributes: { type: { string: 'mig' }, profile: { string: profile }, parentUUID: { string: `GPU-${n}-${g}` } },
            capacity: { memory: { value: profile === '3g.20gb' ? '20096Mi' : profile === '2g.10gb' ? '9984Mi' : '4864Mi' } },
          });
        }
      }
      items.push(slice(`${n}-gpu.nvidia.com`, n, 1, { devices }));
    }
  }
  const exactly = (cls: string, count: number, sel?: string) => ({ deviceClassName: cls, count, ...(sel !== undefined ? { selectors: [{ cel: { expression: sel } }] } : {}) });
  const templates: Array<[string, unknown]> = [
    ['one-gpu', { requests: [{ name: 'gpu', exactly: exactly('gpu.nvidia.com', 1) }] }],
    ['two-gpus', { requests: [{ name: 'gpus', exactly: exactly('gpu.nvidia.com', 2) }], constraints: [{ requests: ['gpus'], matchAttribute: 'gpu.nvidia.com/productName' }] }],
    ['mig-1g', { requests: [{ name: 'mig', exactly: exactly('mig.nvidia.com', 1, "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'") }] }],
    [
      'mig-3g-or-gpu',
      {
        requests: [
          {
            name: 'r',
            firstAvailable: [
              { name: 'mig', ...exactly('mig.nvidia.com', 1, "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'") },
              { name: 'gpu', ...exactly('gpu.nvidia.com', 1) },
            ],
          },
        ],
      },
    ],
  ];
  for (const [name, devices] of templates) items.push({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name, namespace: 'ml' }, spec: { spec: { devices } } });
  return items;
}

function pods(count: number): unknown[] {
  const kinds = ['one-gpu', 'one-gpu', 'one-gpu', 'one-gpu', 'one-gpu', 'two-gpus', 'two-gpus', 'mig-1g', 'mig-1g', 'mig-3g-or-gpu'];
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `job-${i}`, namespace: 'ml', creationTimestamp: new Date(Date.UTC(2026, 10, 2, 10, 0, 0) + i * 1000).toISOString().replace('.000', '') },
    spec: {
      containers: [{ name: 'main', image: 'x', resources: { requests: { cpu: '2', memory: '8Gi' }, claims: [{ name: 'dev' }] } }],
      resourceClaims: [{ name: 'dev', resourceClaimTemplateName: kinds[i % kinds.length] }],
    },
    status: { phase: 'Pending' },
  }));
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function scheduleRow(nodes: number, podCount: number) {
  const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...mixedCluster(nodes), ...pods(podCount)] });
  global.gc?.();
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  const dump = readClusterDump(await readDocuments(text, 'dump.json'), 'dump.json');
  const { claims, held } = claimsOfDump(dump.claims);
  const engine = await openEngine();
  const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held });
  const readMs = performance.now() - wall0;
  let said = performance.now();
  // Progress on stderr every 2 s, as the CLI says it.
  const progress = (done: number, total: number): void => {
    if (performance.now() - said < 2000) return;
    said = performance.now();
    process.stderr.write(`scheduling: ${done}/${total} pods (${((said - wall0) / 1000).toFixed(0)} s, CPU ${((cpuMs() - cpu0) / 1000).toFixed(0)} s)\n`);
  };
  const result = schedulePods({ pods: dump.pods, nodes: dump.nodeInfos, claims, templates: dump.templates, extendedResources: new Map(), placer: cluster, order: 'scheduler', progress });
  const wallMs = performance.now() - wall0;
  const placed = result.pods.filter((p) => p.node !== null).length;
  return {
    name: `dra schedule: ${nodes} mixed NVIDIA nodes, ${podCount} pending pods`,
    nodes,
    pods: podCount,
    bytes: text.length,
    readMs: Math.round(readMs),
    wallMs: Math.round(wallMs),
    cpuMs: Math.round(cpuMs() - cpu0),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    placed,
    podsPerSec: Math.round((podCount * 1000) / (wallMs - readMs)),
  };
}

async function createRow(nodes: number) {
  const c = schedulerPerfCluster(nodes, 'empty');
  const text = JSON.stringify({ classes: c.classes, slices: c.slices, nodes: c.nodes });
  global.gc?.();
  let t = cpuMs();
  const parsed = JSON.parse(text) as { classes: unknown[]; slices: unknown[]; nodes: unknown[] };
  const parseMs = cpuMs() - t;
  const engine = await openEngine();
  global.gc?.();
  t = cpuMs();
  engine.createDraCluster({ classes: parsed.classes, slices: parsed.slices, nodes: parsed.nodes });
  const createMs = cpuMs() - t;
  return {
    name: `createDraCluster: ${nodes} scheduler_perf nodes`,
    nodes,
    bytes: text.length,
    parseMs: Math.round(parseMs),
    createMs: Math.round(createMs),
    ratio: +(createMs / parseMs).toFixed(2),
    target: 3,
  };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const out = argValue('out') ?? resultsPath('dra-dump-results.json');
  const started = Date.now();
  const loadStart = loadavg();
  // The schedule row first: its peak RSS is the process's maximum so far, before the larger create rows.
  const only = argValue('only');
  const schedules = only === 'create' ? [] : [await scheduleRow(quick ? 500 : 5000, quick ? 2000 : 20_000)];
  const creates = [];
  if (only !== 'schedule') for (const n of quick ? [2000, 5000] : [20_000, 50_000]) creates.push(await createRow(n));
  const loadEnd = loadavg();
  process.stdout.write(
    table(
      ['CASE', 'JSON.parse ms', 'read ms', 'ratio (≤ 3)'],
      creates.map((r) => [r.name, String(r.parseMs), String(r.createMs), String(r.ratio)]),
    ),
  );
  process.stdout.write('\n');
  process.stdout.write(
    table(
      ['CASE', 'read ms', 'total ms', 'CPU ms', 'peak RSS MB', 'placed', 'pods/s'],
      schedules.map((r) => [r.name, String(r.readMs), String(r.wallMs), String(r.cpuMs), String(r.peakRssMB), `${r.placed}/${r.pods}`, String(r.podsPerSec)]),
    ),
  );
  writeResults(out, {
    schema: 1,
    date: new Date().toISOString(),
    quick,
    machine: machineInfo(),
    loadavgStart: loadStart,
    loadavgEnd: loadEnd,
    creates,
    schedules,
    seconds: Math.round((Date.now() - started) / 1000),
  });
  process.stdout.write(`\nload average (1 min) ${loadStart[0]!.toFixed(1)} at the start, ${loadEnd[0]!.toFixed(1)} at the end\nwrote ${out}\n`);
}

await main();
