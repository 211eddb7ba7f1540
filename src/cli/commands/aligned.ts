// gpualloc aligned: pick whole GPUs by topology (besteffort: go-gpuallocator's BestEffort; topology: the default).
import { ALIGNED_POLICIES, type AlignedResult } from '../../devices/aligned.js';
import { openEngine } from '../../engine.js';
import { inventoryTopology, wholeGpuCandidates } from '../../hardware/inventory.js';
import { migMessage } from '../../placement/index.js';
import { type Command, EXIT, type Io, parseIntList, parsePositiveInt, table, UsageError } from '../lib/common.js';
import { backendOption, helpOption, inventoryOption, jsonOption, oneOf, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';

const OPTIONS = {
  inventory: inventoryOption('read the inventory from a file'),
  preset: presetOption('use a built-in preset (see `gpualloc presets`)'),
  size: option({ type: 'string', value: 'N', help: 'how many GPUs to pick (required)', field: 'size', parse: parsePositiveInt }),
  required: option({ type: 'string', value: 'LIST', help: 'comma-separated GPU indices that must be in the pick (first request only)', field: 'required', parse: parseIntList }),
  available: option({
    type: 'string',
    value: 'LIST',
    field: 'available',
    parse: parseIntList,
    help: "comma-separated GPU indices that are free, in order (default: every GPU not lost);\nbesteffort's ties depend on this order, as in go-gpuallocator",
  }),
  policy: option({
    type: 'string',
    value: 'NAME',
    field: 'policy',
    parse: oneOf(ALIGNED_POLICIES),
    help: "topology (default): the best-connected set that leaves the best-connected rest;\nbesteffort: go-gpuallocator's BestEffort, result for result (never a padded group)",
  }),
  repeat: option({ type: 'string', value: 'N', help: 'make N requests in a row, each from what the previous ones left (default 1)', parse: parsePositiveInt }),
  'allow-mig': option({ type: 'boolean', help: 'let GPUs in MIG mode be picked whole (by default they are left out: their\nslices are allocated with gpualloc replicas)' }),
  backend: backendOption(),
  json: jsonOption('print the picks as JSON'),
  help: helpOption(),
};

const HELP = `gpualloc aligned: pick whole GPUs that talk over the best links

Usage: gpualloc aligned [--inventory FILE | --preset NAME] --size N [--required LIST] [--available LIST]
                        [--policy topology|besteffort] [--repeat N] [--allow-mig] [--backend wasm|ts] [--json]

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
    // GPUs in MIG mode hand out slices: left out of whole-GPU picks unless --allow-mig.
    const candidates = wholeGpuCandidates(inventory, { allowMig: values['allow-mig'] === true });
    const mig = new Set(candidates.mig);
    let available = (values.available ?? candidates.available).filter((g) => !mig.has(g));
    const engine = await openEngine({ backend });

    const rounds: Array<{ request: number } & AlignedResult> = [];
    const requiredMig = required.find((g) => mig.has(g));
    if (requiredMig !== undefined) {
      rounds.push({ request: 1, devices: [], score: 0, reason: { code: 'MIG_MODE', message: `--required: ${migMessage(requiredMig)}; --allow-mig picks it as a whole GPU` } });
    }
    for (let k = 0; k < repeat && requiredMig === undefined; k++) {
      const result = engine.allocateAligned({ topology, available, required: k === 0 ? required : [], size, policy });
      if (result.reason !== undefined && mig.size > 0) {
        result.reason = { ...result.reason, message: `${result.reason.message} (left out: GPU${mig.size === 1 ? '' : 's'} ${[...mig].join(',')} in MIG mode; --allow-mig picks them whole)` };
      }
      rounds.push({ request: k + 1, ...result });
      if (result.reason !== undefined) break;
      const taken = new Set(result.devices);
      available = available.filter((g) => !taken.has(g));
    }
    const failed = rounds.find((r) => r.reason !== undefined);
    if (json) {
      io.out(JSON.stringify({ policy, size, rounds, left: available, ...(mig.size > 0 ? { migLeftOut: [...mig] } : {}) }, null, 2) + '\n');
    } else {
      const rows = rounds.filter((r) => r.reason === undefined).map((r) => [r.request, r.devices.join(','), r.score, r.devices.map((g) => inventory.gpus[g]?.uuid ?? `GPU${g}`).join(' ')]);
      if (rows.length > 0) io.out(`policy: ${policy}\n\n` + table(['#', 'GPUS', 'SCORE', 'UUIDS'], rows) + `\nleft: ${available.length === 0 ? '-' : available.join(',')}\n`);
      if (rows.length > 0 && mig.size > 0)
        io.out(`left out: GPU${mig.size === 1 ? '' : 's'} ${[...mig].join(',')} in MIG mode (their slices are allocated with gpualloc replicas; --allow-mig picks them whole)\n`);
    }
    if (failed?.reason !== undefined) {
      io.err(`gpualloc: request ${failed.request} infeasible (${failed.reason.code}): ${failed.reason.message}\n`);
      return EXIT.INFEASIBLE;
    }
    return EXIT.OK;
  },
};
