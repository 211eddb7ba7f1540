// gpualloc topo (issue 4; placeholder until it lands).
import { EXIT, type Command } from './common.js';

/** The `topo` subcommand. */
export const command: Command = {
  name: 'topo',
  summary: '(not built yet: issue 4)',
  help: 'gpualloc topo: not built yet (issue 4)',
  async run(_argv, io) {
    io.err('gpualloc topo: not built yet\n');
    return EXIT.USAGE;
  },
};
