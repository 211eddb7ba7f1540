// gpualloc topo: the GPU pair matrix of an inventory, printed like `nvidia-smi topo -m`.
import { type Inventory, inventoryTopology, wholeGpuCandidates } from '../../hardware/inventory.js';
import { type Link, linkScore, validateTopology } from '../../hardware/topology.js';
import { type Command, EXIT, type Io } from '../lib/common.js';
import { helpOption, inventoryOption, jsonOption, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';

const OPTIONS = {
  inventory: inventoryOption('read the inventory from a file'),
  preset: presetOption('use a built-in preset (see `gpualloc presets`)'),
  scores: option({ type: 'boolean', help: 'print the pair scores (PCIe part + 100 per NVLink) instead of link names' }),
  json: jsonOption('print { gpus, links: cells, scores, mig? } as JSON (mig: the GPUs in MIG mode)'),
  help: helpOption(),
};

const HELP = `gpualloc topo: print the GPU pair matrix like \`nvidia-smi topo -m\`

Usage: gpualloc topo [--inventory FILE | --preset NAME] [--scores] [--json]

Options:
${optionsHelp(OPTIONS, 20)}
GPUs in MIG mode are named under the matrix: whole-GPU picks (aligned, plan) leave them out unless
--allow-mig, since their slices are what they hand out (gpualloc replicas allocates those).

Legend:
  X    = self
  NV#  = connected by a bonded set of # NVLinks (the PCIe path is shown with --json)
  SYS  = PCIe plus the SMP interconnect between NUMA nodes
  NODE = PCIe plus the interconnect between PCIe host bridges within a NUMA node
  PHB  = PCIe and a PCIe host bridge
  PXB  = multiple PCIe bridges, without a host bridge
  PIX  = at most a single PCIe bridge
  -    = no link data for the pair (scores 0)
`;

/** The nvidia-smi-style cell of one pair: NV#, else the PCIe level, else '-'. */
export function linkCell(link: Link | undefined): string {
  if (link === undefined) return '-';
  if ((link.nvlink ?? 0) > 0) return `NV${link.nvlink}`;
  return link.pcie ?? '-';
}

/** The n×n matrix of cells ('X' on the diagonal) and of pair scores. */
export function topoMatrix(inventory: Inventory): { cells: string[][]; scores: number[][] } {
  const topology = validateTopology(inventoryTopology(inventory), 'inventory');
  const n = topology.gpus;
  const byPair = new Map<number, Link>();
  for (const l of topology.links) byPair.set(l.a * n + l.b, l);
  const cells: string[][] = [];
  const scores: number[][] = [];
  for (let a = 0; a < n; a++) {
    cells.push([]);
    scores.push([]);
    for (let b = 0; b < n; b++) {
      const link = a === b ? undefined : byPair.get(Math.min(a, b) * n + Math.max(a, b));
      cells[a]!.push(a === b ? 'X' : linkCell(link)); // row a was pushed above
      scores[a]!.push(a === b ? 0 : linkScore(link));
    }
  }
  return { cells, scores };
}

/** The `topo` subcommand. */
export const command: Command = {
  name: 'topo',
  summary: 'print the GPU pair matrix like nvidia-smi topo -m (NV12, PIX, SYS…)',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const json = values.json === true;
    const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: json }, io);
    const { cells, scores } = topoMatrix(inventory);
    const { mig } = wholeGpuCandidates(inventory);
    if (json) {
      io.out(JSON.stringify({ host: inventory.host, gpus: inventory.gpus.length, links: cells, scores, ...(mig.length > 0 ? { mig } : {}) }, null, 2) + '\n');
      return EXIT.OK;
    }
    const n = cells.length;
    const shown = values.scores === true ? scores.map((row, a) => row.map((s, b) => (a === b ? 'X' : String(s)))) : cells;
    const width = Math.max(6, ...shown.flat().map((c) => c.length + 2), `GPU${n - 1}`.length + 2);
    const pad = (t: string) => t.padEnd(width);
    let text = pad('') + Array.from({ length: n }, (_, b) => pad(`GPU${b}`)).join('') + 'GPU NUMA ID\n';
    for (let a = 0; a < n; a++) {
      const numa = inventory.gpus[a]?.numaNode;
      text += pad(`GPU${a}`) + shown[a]!.map(pad).join('') + (numa === undefined ? 'N/A' : String(numa)) + '\n';
    }
    if (mig.length > 0) text += `\nMIG mode: GPU${mig.length === 1 ? '' : 's'} ${mig.join(',')} (left out of whole-GPU picks unless --allow-mig; gpualloc replicas allocates their slices)\n`;
    if (values.scores !== true) text += '\n' + HELP.slice(HELP.indexOf('Legend:'));
    io.out(text);
    return EXIT.OK;
  },
};
