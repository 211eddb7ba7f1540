// gpualloc aligned: pick whole GPUs by topology (besteffort: go-gpuallocator's BestEffort; topology: the default).
import { ALIGNED_POLICIES, type AlignedPolicy, type AlignedResult } from '../../devices/aligned.js';
import { createEngine } from '../../engine.js';
import { inventoryTopology } from '../../hardware/inventory.js';
import { EXIT, parseIntList, parsePositiveInt, table, UsageError, type Command, type Io } from '../lib/common.js';
import { backendOption, helpOption, inventoryOption, jsonOption, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';

function parsePolicy(text: string, flag: string): AlignedPolicy {
  if (!(ALIGNED_POLICIES as readonly string[]).includes(text)) throw new UsageError(`${flag}: expected ${ALIGNED_POLICIES.join(' or ')}, got ${JSON.stringify(text)}`);
  return text as AlignedPolicy;
}

const OPTIONS = {
  inventory: inventoryOption('read the inventory from a file'),
  preset: presetOption('use a built-in preset (see `gpualloc presets`)'),
  size: option({ type: 'string', value: 'N', help: 'how many GPUs to pick (required)', field: 'size', parse: parsePositiveInt }),
  required: option({ type: 'string', value: 'LIST', help: 'comma-separated GPU indices that must be in the pick (first request only)', field: 'required', parse: parseIntList }),
  available: option({
    type: 'string', value: 'LIST', field: 'available', parse: parseIntList,
    help: 'comma-separated GPU indices that are free, in order (default: every GPU not lost);\nbesteffort\'s ties depend on this order, as in go-gpuallocator',
  }),
  policy: option({
    type: 'string', value: 'NAME', field: 'policy', parse: parsePolicy,
    help: "topology (default): the best-connected set that leaves the best-connected rest;\nbesteffort: go-gpuallocator's BestEffort, result for result (never a padded group)",
  }),
  repeat: option({ type: 'string', value: 'N', help: 'make N requests in a row, each from what the previous ones left (default 1)', parse: parsePositiveInt }),
  backend: backendOption(),
  json: jsonOption('print the picks as JSON'),
  help: helpOption(),
};

const HELP = `gpualloc aligned: pick whole GPUs that talk over the best links

Usage: gpualloc aligned [--inventory FILE | --preset NAME] --size N [--required LIST] [--available LIST]
                        [--policy topology|besteffort] [--repeat N] [--backend wasm|ts] [--json]

Options:
${optionsHelp(OPTIONS, 20)}
Scores: sum over the picked pairs of PCIe (INTERNAL 60, PIX 50, PXB 40, PHB 30, NODE 20, SYS 10) plus
100 per NVLink. Exit code 1 when a request cannot be met (the reason goes to stderr).
`;

/** The `aligned` subcommand. */
export const command: Command = {
  name: 'aligned',
  summary: 'pick whole GPUs by topology (topology policy, or go-gpuallocator besteffort)',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const json = values.json === true;
    const backend = values.backend ?? 'wasm';
    if (values.size === undefined) throw new UsageError('--size is required');
    const size = values.size;
    const repeat = values.repeat ?? 1;
    const policy = values.policy ?? 'topology';
    const required = values.required ?? [];

    const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: json }, io);
    const topology = inventoryTopology(inventory);
    let available = values.available ?? inventory.gpus.filter((g) => !g.lost).map((g) => g.index);
    const engine = await createEngine({ backend });

    const rounds: Array<{ request: number } & AlignedResult> = [];
    for (let k = 0; k < repeat; k++) {
      const result = engine.allocateAligned({ topology, available, required: k === 0 ? required : [], size, policy });
      rounds.push({ request: k + 1, ...result });
      if (result.reason !== undefined) break;
      const taken = new Set(result.devices);
      available = available.filter((g) => !taken.has(g));
    }
    const failed = rounds.find((r) => r.reason !== undefined);
    if (json) {
      io.out(JSON.stringify({ policy, size, rounds, left: available }, null, 2) + '\n');
    } else {
      const rows = rounds.filter((r) => r.reason === undefined).map((r) => [r.request, r.devices.join(','), r.score, r.devices.map((g) => inventory.gpus[g]?.uuid ?? `GPU${g}`).join(' ')]);
      if (rows.length > 0) io.out(`policy: ${policy}\n\n` + table(['#', 'GPUS', 'SCORE', 'UUIDS'], rows) + `\nleft: ${available.length === 0 ? '-' : available.join(',')}\n`);
    }
    if (failed?.reason !== undefined) {
      io.err(`gpualloc: request ${failed.request} infeasible (${failed.reason.code}): ${failed.reason.message}\n`);
      return EXIT.INFEASIBLE;
    }
    return EXIT.OK;
  },
};
