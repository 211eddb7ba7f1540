// Migration 4: a GPU's MIG mode. `mig` is true for a GPU in MIG mode (NodeGpu.mig): whole-GPU plans
// leave it out unless they allow MIG GPUs, so the store keeps it as a state file does. Existing GPUs
// are not in MIG mode (the state file's default).
import type { Migration } from './types.js';

export const migration: Migration = {
  version: 4,
  name: 'gpus.mig: the GPU is in MIG mode',
  sql: (s) => `ALTER TABLE ${s}.gpus ADD COLUMN mig boolean NOT NULL DEFAULT false;`,
};
