// gpualloc aligned (issue 4; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `aligned` subcommand. */
export const command: Command = {
  name: 'aligned',
  summary: '(not built yet: issue 4)',
  help: 'gpualloc aligned: not built yet (issue 4)',
  async run(_argv, io) {
    io.err('gpualloc aligned: not built yet\n');
    return EXIT.USAGE;
  },
};
