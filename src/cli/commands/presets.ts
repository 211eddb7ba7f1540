// gpualloc presets: the built-in machines, named after real ones.
import { getPreset, listPresets } from '../../hardware/presets.js';
import { EXIT, table, type Command, type Io } from '../lib/common.js';
import { helpOption, jsonOption, optionsHelp, readOptions } from '../lib/options.js';

const OPTIONS = {
  json: jsonOption('print the list as JSON (name, description, GPU count and model)'),
  help: helpOption(),
};

const HELP = `gpualloc presets: list the built-in machines (use one with --preset NAME)

Usage: gpualloc presets [--json]

Options:
${optionsHelp(OPTIONS, 14)}`;

/** The `presets` subcommand. */
export const command: Command = {
  name: 'presets',
  summary: 'list the built-in machines (DGX-1, DGX-2, DGX A100/H100, PCIe servers)',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
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
