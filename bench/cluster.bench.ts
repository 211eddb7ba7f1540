// Workload 6: ClusterState decisions. The plain row (kept for comparison, issue 9): plan-and-commit
// 10,000 mixed-size requests into 5,000 nodes × 8 GPUs with no topology, no used memory, no stale
// slot and one TP size per request. The realistic rows (issue 19, see cluster-inputs.ts): every node
// a preset machine with its topology, 30 % of GPUs partly used, 5 % of nodes with a stale slot,
// requests accepting several TP sizes; at 5,000 and 50,000 nodes; a fill run (plan + commit on a
// fresh state) and a churn run (plan, commit, release in steady state, the cluster ~80 % full).
// Building a state is left out of the decision timings; it has rows of its own (create, toJSON +
// restore). ops/s are decisions per second.

import type { ClusterNode } from '../src/cluster/node.js';
import type { Engine } from '../src/engine.js';
import { filledNodes, realisticNodes, realisticRequests } from './cluster-inputs.js';
import type { BackendName, Case, Suite } from './harness.js';
import { clusterNodes, clusterRequests } from './inputs.js';

/** Nodes, GPUs per node and requests of the plain workload (quick mode uses the same cluster). */
export const CLUSTER_SHAPE = { nodes: 5000, gpusPerNode: 8, requests: 10_000 } as const;

/** Node counts of the realistic rows. */
export const REALISTIC_NODES = [5000, 50_000] as const;

/** Share of the cluster's free memory the churn run keeps allocated. */
export const CHURN_FILL = 0.8;

/** Row names the targets read. */
export const CLUSTER_ROWS = {
  plain: (n: number) => `plain ${n.toLocaleString('en-US')} nodes × 8 GPUs, fill`,
  fill: (n: number) => `realistic ${n.toLocaleString('en-US')} nodes, fill`,
  churn: (n: number) => `realistic ${n.toLocaleString('en-US')} nodes, churn at ${Math.round(CHURN_FILL * 100)} %`,
  create: (n: number) => `createClusterState, ${n.toLocaleString('en-US')} realistic nodes`,
  roundTrip: (n: number) => `toJSON + restore, ${n.toLocaleString('en-US')} realistic nodes`,
  migFill: (n: number) => `realistic ${n.toLocaleString('en-US')} nodes, a tenth with 3 MIG GPUs, fill`,
  migAllowed: (n: number) => `realistic ${n.toLocaleString('en-US')} nodes, a tenth with 3 MIG GPUs, plan with allowMig`,
} as const;

/** The nodes with GPUs 0-2 of every tenth node in MIG mode (plans leave them out unless allowMig). */
function withMig(nodes: ClusterNode[]): ClusterNode[] {
  return nodes.map((node, k) => (k % 10 === 0 ? { ...node, gpus: node.gpus.map((g) => (g.index <= 2 ? { ...g, mig: true } : g)) } : node));
}

/** What the memory / round-trip probe found (filled in when the suite's cases are made). */
export const clusterProbe: { bytesPerNode: number | null; churnBytesPerNode: number | null; roundTripExact: boolean | null; nodes: number } = {
  bytesPerNode: null,
  churnBytesPerNode: null,
  roundTripExact: null,
  nodes: 0,
};

type Runner = (engine: Engine, backend: BackendName) => () => { overriddenDuration: number };

/** Plan + commit of the best option for each request, on a fresh state of `nodes`. */
function fill(nodes: ClusterNode[], requests: ReturnType<typeof realisticRequests>, perOp: Record<BackendName, number[]>): Runner {
  return (engine, backend) => () => {
    const state = engine.createClusterState({ nodes });
    const lat = perOp[backend];
    let total = 0;
    for (const r of requests) {
      const t0 = performance.now();
      const plan = state.plan(r);
      if (plan.options.length > 0) state.commit(plan.options[0]!);
      const dt = performance.now() - t0;
      total += dt;
      lat.push(dt);
    }
    return { overriddenDuration: total };
  };
}

