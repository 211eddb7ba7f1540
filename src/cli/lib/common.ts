// Shared CLI plumbing: exit codes, output streams, tables, and error reporting.
import { AllocationError } from '../../shared/errors.js';
import type { Backend } from '../../kernels.js';

/** Exit codes, documented in `gpualloc --help` and the README. */
export const EXIT = { OK: 0, INFEASIBLE: 1, USAGE: 2, HARDWARE: 3 } as const;

/** Where a command writes: results to out, messages to err. */
export type Io = { out(text: string): void; err(text: string): void; env: Record<string, string | undefined>; cwd: string };

/** One subcommand. `run` returns the exit code. */
export type Command = {
  name: string;
  summary: string;
  help: string;
  run(argv: string[], io: Io): Promise<number>;
  /** API field → the flag that sets it, so that errors name flags (see flag-words.ts). */
  flags?: Readonly<Record<string, string>>;
};

/** Thrown for bad command-line usage (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Renders rows as an aligned text table with a header line. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n') + '\n';
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
  } else if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && ((error as unknown as { code: string }).code).startsWith('ERR_PARSE_ARGS')) {
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
export function parsePositiveInt(text: string | undefined, option: string, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new UsageError(`${option} is required`);
    return fallback;
  }
  if (!/^[0-9]+$/.test(text.trim()) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) throw new UsageError(`${option}: expected a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The --backend option: wasm (default) or ts. */
export function parseBackend(text: string | undefined): Backend {
  const backend = text ?? 'wasm';
  if (backend !== 'wasm' && backend !== 'ts') throw new UsageError(`--backend: expected wasm or ts, got ${JSON.stringify(backend)}`);
  return backend;
}

/** parseArgs options every inventory-reading command takes: where the GPUs come from. */
export const SOURCE_OPTIONS = { inventory: { type: 'string' }, preset: { type: 'string' } } as const;

/** parseArgs options of the commands that run the engine and can print JSON. */
export const ENGINE_OPTIONS = { ...SOURCE_OPTIONS, backend: { type: 'string' }, json: { type: 'boolean' } } as const;
