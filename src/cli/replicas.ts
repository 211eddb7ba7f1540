// gpualloc replicas (issue 3; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `replicas` subcommand. */
export const command: Command = {
  name: 'replicas',
  summary: '(not built yet: issue 3)',
  help: 'gpualloc replicas: not built yet (issue 3)',
  async run(_argv, io) {
    io.err('gpualloc replicas: not built yet\n');
    return EXIT.USAGE;
  },
};
