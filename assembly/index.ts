// The WebAssembly core: numeric kernels only. No strings, no JSON, no I/O. Inputs arrive as flat
// arrays in the scratch arena (see arena.ts); each module below is one capability's kernels.
export { reserve, reservedBytes, debugTrap } from './arena';
export * from './natural-sort';
export * from './topology';
export * from './replicas';
export * from './aligned';
export * from './besteffort';
export * from './placement';
export * from './fleet';
