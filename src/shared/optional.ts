// Optional peer dependencies: packages that only one feature needs, imported on that feature's first
// use, so an install that never uses the feature never needs them (nor their native binaries).
import { AllocationError } from './errors.js';

/** Each optional peer dependency and the features that need it. */
export const OPTIONAL_PACKAGES = {
  pg: 'PostgresStore (gpualloc/store)',
  koffi: "NVML discovery (gpualloc/nvml, the CLI's discover) and JsonFileStore's file lock",
  yaml: "the CLI's replica policy file and DRA cluster dumps in YAML (readDocuments; JSON dumps need nothing)",
  'smol-toml': "the CLI's split --config file (TOML)",
} as const;

/** The name of an optional peer dependency. */
export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** True when `error` is Node's "cannot find package NAME" (the package is not installed). */
export function isMissingModule(error: unknown, name: string): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes(`'${name}'`);
}

/** AllocationError('MISSING_DEPENDENCY') saying which package `feature` needs and how to install it. */
export function missingPackageError(name: OptionalPackage, feature: string, cause?: unknown): AllocationError {
  return new AllocationError('MISSING_DEPENDENCY', `${feature} needs the optional package ${name}, which is not installed: run \`npm install ${name}\``, cause === undefined ? {} : { cause });
}

/**
 * Imports an optional peer dependency through `load` (a literal `import('NAME')`, which bundlers and
 * the type-checker can see); a missing package becomes MISSING_DEPENDENCY naming it, any other failure
 * (a broken native binary) is rethrown as it is.
 */
export async function importOptional<T>(name: OptionalPackage, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    if (isMissingModule(cause, name)) throw missingPackageError(name, feature, cause);
    throw cause;
  }
}
