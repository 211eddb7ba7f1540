#!/usr/bin/env node
import { didYouMean } from '../shared/suggest.js';
import { command as aligned } from './commands/aligned.js';
import { command as demo } from './commands/demo.js';
import { command as discover } from './commands/discover.js';
import { command as dra } from './commands/dra.js';
import { command as estimate } from './commands/estimate.js';
import { command as plan } from './commands/plan.js';
import { command as presets } from './commands/presets.js';
import { command as replicas } from './commands/replicas.js';
import { command as simulate } from './commands/simulate.js';
import { command as split } from './commands/split.js';
import { command as state } from './commands/state.js';
import { command as topo } from './commands/topo.js';
// The gpualloc command line: dispatches to one module per subcommand.
import { type Command, EXIT, type Io, reportError, UsageError } from './lib/common.js';
import { SOURCE_FLAGS, sayWithFlags } from './lib/error-words.js';
import { flagsOf } from './lib/options.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: Command[] = [demo, split, replicas, aligned, plan, state, estimate, discover, presets, topo, simulate, dra];

/** Top-level help text. */
export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `gpualloc: GPU and device allocation engine

Usage: gpualloc <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`gpualloc <command> --help\` for a command's options.
Most commands take --inventory FILE; without it they read this host's GPUs through NVML and,
where there is none, use a built-in preset (a one-line notice on stderr says which).

Exit codes:
  0  success
  1  infeasible request (well-formed, but nothing fits)
  2  usage or input error
  3  hardware / NVML error (or an internal fault)

Messages go to stderr, results to stdout; with --json, stdout is JSON even on error:
{"error": {"code": "...", "message": "..."}}.
`;
}

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  // `gpualloc help plan` is `gpualloc plan --help`.
  if (name === 'help' && rest.length > 0) return main([rest[0]!, '--help', ...rest.slice(1)], io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === undefined) {
      io.err(mainHelp());
      return EXIT.USAGE;
    }
    io.out(mainHelp());
    return EXIT.OK;
  }
  if (name === '--version' || name === '-v') {
    io.out('gpualloc 0.1.0\n');
    return EXIT.OK;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    // With --json, even this answer is JSON on stdout.
    const hint = didYouMean(
      name,
      COMMANDS.map((c) => c.name),
    );
    if (rest.includes('--json')) return reportError(new UsageError(`unknown command ${JSON.stringify(name)}${hint} (see gpualloc --help)`), io, true);
    io.err(`gpualloc: unknown command ${JSON.stringify(name)}${hint}\n\n${mainHelp()}`);
    return EXIT.USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help.endsWith('\n') ? command.help : command.help + '\n');
    return EXIT.OK;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    return reportError(sayWithFlags(error, { ...SOURCE_FLAGS, ...flagsOf(command.options) }), io, rest.includes('--json'));
  }
}

/**
 * A writer on one of the process's streams. A reader that goes away early (`gpualloc plan … | head -1`)
 * makes the stream fail with EPIPE: from then on the output is dropped quietly (no stack trace, no
 * message) and the command ends with its usual exit code. Any other stream error is thrown.
 */
export function streamWriter(stream: NodeJS.WritableStream): (text: string) => void {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

/**
 * The last line of defence of the `gpualloc` process: an exception nothing caught or a rejected
 * promise nothing awaited is a fault in gpualloc, never an answer. It prints `gpualloc: internal
 * error: …` on stderr (with --json, `{"error": {"code": "INTERNAL", …}}` on stdout too) and exits 3,
 * so such a fault can never pass for exit 1 ("infeasible: nothing fits") or leave a bare stack trace.
 */
export function guardProcess(argv: readonly string[]): void {
  let failing = false;
  const fault = (error: unknown): void => {
    if (failing) return; // a second fault while reporting the first: the exit below is already on its way
    failing = true;
    const message = error instanceof Error ? error.message : String(error);
    try {
      if (argv.includes('--json')) process.stdout.write(JSON.stringify({ error: { code: 'INTERNAL', message: `internal error: ${message}` } }) + '\n');
      process.stderr.write(`gpualloc: internal error: ${message}\n`);
    } finally {
      process.exit(EXIT.HARDWARE);
    }
  };
  process.on('uncaughtException', fault);
  process.on('unhandledRejection', fault);
}

/** Standard input to its end (for `-` as a file). */
async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const isEntry =
  typeof process !== 'undefined' && process.argv[1] !== undefined && (await import('node:url')).fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1]);
if (isEntry) {
  guardProcess(process.argv.slice(2));
  const io: Io = {
    out: streamWriter(process.stdout),
    err: streamWriter(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    stdin: () => readStdin(process.stdin),
    errIsTerminal: process.stderr.isTTY === true,
  };
  process.exitCode = await main(process.argv.slice(2), io);
}
