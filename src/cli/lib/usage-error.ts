// The error of a bad command line (exit code 2): a missing or malformed flag, an unknown one.

/** Thrown for bad command-line usage (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
