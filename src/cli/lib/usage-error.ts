// The error of a bad command line (exit code 2): a missing or malformed flag, an unknown one.

/** Thrown for bad command-line usage (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A file a flag names cannot be read or written (ENOENT, EACCES, EISDIR, …): an input error (exit 2,
 * code IO_ERROR) whose message starts with the flag and keeps the system's words.
 */
export class FlagFileError extends Error {
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;

  constructor(flag: string, cause: NodeJS.ErrnoException) {
    super(`${flag}: ${cause.message}`, { cause });
    this.name = 'FlagFileError';
    if (cause.code !== undefined) this.code = cause.code;
    this.syscall = cause.syscall ?? 'open';
    if (cause.path !== undefined) this.path = cause.path;
  }
}

/** Whether `error` is a file system error (it names the system call that failed). */
export function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as { syscall?: unknown }).syscall === 'string';
}
