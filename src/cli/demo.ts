// gpualloc demo (issue 2; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `demo` subcommand. */
export const command: Command = {
  name: 'demo',
  summary: '(not built yet: issue 2)',
  help: 'gpualloc demo: not built yet (issue 2)',
  async run(_argv, io) {
    io.err('gpualloc demo: not built yet\n');
    return EXIT.USAGE;
  },
};