/**
 * Steady state from `filled` (nodes whose slots hold about CHURN_FILL of the free memory, see
 * filledNodes): each decision plans a request and commits its best option, then releases slots in
 * the seeded release order (new slots join its end) while more than the starting total is allocated.
 * Releasing is part of the timed decision.
 */
function churn(filled: ReturnType<typeof filledNodes>, requests: ReturnType<typeof realisticRequests>, perOp: Record<BackendName, number[]>, heap?: { before: number; after: number }): Runner {
  return (engine, backend) => () => {
    const state = engine.createClusterState({ nodes: filled.nodes });
    const queue = filled.order.slice();
    let head = 0;
    const target = queue.reduce((a, s) => a + s.bytes, 0);
    let allocated = target;
    const lat = perOp[backend];
    let total = 0;
    if (heap !== undefined && backend === 'ts') heap.before = usedHeap();
    for (const r of requests) {
      const t0 = performance.now();
      const plan = state.plan(r);
      if (plan.options.length > 0) {
        const o = plan.options[0]!;
        const bytes = o.memoryPerGpu * o.gpus.length;
        queue.push({ id: state.commit(o), bytes });
        allocated += bytes;
      }
      while (allocated > target && head < queue.length) {
        const s = queue[head++]!;
        allocated -= s.bytes;
        try {
          state.release(s.id);
        } catch {
          // evicted by a commit since
        }
      }
      const dt = performance.now() - t0;
      total += dt;
      lat.push(dt);
    }
    if (heap !== undefined && backend === 'ts') heap.after = usedHeap();
    return { overriddenDuration: total };
  };
}

/** Heap in use after a full collection (needs --expose-gc; else without one). */
function usedHeap(): number {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g !== undefined) {
    g();
    g();
  }
  return process.memoryUsage().heapUsed;
}

