// The fleet layout's numbers and the accessors of its two regions, for the fleet kernels
// (assembly/fleet.ts, fleet-score.ts, fleet-index.ts). The numbers come from one table
// (scripts/fleet-tables.mjs writes fleet-fields.ts here and src/fleet/layout-fields.ts for TypeScript).
export * from './fleet-fields';

// @ts-ignore: decorator
@inline export function si(s: usize, k: i32): i32 {
  return load<i32>(s + (<usize>k << 2));
}
// @ts-ignore: decorator
@inline export function ss(s: usize, k: i32, v: i32): void {
  store<i32>(s + (<usize>k << 2), v);
}
// @ts-ignore: decorator
@inline export function fi(f: usize, k: i32): f64 {
  return load<f64>(f + (<usize>k << 3));
}
// @ts-ignore: decorator
@inline export function fs(f: usize, k: i32, v: f64): void {
  store<f64>(f + (<usize>k << 3), v);
}
