// gpualloc discover: this host's GPUs and topology through NVML, as a table and an inventory file.
import type { Inventory, InventoryGpu } from '../../hardware/inventory.js';
import type { Link } from '../../hardware/topology.js';
import { formatBytes } from '../../shared/units.js';
import { type Command, EXIT, table } from '../lib/common.js';
import { jsonOption, option, optionsHelp, readOptions } from '../lib/options.js';

const OPTIONS = {
  out: option({ type: 'string', value: 'FILE', help: 'write the inventory (JSON, schema/inventory.v1.json) to FILE' }),
  json: jsonOption('print the inventory as JSON on stdout instead of the tables'),
  library: option({
    type: 'string',
    value: 'PATH',
    help: 'the libnvidia-ml to read, and no other: exit 3 if it cannot be loaded\n(default: $GPUALLOC_NVML_LIBRARY, then libnvidia-ml.so.1, then the usual\ndistro paths, the first that loads)',
  }),
  refresh: option({ type: 'boolean', help: "ignore this process's cached discovery (only matters in long-lived callers)" }),
};

const HELP = `gpualloc discover: read this host's GPUs and topology through NVML

Usage: gpualloc discover [--out FILE] [--json] [--library PATH] [--refresh]

Prints a table of the GPUs (index, name, memory, PCI bus ID, NUMA node, MIG) and the topology
matrix (NV# = that many NVLinks, then the PCIe path: INTERNAL, PIX, PXB, PHB, NODE, SYS), and
writes the inventory every other command reads with --inventory FILE.

Options:
${optionsHelp(OPTIONS, 18)}
Exit codes: 0 success, 2 usage error, 3 NVML error (no library, driver not loaded, a call failed).
`;

/** The cell of the topology matrix for one pair, as `nvidia-smi topo -m` writes pairs: NV2+PHB, NV12, SYS. */
function cell(link: Link | undefined): string {
  if (link === undefined) return '-';
  const nv = link.nvlink !== undefined && link.nvlink > 0 ? `NV${link.nvlink}` : '';
  if (link.pcie === undefined) return nv === '' ? '-' : nv;
  return nv === '' ? link.pcie : `${nv}+${link.pcie}`;
}

function migCell(gpu: InventoryGpu): string {
  if (gpu.mig === undefined) return 'off';
  if (gpu.mig.length === 0) return 'on (no instances)';
  return `on: ${gpu.mig.map((m) => m.profile).join(', ')}`;
}

/** The GPU table and topology matrix of an inventory, as `gpualloc discover` prints them. */
export function renderInventory(inventory: Inventory): string {
  const rows = inventory.gpus.map((g) => [
    g.index,
    g.lost === true ? '(lost)' : (g.name ?? '?'),
    g.lost === true ? '-' : formatBytes(g.memoryTotal),
    g.memoryUsed === undefined ? '-' : formatBytes(g.memoryUsed),
    g.pciBusId ?? '-',
    g.numaNode ?? '-',
    g.lost === true ? '-' : migCell(g),
  ]);
  const n = inventory.gpus.length;
  let text = `${n} GPU${n === 1 ? '' : 's'}${inventory.source === undefined ? '' : ` (${inventory.source})`}\n\n`;
  text += table(['GPU', 'NAME', 'MEMORY', 'USED', 'PCI', 'NUMA', 'MIG'], rows);
  if (n > 1) {
    const byPair = new Map<string, Link>();
    for (const l of inventory.links) byPair.set(`${l.a},${l.b}`, l);
    const names = inventory.gpus.map((g) => `GPU${g.index}`);
    const matrix = inventory.gpus.map((ga, i) => [
      names[i]!, // one name per GPU
      ...inventory.gpus.map((gb) => (ga.index === gb.index ? 'X' : cell(byPair.get(`${Math.min(ga.index, gb.index)},${Math.max(ga.index, gb.index)}`)))),
    ]);
    text += `\nTopology:\n${table(['', ...names], matrix)}`;
    text +=
      '\nNV# = # NVLinks (on NVSwitch: the smaller switch-link count of the pair), then the PCIe path:\nINTERNAL = same board, PIX = one PCIe switch, PXB = several, PHB = host bridge,\nNODE = within a NUMA node, SYS = across NUMA nodes, - = unknown\n';
  }
  return text;
}

/** The `discover` subcommand. */
export const command: Command = {
  name: 'discover',
  summary: "read this host's GPUs and topology through NVML; write the inventory",
  help: HELP,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = readOptions(OPTIONS, argv);
    const { discoverDevices } = await import('../../../bindings/index.js');
    // A library named on the command line is the one read (no quiet fall-back to another driver's).
    const inventory = await discoverDevices({ library: values.library ?? io.env.GPUALLOC_NVML_LIBRARY, refresh: values.refresh === true, fallback: values.library === undefined });
    const json = JSON.stringify(inventory, null, 2) + '\n';
    if (values.out !== undefined) {
      const { writeFile } = await import('node:fs/promises');
      const { resolve } = await import('node:path');
      await writeFile(resolve(io.cwd, values.out), json);
      io.err(`gpualloc: wrote the inventory of ${inventory.gpus.length} GPUs to ${values.out}\n`);
    }
    io.out(values.json === true ? json : renderInventory(inventory));
    return EXIT.OK;
  },
};