/** Cluster suite. */
export const suite: Suite = {
  family: 'cluster',
  description: 'ClusterState decisions: the plain 5,000 × 8-GPU cluster, and realistic clusters (preset topologies, used memory, stale slots, TP sets) at 5,000 and 50,000 nodes',
  cases({ engines, quick }) {
    const cases: Case[] = [];
    const decisions = quick ? 200 : CLUSTER_SHAPE.requests;
    const timed = { time: 0, iterations: quick ? 1 : 3, warmupIterations: 1 };
    {
      const nodes = clusterNodes(CLUSTER_SHAPE.nodes, CLUSTER_SHAPE.gpusPerNode);
      const requests = clusterRequests(quick ? 100 : CLUSTER_SHAPE.requests);
      const perOp: Record<BackendName, number[]> = { wasm: [], ts: [] };
      const run = fill(nodes, requests, perOp);
      cases.push({
        family: 'cluster',
        name: CLUSTER_ROWS.plain(CLUSTER_SHAPE.nodes),
        unit: 'decision',
        opsPerCall: requests.length,
        perOpLatencies: perOp,
        compareAnswers: false,
        run: { wasm: run(engines.wasm, 'wasm'), ts: run(engines.ts, 'ts') },
        limits: timed,
      });
    }
    const requests = realisticRequests(decisions);
    {
      // GPUs in MIG mode: plans that leave them out (the indexes see them as full) against the
      // plain realistic fill above, and plans that allow them (a MIG-blind copy of the state per plan).
      const n = REALISTIC_NODES[0];
      const nodes = withMig(realisticNodes(n));
      const perOp: Record<BackendName, number[]> = { wasm: [], ts: [] };
      const run = fill(nodes, requests, perOp);
      cases.push({
        family: 'cluster',
        name: CLUSTER_ROWS.migFill(n),
        unit: 'decision',
        opsPerCall: requests.length,
        perOpLatencies: perOp,
        compareAnswers: false,
        run: { wasm: run(engines.wasm, 'wasm'), ts: run(engines.ts, 'ts') },
        limits: timed,
      });
      const states = { wasm: engines.wasm.createClusterState({ nodes }), ts: engines.ts.createClusterState({ nodes }) };
      const allowed = requests.slice(0, quick ? 5 : 50).map((r) => ({ ...r, allowMig: true }));
      const plans = (b: BackendName) => () => {
        for (const r of allowed) states[b].plan(r);
      };
      cases.push({
        family: 'cluster',
        name: CLUSTER_ROWS.migAllowed(n),
        unit: 'plan',
        opsPerCall: allowed.length,
        compareAnswers: false,
        run: { wasm: plans('wasm'), ts: plans('ts') },
        limits: { time: 0, iterations: 1, warmupIterations: 0 },
      });
    }
    for (const n of REALISTIC_NODES) {
      const nodes = realisticNodes(n);
      {
        const perOp: Record<BackendName, number[]> = { wasm: [], ts: [] };
        const run = fill(nodes, requests, perOp);
        cases.push({
          family: 'cluster',
          name: CLUSTER_ROWS.fill(n),
          unit: 'decision',
          opsPerCall: requests.length,
          perOpLatencies: perOp,
          compareAnswers: false,
          run: { wasm: run(engines.wasm, 'wasm'), ts: run(engines.ts, 'ts') },
          limits: timed,
        });
      }
      {
        const perOp: Record<BackendName, number[]> = { wasm: [], ts: [] };
        const last = n === REALISTIC_NODES[REALISTIC_NODES.length - 1];
        const heap = { before: 0, after: 0 };
        const run = churn(filledNodes(nodes, CHURN_FILL), requests, perOp, last ? heap : undefined);
        const c: Case = {
          family: 'cluster',
          name: CLUSTER_ROWS.churn(n),
          unit: 'decision',
          opsPerCall: requests.length,
          perOpLatencies: perOp,
          compareAnswers: false,
          run: { wasm: run(engines.wasm, 'wasm'), ts: run(engines.ts, 'ts') },
          limits: { time: 0, iterations: 1, warmupIterations: 0 },
        };
        cases.push(c);
        if (last) {
          // Filled in by the run (the note is read after it).
          Object.defineProperty(c, 'note', {
            enumerable: true,
            get: () => (heap.before > 0 ? `heap across the churn run (ts): ${((heap.after - heap.before) / n).toFixed(1)} bytes per node` : undefined),
          });
        }
      }
      {
        cases.push({
          family: 'cluster',
          name: CLUSTER_ROWS.create(n),
          unit: 'state',
          compareAnswers: false,
          run: { wasm: () => void engines.wasm.createClusterState({ nodes }), ts: () => void engines.ts.createClusterState({ nodes }) },
          limits: { time: 0, iterations: quick ? 1 : 3, warmupIterations: 1 },
        });
      }
      {
        const states = { wasm: engines.wasm.createClusterState({ nodes }), ts: engines.ts.createClusterState({ nodes }) };
        const roundTrip = (b: BackendName) => () => {
          const text = JSON.stringify(states[b].toJSON());
          const back = (b === 'wasm' ? engines.wasm : engines.ts).restoreClusterState(text);
          if (JSON.stringify(back.toJSON()) !== text) throw new Error(`toJSON / restore of ${n} nodes did not round-trip exactly`);
        };
        cases.push({
          family: 'cluster',
          name: CLUSTER_ROWS.roundTrip(n),
          unit: 'round trip',
          compareAnswers: false,
          run: { wasm: roundTrip('wasm'), ts: roundTrip('ts') },
          limits: { time: 0, iterations: 1, warmupIterations: 0 },
        });
      }
      if (n === REALISTIC_NODES[REALISTIC_NODES.length - 1]) {
        // Bytes per node of a state: heap after a collection, before and after creating one.
        const before = usedHeap();
        const state = engines.ts.createClusterState({ nodes });
        state.plan(requests[0]!);
        const after = usedHeap();
        clusterProbe.bytesPerNode = (after - before) / n;
        clusterProbe.nodes = n;
        const text = JSON.stringify(state.toJSON());
        clusterProbe.roundTripExact = JSON.stringify(engines.ts.restoreClusterState(text).toJSON()) === text;
        void state;
      }
    }
    return cases;
  },
};
