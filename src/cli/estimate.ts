// gpualloc estimate (issue 6; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `estimate` subcommand. */
export const command: Command = {
  name: 'estimate',
  summary: '(not built yet: issue 6)',
  help: 'gpualloc estimate: not built yet (issue 6)',
  async run(_argv, io) {
    io.err('gpualloc estimate: not built yet\n');
    return EXIT.USAGE;
  },
};
