// gpualloc plan (issue 5; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `plan` subcommand. */
export const command: Command = {
  name: 'plan',
  summary: '(not built yet: issue 5)',
  help: 'gpualloc plan: not built yet (issue 5)',
  async run(_argv, io) {
    io.err('gpualloc plan: not built yet\n');
    return EXIT.USAGE;
  },
};
