// gpualloc discover (issue 7; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `discover` subcommand. */
export const command: Command = {
  name: 'discover',
  summary: '(not built yet: issue 7)',
  help: 'gpualloc discover: not built yet (issue 7)',
  async run(_argv, io) {
    io.err('gpualloc discover: not built yet\n');
    return EXIT.USAGE;
  },
};
