// Ours ('fgd-bf', the default): FGD's node score, but a sharing pod goes to the best-fit GPU of the
// node (the least free milli that still fits, lowest index on a tie) and the node is scored by the
// fragmentation change of that placement. FGD lets the fragmentation measure pick the GPU too, which
// sometimes opens a wholly free GPU for a share while a partly used one could take it; best fit
// keeps whole GPUs (and, on nodes with a topology, whole NVLink groups) for whole-GPU pods.
// Measured against FGD on every openb variant (README, "Fleet simulation").
import { P_OURS } from '../layout.js';
import type { FleetPolicy } from './types.js';

export const ours: FleetPolicy = { name: 'fgd-bf', id: P_OURS, gpuChoice: 'best', summary: 'FGD node score with best-fit GPU choice for shares (default)' };
