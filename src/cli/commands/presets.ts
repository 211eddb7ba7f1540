// gpualloc presets: the built-in machines, named after real ones; `--inventory NAME` writes one as an
// inventory file (what `gpualloc discover --out` writes on a GPU host), so every walkthrough that
// starts from an inventory file also runs without a GPU.

import { wholeGpuCandidates } from '../../hardware/inventory.js';
import { getPreset, listPresets } from '../../hardware/presets.js';
import { type Command, EXIT, type Io, table, UsageError } from '../lib/common.js';
import { helpOption, jsonOption, option, optionsHelp, readOptions } from '../lib/options.js';
import { FlagFileError, isFileError } from '../lib/usage-error.js';

const OPTIONS = {
  json: jsonOption('print the list as JSON (name, description, GPU count and model)'),
  // An unknown preset name is said as this flag's (the API field is `preset`).
  inventory: option({
    type: 'string',
    value: 'NAME',
    field: 'preset',
    help: 'print preset NAME as an inventory file (JSON, schema/inventory.v1.json),\nthe file `gpualloc discover --out` writes on a GPU host',
  }),
  out: option({ type: 'string', value: 'FILE', help: 'with --inventory: write the inventory to FILE instead of stdout' }),
  help: helpOption(),
};

const HELP = `gpualloc presets: list the built-in machines (use one with --preset NAME)

Usage: gpualloc presets [--json]
       gpualloc presets --inventory NAME [--out FILE]

Options:
${optionsHelp(OPTIONS, 20)}`;

/** The `presets` subcommand. */
export const command: Command = {
  name: 'presets',
  summary: 'list the built-in machines (DGX-1, DGX-2, DGX A100/H100, PCIe servers); write one as an inventory',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    if (values.inventory !== undefined) return writeInventory(values.inventory, values.out, io);
    if (values.out !== undefined) throw new UsageError('--out: needs --inventory NAME (the preset to write)');
    const rows = listPresets().map((p) => {
      const inv = getPreset(p.name);
      const mig = inv.gpus.filter((g) => g.mig !== undefined).length;
      return { name: p.name, gpus: inv.gpus.length, model: inv.gpus[0]?.name ?? '-', mig, description: p.description };
    });
    if (values.json === true) io.out(JSON.stringify(rows, null, 2) + '\n');
    else {
      let text = table(
        ['NAME', 'GPUS', 'MODEL', 'DESCRIPTION'],
        rows.map((r) => [r.name, r.gpus, r.model, r.description]),
      );
      // Whole-GPU picks leave GPUs in MIG mode out: say which, where a preset has any.
      for (const p of listPresets()) {
        const { mig } = wholeGpuCandidates(getPreset(p.name));
        if (mig.length > 0)
          text += `\n${p.name}: GPU${mig.length === 1 ? '' : 's'} ${mig.join(',')} in MIG mode: whole-GPU picks (aligned, plan, demo) leave them out (aligned and plan take them with --allow-mig); gpualloc replicas allocates their slices\n`;
      }
      io.out(text);
    }
    return EXIT.OK;
  },
};

/** Preset `name` as inventory JSON (formatted as `discover --out` formats it): to `out`, else to stdout. */
async function writeInventory(name: string, out: string | undefined, io: Io): Promise<number> {
  const inventory = getPreset(name);
  const json = JSON.stringify(inventory, null, 2) + '\n';
  if (out === undefined) {
    io.out(json);
    return EXIT.OK;
  }
  const { writeFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  try {
    await writeFile(resolve(io.cwd, out), json);
  } catch (error) {
    // Keeps its errno (IO_ERROR, exit 2); the message names the flag.
    throw isFileError(error) ? new FlagFileError('--out', error) : error;
  }
  io.err(`gpualloc: wrote the inventory of preset ${name} (${inventory.gpus.length} GPUs) to ${out}\n`);
  return EXIT.OK;
}
