// gpualloc presets (issue 4; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `presets` subcommand. */
export const command: Command = {
  name: 'presets',
  summary: '(not built yet: issue 4)',
  help: 'gpualloc presets: not built yet (issue 4)',
  async run(_argv, io) {
    io.err('gpualloc presets: not built yet\n');
    return EXIT.USAGE;
  },
};
