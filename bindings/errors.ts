// NVML return codes and the error every NVML failure is reported with.

/** nvmlReturn_t values by number, as NVML names them (without the NVML_ERROR_ / NVML_ prefix). */
export const NVML_RETURN: Readonly<Record<number, string>> = Object.freeze({
  0: 'SUCCESS',
  1: 'UNINITIALIZED',
  2: 'INVALID_ARGUMENT',
  3: 'NOT_SUPPORTED',
  4: 'NO_PERMISSION',
  5: 'ALREADY_INITIALIZED',
  6: 'NOT_FOUND',
  7: 'INSUFFICIENT_SIZE',
  8: 'INSUFFICIENT_POWER',
  9: 'DRIVER_NOT_LOADED',
  10: 'TIMEOUT',
  11: 'IRQ_ISSUE',
  12: 'LIBRARY_NOT_FOUND',
  13: 'FUNCTION_NOT_FOUND',
  14: 'CORRUPTED_INFOROM',
  15: 'GPU_IS_LOST',
  16: 'RESET_REQUIRED',
  17: 'OPERATING_SYSTEM',
  18: 'LIB_RM_VERSION_MISMATCH',
  19: 'IN_USE',
  20: 'MEMORY',
  21: 'NO_DATA',
  22: 'VGPU_ECC_NOT_SUPPORTED',
  23: 'INSUFFICIENT_RESOURCES',
  24: 'FREQ_NOT_SUPPORTED',
  25: 'ARGUMENT_VERSION_MISMATCH',
  26: 'DEPRECATED',
  27: 'NOT_READY',
  28: 'GPU_NOT_FOUND',
  29: 'INVALID_STATE',
  30: 'RESET_TYPE_NOT_SUPPORTED',
  999: 'UNKNOWN',
});

/** The return codes the bindings branch on. */
export const NVML = {
  SUCCESS: 0,
  UNINITIALIZED: 1,
  INVALID_ARGUMENT: 2,
  NOT_SUPPORTED: 3,
  NO_PERMISSION: 4,
  NOT_FOUND: 6,
  INSUFFICIENT_SIZE: 7,
  DRIVER_NOT_LOADED: 9,
  LIBRARY_NOT_FOUND: 12,
  FUNCTION_NOT_FOUND: 13,
  GPU_IS_LOST: 15,
  UNKNOWN: 999,
} as const;

/** NVML's name for a return code: 9 → `NVML_ERROR_DRIVER_NOT_LOADED`, 0 → `NVML_SUCCESS`. */
export function nvmlName(code: number): string {
  const name = NVML_RETURN[code];
  if (name === undefined) return `NVML_ERROR_${code}`;
  return code === 0 ? 'NVML_SUCCESS' : `NVML_ERROR_${name}`;
}

/** Thrown when NVML cannot be loaded or a call fails; `gpualloc` exits with code 3 on it. */
export class NvmlError extends Error {
  /** NVML's name of the failure, such as `NVML_ERROR_DRIVER_NOT_LOADED`. */
  readonly nvmlName: string;
  /** The numeric nvmlReturn_t (12 LIBRARY_NOT_FOUND when the shared library could not be loaded). */
  readonly code: number;
  /** The NVML function that failed (`dlopen` when the library itself could not be loaded). */
  readonly function: string;

  constructor(code: number, fn: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NvmlError';
    this.code = code;
    this.nvmlName = nvmlName(code);
    this.function = fn;
  }

  /** A plain object for `--json` output. */
  toJSON(): { code: string; message: string; nvmlCode: number; function: string } {
    return { code: this.nvmlName, message: this.message, nvmlCode: this.code, function: this.function };
  }
}
