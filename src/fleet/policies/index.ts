// Every fleet policy, by name.
import { fail } from '../../shared/validate.js';
import { bestfit } from './bestfit.js';
import { clustering } from './clustering.js';
import { dotprod } from './dotprod.js';
import { fgd } from './fgd.js';
import { fgdNode } from './fgd-node.js';
import { lp } from './lp.js';
import { ours } from './ours.js';
import { packing } from './packing.js';
import { random } from './random.js';
import type { FleetPolicy } from './types.js';

export { LEAST_SHAPE_COUNT, type NodeValues, RESERVE, THETAS } from './fgd-node.js';
export { type NodeLpPrices, type NodeLpShape, type NodeLpType, type NodeValueOptions, type NodeValueTables, nodeLpPrices, nodeStateValue, nodeValueTables } from './node-value.js';
export { cleanRemainders, deadHole } from './ours.js';
// The registry's numbers, whatever policies it holds (the table in scripts/fleet-tables.mjs).
export * from './registry.js';
export { planTables } from './share-values.js';
export type { FleetPolicy, FleetPolicyName, GpuChoice } from './types.js';

/** The published policies (FGD paper order) and ours: fgd-close, fgd-lp and fgd-node (the default). */
export const POLICIES: readonly FleetPolicy[] = [random, dotprod, clustering, packing, bestfit, fgd, ours, lp, fgdNode];

/** The default policy's name. */
export const DEFAULT_POLICY = fgdNode.name;

/** The policy called `name`; UNKNOWN_POLICY otherwise. */
export function policyByName(name: unknown, field = 'policy'): FleetPolicy {
  const p = POLICIES.find((q) => q.name === name);
  if (p === undefined) fail('UNKNOWN_POLICY', field, `one of ${POLICIES.map((q) => `'${q.name}'`).join(', ')}`, name);
  return p;
}
