// gpualloc demo (what `npm start` runs): the engine on this host's GPUs, or on a preset.
import { parseArgs } from 'node:util';
import { createEngine } from '../engine.js';
import { formatBytes } from '../units.js';
import { EXIT, table, UsageError, type Command, type Io } from './common.js';
import { resolveInventory } from './source.js';
import { inventoryDevices } from './split.js';

const HELP = `gpualloc demo: a short tour of the engine on this host's GPUs (NVML), or on a preset

Usage: gpualloc demo [--inventory FILE | --preset NAME] [--backend wasm|ts]

Options:
  --inventory FILE   use an inventory file instead of this host's GPUs
  --preset NAME      use a built-in preset (see \`gpualloc presets\`)
  --backend NAME     wasm (default) or ts
  -h, --help         this help
`;

/** The `demo` subcommand. */
export const command: Command = {
  name: 'demo',
  summary: "a short tour on this host's GPUs, or on a preset (what npm start runs)",
  help: HELP,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = parseArgs({ args: argv, options: { inventory: { type: 'string' }, preset: { type: 'string' }, backend: { type: 'string' } }, strict: true });
    const backend = values.backend ?? 'wasm';
    if (backend !== 'wasm' && backend !== 'ts') throw new UsageError(`--backend: expected wasm or ts, got ${JSON.stringify(backend)}`);
    const { inventory, notice } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: true }, io);
    const engine = await createEngine({ backend });
    const say = (t: string) => io.out(t);
    say(`gpualloc demo — ${notice}; backend ${engine.backend}\n\n`);
    say(`Node: ${inventory.host ?? 'unnamed host'}, ${inventory.gpus.length} GPUs\n`);
    say(table(['GPU', 'NAME', 'MEMORY', 'PCI', 'MIG'], inventory.gpus.map((g) => [g.index, g.name ?? '-', formatBytes(g.memoryTotal), g.pciBusId ?? '-', g.mig?.length ? `${g.mig.length} slices` : '-'])));

    const host = inventoryDevices(inventory);
    const ids = host.devices.cuda.map((d) => (typeof d === 'string' ? d : d.id));
    say(`\n1. Natural order of the GPU IDs: ${engine.naturalSort([...ids].reverse()).join(', ')}\n`);
    const split = engine.splitDevices({ agents: ['agent-1', 'agent-2', 'agent-3'], mode: 'auto-split', devices: host.devices, amounts: { mem: host.memory }, reserved: { mem: Math.min(host.memory, 2 ** 30) } });
    say('\n2. Auto-split between three agents (fill-from-front):\n');
    say(table(['AGENT', 'GPUS', 'CPUS', 'MEMORY'], Object.keys(split.assignments).map((a) => [a, split.assignments[a].cuda.join(',') || '-', String(split.assignments[a].cpu?.length ?? 0), formatBytes(split.amounts[a].mem ?? 0)])));
    return EXIT.OK;
  },
};
