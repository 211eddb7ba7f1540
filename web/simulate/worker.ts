// The Simulate view's worker: runs gpualloc's fleet simulator (the same engine and wasm as the CLI)
// off the page's thread and posts each run's curves back, and its progress at most five times a
// second (the share done, the pace, the time left), so the page stays responsive on long runs.

import { RunProgress } from '../../src/fleet/progress.ts';
import { AllocationError, type Backend, type Engine, type FleetPolicyName, openEngine, parseNodeCsv, parsePodCsv, scaleTrace } from '../../src/index.ts';

/** What the page asks for. */
export type SimulateJob = { nodesName: string; nodesText: string; podsName: string; podsText: string; policies: FleetPolicyName[]; seeds: number[]; backend: Backend; scale: number };
/** What the worker answers. */
export type WorkerMessage =
  | { type: 'progress'; fraction: number; label: string; podsPerSecond: number; leftMs: number }
  | { type: 'run'; policy: string; seed: number; pods: number; failed: number; capacityMilli: number; ms: number; allocation: Record<string, number>; fragmentation: Record<string, number> }
  | { type: 'done'; ms: number; backend: Backend; nodes: number }
  | { type: 'error'; code: string; message: string };

const engines = new Map<Backend, Promise<Engine>>();
const post = (m: WorkerMessage) => (self as unknown as { postMessage(m: WorkerMessage): void }).postMessage(m);

self.onmessage = async (event: MessageEvent<SimulateJob>) => {
  const job = event.data;
  try {
    if (!engines.has(job.backend)) engines.set(job.backend, openEngine({ backend: job.backend }));
    const engine = await (engines.get(job.backend) as Promise<Engine>);
    const { nodes, pods } = scaleTrace(parseNodeCsv(job.nodesName, job.nodesText), parsePodCsv(job.podsName, job.podsText), job.scale);
    const progress = new RunProgress(job.policies.length * job.seeds.length, 200);
    const start = performance.now();
    let k = 0;
    for (const policy of job.policies) {
      for (const seed of job.seeds) {
        const label = `${policy} seed ${seed}`;
        const run0 = performance.now();
        const run = engine.simulateFleet({ nodes, pods, policy, seed, fragmentation: true }, (done, all) => {
          if (!progress.pod(k, done, all)) return;
          const p = progress.snapshot();
          post({ type: 'progress', fraction: p.fraction, label, podsPerSecond: p.podsPerSecond, leftMs: p.leftMs });
        });
        post({
          type: 'run',
          policy,
          seed,
          pods: run.pods,
          failed: run.failed,
          capacityMilli: run.capacityMilli,
          ms: performance.now() - run0,
          allocation: run.allocation,
          fragmentation: run.fragmentation ?? {},
        });
        k++;
      }
    }
    post({ type: 'done', ms: performance.now() - start, backend: job.backend, nodes: nodes.length });
  } catch (error) {
    post({ type: 'error', code: error instanceof AllocationError ? error.code : 'ERROR', message: error instanceof Error ? error.message : String(error) });
  }
};
