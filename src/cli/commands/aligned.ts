// gpualloc aligned: pick whole GPUs by topology (besteffort: go-gpuallocator's BestEffort; topology: the default).
import { parseArgs } from 'node:util';
import { ALIGNED_POLICIES, type AlignedPolicy, type AlignedResult } from '../../devices/aligned.js';
import { createEngine } from '../../engine.js';
import { inventoryTopology } from '../../hardware/inventory.js';
import { EXIT, parseIntList, parsePositiveInt, table, UsageError, type Command, type Io, parseBackend, ENGINE_OPTIONS } from '../lib/common.js';
import { resolveInventory } from '../lib/source.js';

const HELP = `gpualloc aligned: pick whole GPUs that talk over the best links

Usage: gpualloc aligned [--inventory FILE | --preset NAME] --size N [--required LIST] [--available LIST]
                        [--policy topology|besteffort] [--repeat N] [--backend wasm|ts] [--json]

Options:
  --inventory FILE  read the inventory from a file
  --preset NAME     use a built-in preset (see \`gpualloc presets\`)
  --size N          how many GPUs to pick (required)
  --required LIST   comma-separated GPU indices that must be in the pick (first request only)
  --available LIST  comma-separated GPU indices that are free, in order (default: every GPU not lost);
                    besteffort's ties depend on this order, as in go-gpuallocator
  --policy NAME     topology (default): the best-connected set that leaves the best-connected rest;
                    besteffort: go-gpuallocator's BestEffort, result for result (never a padded group)
  --repeat N        make N requests in a row, each from what the previous ones left (default 1)
  --backend NAME    wasm (default) or ts
  --json            print the picks as JSON
  -h, --help        this help

Scores: sum over the picked pairs of PCIe (INTERNAL 60, PIX 50, PXB 40, PHB 30, NODE 20, SYS 10) plus
100 per NVLink. Exit code 1 when a request cannot be met (the reason goes to stderr).
`;

/** The `aligned` subcommand. */
export const command: Command = {
  name: 'aligned',
  summary: 'pick whole GPUs by topology (topology policy, or go-gpuallocator besteffort)',
  help: HELP,
  flags: { size: '--size', available: '--available', required: '--required', policy: '--policy' },
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = parseArgs({
      args: argv,
      options: {
        ...ENGINE_OPTIONS,
        size: { type: 'string' },
        required: { type: 'string' },
        available: { type: 'string' },
        policy: { type: 'string' },
        repeat: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const json = values.json === true;
    const backend = parseBackend(values.backend);
    const size = parsePositiveInt(values.size, '--size');
    const repeat = parsePositiveInt(values.repeat, '--repeat', 1);
    const policy = (values.policy ?? 'topology') as AlignedPolicy;
    if (!ALIGNED_POLICIES.includes(policy)) throw new UsageError(`--policy: expected ${ALIGNED_POLICIES.join(' or ')}, got ${JSON.stringify(values.policy)}`);
    const required = values.required === undefined ? [] : parseIntList(values.required, '--required');

    const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: json }, io);
    const topology = inventoryTopology(inventory);
    let available = values.available === undefined ? inventory.gpus.filter((g) => !g.lost).map((g) => g.index) : parseIntList(values.available, '--available');
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
