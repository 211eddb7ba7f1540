// gpualloc presets: the built-in machines, named after real ones.
import { parseArgs } from 'node:util';
import { getPreset, listPresets } from '../../hardware/presets.js';
import { EXIT, table, type Command, type Io } from '../lib/common.js';

const HELP = `gpualloc presets: list the built-in machines (use one with --preset NAME)

Usage: gpualloc presets [--json]

Options:
  --json      print the list as JSON (name, description, GPU count and model)
  -h, --help  this help
`;

/** The `presets` subcommand. */
export const command: Command = {
  name: 'presets',
  summary: 'list the built-in machines (DGX-1, DGX-2, DGX A100/H100, PCIe servers)',
  help: HELP,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: false });
    const rows = listPresets().map((p) => {
      const inv = getPreset(p.name);
      const mig = inv.gpus.filter((g) => g.mig !== undefined).length;
      return { name: p.name, gpus: inv.gpus.length, model: inv.gpus[0]?.name ?? '-', mig, description: p.description };
    });
    if (values.json === true) io.out(JSON.stringify(rows, null, 2) + '\n');
    else io.out(table(['NAME', 'GPUS', 'MODEL', 'DESCRIPTION'], rows.map((r) => [r.name, r.gpus, r.model, r.description])));
    return EXIT.OK;
  },
};
