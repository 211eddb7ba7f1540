// gpualloc demo (what `npm start` runs): the engine on this host's GPUs, or on a preset.

import { nodeFromInventory } from '../../cluster/node.js';
import { openEngine } from '../../engine.js';
import { inventoryTopology, wholeGpuCandidates } from '../../hardware/inventory.js';
import { getPreset } from '../../hardware/presets.js';
import { AllocationError } from '../../shared/errors.js';
import { formatBytes } from '../../shared/units.js';
import { type Command, EXIT, type Io, table } from '../lib/common.js';
import { backendOption, helpOption, inventoryOption, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';
import { expandInventory } from './replicas.js';
import { inventoryDevices } from './split.js';

const OPTIONS = {
  inventory: inventoryOption("use an inventory file instead of this host's GPUs"),
  preset: presetOption('use a built-in preset (see `gpualloc presets`)'),
  backend: backendOption(),
  help: helpOption(),
};

const HELP = `gpualloc demo: a short tour of the engine on this host's GPUs (NVML), or on a preset

Usage: gpualloc demo [--inventory FILE | --preset NAME] [--backend wasm|ts]

Options:
${optionsHelp(OPTIONS, 21)}`;

/** The `demo` subcommand. */
export const command: Command = {
  name: 'demo',
  summary: "a short tour on this host's GPUs, or on a preset (what npm start runs)",
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const backend = values.backend ?? 'wasm';
    const { inventory, notice } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: true }, io);
    // Every step needs a GPU: an inventory without one fails here, before the tour starts.
    if (!inventory.gpus.some((g) => g.lost !== true)) {
      throw AllocationError.of('INVALID_INVENTORY', {
        origin: values.inventory === undefined ? notice : `--inventory ${values.inventory}`,
        detail: `no GPU${inventory.gpus.length > 0 ? ' that is not lost' : ''} (the demo needs at least one)`,
      });
    }
    const engine = await openEngine({ backend });
    const say = (t: string) => io.out(t);
    say(`gpualloc demo — ${notice}; backend ${engine.backend}\n\n`);
    say(`Node: ${inventory.host ?? 'unnamed host'}, ${inventory.gpus.length} GPUs\n`);
    say(
      table(
        ['GPU', 'NAME', 'MEMORY', 'PCI', 'MIG'],
        inventory.gpus.map((g) => [g.index, g.name ?? '-', formatBytes(g.memoryTotal), g.pciBusId ?? '-', g.mig?.length ? `${g.mig.length} slices` : '-']),
      ),
    );

    const host = inventoryDevices(inventory);
    const ids = (host.devices.cuda ?? []).map((d) => (typeof d === 'string' ? d : d.id));
    say(`\n1. Natural order of the GPU IDs: ${engine.naturalSort([...ids].reverse()).join(', ')}\n`);
    const split = engine.splitDevices({
      agents: ['agent-1', 'agent-2', 'agent-3'],
      mode: 'auto-split',
      devices: host.devices,
      amounts: { mem: host.memory },
      reserved: { mem: Math.min(host.memory, 2 ** 30) },
    });
    say('\n2. Auto-split between three agents (fill-from-front):\n');
    say(
      table(
        ['AGENT', 'GPUS', 'CPUS', 'MEMORY'],
        Object.entries(split.assignments).map(([a, given]) => [a, given.cuda?.join(',') || '-', String(given.cpu?.length ?? 0), formatBytes(split.amounts[a]?.mem ?? 0)]),
      ),
    );

    // 3. Replicas: 4 time-slicing replicas per GPU (or per MIG slice), half of GPU 0's taken.
    const resource = expandInventory(inventory, 4);
    const taken = new Set(resource.devices.filter((id) => resource.byId.get(id)!.gpu === inventory.gpus[0]?.index).slice(0, 2));
    const available = resource.devices.filter((id) => !taken.has(id));
    say(`\n3. Replicas (${resource.devices.length} devices, 2 already taken on GPU ${inventory.gpus[0]?.index ?? '-'}), size 3:\n`);
    const rows: Array<Array<string | number>> = [];
    for (const policy of ['distributed', 'pack', 'spread'] as const) {
      const r = engine.allocateReplicas({ devices: resource.devices, available, size: 3, policy, parents: resource.parents });
      rows.push([policy, r.devices.length ? r.devices.map((id) => `GPU ${resource.byId.get(id)!.gpu}`).join(', ') : `none (${r.reason?.code})`]);
    }
    say(table(['POLICY', 'PICKS LAND ON'], rows));

    // 4. Whole GPUs by topology.
    const topology = inventoryTopology(inventory);
    // GPUs in MIG mode hand out slices (step 3), not whole GPUs.
    const { available: gpuIndices, mig } = wholeGpuCandidates(inventory);
    const size = Math.min(4, gpuIndices.length);
    say(`\n4. ${size} whole GPUs by topology${mig.length > 0 ? ` (GPU${mig.length === 1 ? '' : 's'} ${mig.join(',')} in MIG mode left out)` : ''}:\n`);
    const aligned: Array<Array<string | number>> = [];
    for (const policy of ['topology', 'besteffort'] as const) {
      const r = engine.allocateAligned({ topology, available: gpuIndices, size, policy });
      aligned.push([policy, r.devices.length ? r.devices.join(',') : `none (${r.reason?.code})`, r.score]);
    }
    say(table(['POLICY', 'GPUS', 'SCORE'], aligned));

    // 5. Model placement by memory, committed into a cluster state.
    const state = engine.createClusterState(inventory);
    const largest = Math.max(0, ...inventory.gpus.map((g) => g.memoryTotal));
    const models = [
      { model: 'llama-70b', memory: Math.round(largest * 1.75) },
      { model: 'mistral-22b', memory: Math.round(largest * 0.55) },
      { model: 'llama-405b', memory: Math.round(largest * 5.5) },
    ];
    say('\n5. Models placed by memory (each commit re-validated against the state):\n');
    const placed: Array<Array<string | number>> = [];
    for (const m of models) {
      const plan = state.plan({ memory: m.memory, model: m.model });
      const best = plan.options[0];
      if (best === undefined) {
        placed.push([m.model, formatBytes(m.memory), '-', '-', plan.reason?.code ?? 'no option']);
        continue;
      }
      const slot = state.commit(best);
      placed.push([m.model, formatBytes(m.memory), best.gpus.join(','), formatBytes(best.memoryPerGpu), `${slot} (${plan.options.length} option${plan.options.length === 1 ? '' : 's'})`]);
    }
    say(table(['MODEL', 'MEMORY', 'GPUS', 'PER GPU', 'RESULT'], placed));

    // 6. A model no node holds alone, across nodes: tensor-parallel in each × a pipeline stage per node.
    const h100 = getPreset('dgx-h100');
    const cluster = engine.createClusterState({
      nodes: ['h100-a', 'h100-b', 'h100-c'].map((id, k) => ({ ...nodeFromInventory(h100, { id }), labels: { 'nvidia.com/gpu.clique': k < 2 ? 'c1' : 'c2' } })),
    });
    const big = { memory: 810e9, model: 'llama-3.1-405b-bf16', topology: { preferred: ['nvidia.com/gpu.clique'] } };
    const across = cluster.plan(big);
    const clique = new Map(cluster.toJSON().nodes.map((n) => [n.id, n.labels?.['nvidia.com/gpu.clique'] ?? '-']));
    say(`\n6. Llama 3.1 405B in BF16 (810 GB) on three DGX H100 nodes (8 × 80 GB each; cliques c1: a, b; c2: c):\n`);
    say(
      table(
        ['#', 'NODES', 'TP×PP', 'PER GPU', 'CLIQUES'],
        across.options.map((o, k) => [
          k + 1,
          o.parts!.map((p) => p.node).join('+'),
          `${o.tensorParallel}×${o.pipelineParallel}`,
          formatBytes(o.memoryPerGpu),
          [...new Set(o.parts!.map((p) => clique.get(p.node)))].join(','),
        ]),
      ),
    );
    const spanned = cluster.commit(across.options[0]!);
    say(
      `committed option 1 as ${spanned}, one slot on ${cluster
        .listSlots()
        .find((x) => x.id === spanned)!
        .parts!.map((p) => p.node)
        .join(' and ')}\n`,
    );
    say('\nMore: gpualloc --help, gpualloc <command> --help\n');
    return EXIT.OK;
  },
};
