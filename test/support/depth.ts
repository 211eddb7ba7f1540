// How deep a test goes. `npm test` runs every test in its short form (fewer random cases, fewer
// rounds, one trace per policy) so the suite stays within two minutes on a 2-core machine;
// `npm run test:deep` (vitest.deep.config.ts, run by CI) runs the files that import this module
// again with GPUALLOC_DEEP=1: the same assertions over the long form. A file that imports this
// module is picked up by the deep suite without being listed anywhere.

/** True in the deep suite (GPUALLOC_DEEP=1). */
export const DEEP = process.env.GPUALLOC_DEEP === '1';

/** The short form's value in `npm test`, the long form's in the deep suite. */
export function depth<T>(short: T, deep: T): T {
  return DEEP ? deep : short;
}
