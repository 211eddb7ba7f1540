// Workload 6: plan-and-commit 10,000 mixed-size requests into a 5,000-node × 8-GPU ClusterState
// (the cluster size of kube-scheduler's scalability tests). One call = one batch on a fresh state;
// building the state is left out of the timing; ops/s are decisions per second.
import type { BackendName, Case, Suite } from './harness.js';
import { clusterNodes, clusterRequests } from './inputs.js';
import type { Engine } from '../src/engine.js';

/** Nodes, GPUs per node and requests of the full workload (quick mode uses the same cluster). */
export const CLUSTER_SHAPE = { nodes: 5000, gpusPerNode: 8, requests: 10_000 } as const;

/** Cluster suite. */
export const suite: Suite = {
  family: 'cluster',
  description: 'ClusterState plan + commit of the best option, 10,000 requests into 5,000 nodes × 8 GPUs',
  cases({ engines, quick }) {
    const nodes = clusterNodes(CLUSTER_SHAPE.nodes, CLUSTER_SHAPE.gpusPerNode);
    const requests = clusterRequests(quick ? 100 : CLUSTER_SHAPE.requests);
    const perOp: Record<BackendName, number[]> = { wasm: [], ts: [] };
    const batch = (engine: Engine, backend: BackendName) => () => {
      const state = engine.createClusterState({ nodes });
      const lat = perOp[backend];
      let total = 0;
      for (const r of requests) {
        const t0 = performance.now();
        const plan = state.plan(r);
        if (plan.options.length > 0) state.commit(plan.options[0]);
        const dt = performance.now() - t0;
        total += dt;
        lat.push(dt);
      }
      return { overriddenDuration: total };
    };
    const c: Case = {
      family: 'cluster',
      name: `${CLUSTER_SHAPE.nodes.toLocaleString('en-US')} nodes × ${CLUSTER_SHAPE.gpusPerNode} GPUs, ${requests.length.toLocaleString('en-US')} requests`,
      unit: 'decision',
      opsPerCall: requests.length,
      perOpLatencies: perOp,
      compareAnswers: false,
      run: { wasm: batch(engines.wasm, 'wasm'), ts: batch(engines.ts, 'ts') },
      limits: { time: 0, iterations: 3, warmupIterations: 1 },
    };
    return [c];
  },
};
