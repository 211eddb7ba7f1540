// 'fgd-lp': fgd-close (policies/ours.ts) with its share rule priced by the configuration LP of bin
// packing instead of the clean-remainder table. The LP (policies/share-values.ts) prices each share
// size of the workload at the fraction of a GPU it costs in an optimal fractional packing of all the
// workload's shares (on openb: 810 a whole GPU, 650/590/550 two thirds, 480/470/460 a half,
// 440..320 a third, 290..230 a quarter, 220 a twelfth, 160 and below nothing). A GPU with r milli
// free is worth value(r), the most a set of the workload's shares fitting r is worth at those prices;
// a share of m milli put on a GPU with v free is *on plan* when value(v) = price(m) + value(v − m):
// the best completion of the GPU still includes it. An on-plan placement wins over every placement
// that is not; FGD's score ranks the placements within each group. Where the clean rule asks
// whether some mix of the typical sizes can fill the remainder exactly, the prices ask whether the
// workload has enough of the sizes that would fill it: a 530 left beside a 470 is clean (370 + 160)
// but worth only a third (370s are few), so a 470 goes on a fresh GPU or beside another 470, which
// an optimal packing also does. CPU-only and whole-GPU pods are placed as fgd-close places them.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const lp: FleetPolicy = {
  ...POLICY_REGISTRY['fgd-lp'],
  gpuChoice: 'score',
  summary: "fgd-close with shares kept to placements an optimal fractional packing of the workload's shares (configuration-LP prices) can complete",
};
