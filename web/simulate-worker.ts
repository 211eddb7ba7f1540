// The Simulate view's worker: runs gpualloc's fleet simulator (the same engine and wasm as the CLI)
// off the page's thread and posts each run's curves back.
import { AllocationError, createEngine, parseNodeCsv, parsePodCsv, type Backend, type Engine } from '../src/index.ts';

/** What the page asks for. */
export type SimulateJob = { nodesName: string; nodesText: string; podsName: string; podsText: string; policies: string[]; seeds: number[]; backend: Backend };
/** What the worker answers. */
export type WorkerMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'run'; policy: string; seed: number; pods: number; failed: number; capacityMilli: number; allocation: Record<string, number>; fragmentation: Record<string, number> }
  | { type: 'done'; ms: number; backend: Backend }
  | { type: 'error'; code: string; message: string };

const engines = new Map<Backend, Promise<Engine>>();
const post = (m: WorkerMessage) => (self as unknown as { postMessage(m: WorkerMessage): void }).postMessage(m);

self.onmessage = async (event: MessageEvent<SimulateJob>) => {
  const job = event.data;
  try {
    if (!engines.has(job.backend)) engines.set(job.backend, createEngine({ backend: job.backend }));
    const engine = await (engines.get(job.backend) as Promise<Engine>);
    const nodes = parseNodeCsv(job.nodesName, job.nodesText);
    const pods = parsePodCsv(job.podsName, job.podsText);
    const total = job.policies.length * job.seeds.length;
    const start = performance.now();
    let k = 0;
    for (const policy of job.policies) {
      for (const seed of job.seeds) {
        const run = engine.simulateFleet({ nodes, pods, policy, seed, fragmentation: true }, (done, all) => {
          if (done % 1000 === 0) post({ type: 'progress', done: k + done / all, total });
        });
        post({ type: 'run', policy, seed, pods: run.pods, failed: run.failed, capacityMilli: run.capacityMilli, allocation: run.allocation, fragmentation: run.fragmentation ?? {} });
        k++;
        post({ type: 'progress', done: k, total });
      }
    }
    post({ type: 'done', ms: performance.now() - start, backend: job.backend });
  } catch (error) {
    post({ type: 'error', code: error instanceof AllocationError ? error.code : 'ERROR', message: error instanceof Error ? error.message : String(error) });
  }
};
