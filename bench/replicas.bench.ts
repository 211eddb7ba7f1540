// Workload 3: replicas, 8 GPUs × 16 replicas, 50% taken, size 8, each policy.

import { REPLICA_POLICIES } from '../src/devices/replicas.js';
import type { Suite } from './harness.js';
import { replicaRequest } from './inputs.js';

/** Replica suite. */
export const suite: Suite = {
  family: 'replicas',
  description: 'engine.allocateReplicas: 8 GPUs × 16 replicas (GPU-<uuid>::k), 64 of 128 taken, size 8',
  cases({ engines }) {
    return REPLICA_POLICIES.map((policy) => {
      const request = replicaRequest(policy, 8, 16, 0.5, 8);
      return {
        family: 'replicas',
        name: `8×16, 50% taken, size 8, ${policy}`,
        run: { wasm: () => engines.wasm.allocateReplicas(request), ts: () => engines.ts.allocateReplicas(request) },
      };
    });
  },
};
