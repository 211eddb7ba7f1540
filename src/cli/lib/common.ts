// Shared CLI plumbing: exit codes, output streams, tables, and error reporting.
import { AllocationError } from '../../shared/errors.js';
import type { OptionTable } from './options.js';
import { UsageError } from './usage-error.js';

export { UsageError } from './usage-error.js';

/** Exit codes, documented in `gpualloc --help` and the README. */
export const EXIT = { OK: 0, INFEASIBLE: 1, USAGE: 2, HARDWARE: 3 } as const;

/** Where a command writes: results to out, messages to err. */
export type Io = {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Standard input, read to its end (commands that take `-`). */
  stdin?: () => Promise<string>;
  /** Whether err is a terminal: progress lines are written only there, never into a pipe or a log. */
  errIsTerminal?: boolean;
};

/** One subcommand. `run` returns the exit code. */
export type Command = {
  name: string;
  summary: string;
  /** The help text (its option list made from `options`). */
  help: string;
  /** The command's options, declared once (options.ts): help, parseArgs options, flags of API fields. */
  options: OptionTable;
  run(argv: string[], io: Io): Promise<number>;
};

/** Renders rows as an aligned text table with a header line. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n') + '\n';
}

/** Maps any thrown value to an exit code and reports it (stderr, or JSON on stdout with --json). */
export function reportError(error: unknown, io: Io, json: boolean): number {
  let code: string;
  let message: string;
  let exit: number;
  if (error instanceof UsageError) {
    code = 'USAGE';
    message = error.message;
    exit = EXIT.USAGE;
  } else if (error instanceof AllocationError) {
    code = error.code;
    message = error.message;
    exit = error.code === 'INTERNAL' ? EXIT.HARDWARE : EXIT.USAGE;
  } else if (error instanceof Error && error.name === 'NvmlError') {
    code = (error as Error & { nvmlName?: string }).nvmlName ?? 'NVML_ERROR';
    message = error.message;
    exit = EXIT.HARDWARE;
  } else if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && (error as unknown as { code: string }).code.startsWith('ERR_PARSE_ARGS')) {
    // node:util parseArgs: unknown option, missing value, unexpected positional.
    code = 'USAGE';
    message = error.message;
    exit = EXIT.USAGE;
  } else if (error instanceof Error && typeof (error as { syscall?: unknown }).syscall === 'string') {
    // A file the user named cannot be read or written (ENOENT, EACCES, EISDIR, …): an input error.
    code = 'IO_ERROR';
    message = error.message;
    exit = EXIT.USAGE;
  } else {
    code = 'INTERNAL';
    message = error instanceof Error ? error.message : String(error);
    exit = EXIT.HARDWARE;
  }
  if (json) io.out(JSON.stringify({ error: { code, message } }) + '\n');
  io.err(`gpualloc: ${message}\n`);
  return exit;
}

/** Splits a comma-separated list of integers ("0,2,4"), naming the option on error. */
export function parseIntList(text: string, option: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const t = part.trim();
    if (!/^-?[0-9]+$/.test(t)) throw new UsageError(`${option}: expected comma-separated integers, got ${JSON.stringify(text)}`);
    return Number(t);
  });
}

/** Parses a positive integer option. */
export function parsePositiveInt(text: string, option: string): number {
  if (!/^[0-9]+$/.test(text.trim()) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) throw new UsageError(`${option}: expected a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}
