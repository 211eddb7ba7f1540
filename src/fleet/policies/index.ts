// Every fleet policy, by name.
import { AllocationError } from '../../shared/errors.js';
import { describeValue } from '../../shared/validate.js';
import { random } from './random.js';
import { dotprod } from './dotprod.js';
import { clustering } from './clustering.js';
import { packing } from './packing.js';
import { bestfit } from './bestfit.js';
import { fgd } from './fgd.js';
import { ours } from './ours.js';
import type { FleetPolicy } from './types.js';

/** The published policies (FGD paper order) and ours, which is the default. */
export const POLICIES: readonly FleetPolicy[] = [random, dotprod, clustering, packing, bestfit, fgd, ours];

/** The default policy's name. */
export const DEFAULT_POLICY = ours.name;

/** The policy called `name`; UNKNOWN_POLICY otherwise. */
export function policyByName(name: unknown, field = 'policy'): FleetPolicy {
  const p = POLICIES.find((q) => q.name === name);
  if (p === undefined) throw new AllocationError('UNKNOWN_POLICY', `${field}: expected one of ${POLICIES.map((q) => `'${q.name}'`).join(', ')}, got ${describeValue(name)}`, { field });
  return p;
}
