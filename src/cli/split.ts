// gpualloc split (issue 2; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `split` subcommand. */
export const command: Command = {
  name: 'split',
  summary: '(not built yet: issue 2)',
  help: 'gpualloc split: not built yet (issue 2)',
  async run(_argv, io) {
    io.err('gpualloc split: not built yet\n');
    return EXIT.USAGE;
  },
};
