// The DRA page's replay worker: draws the stream and replays it under first-fit and scored off the
// page's thread (a DynamicMIG fleet takes the engine seconds), posting its progress at most five
// times a second and then both runs.
import { AllocationError, type DraDump, type Engine, type NodeScore, openEngine } from '../../src/index.ts';
import { readGpus } from './counters.ts';
import { claimStream, type ReplayRun, replay, type StreamSummary } from './replay.ts';

/** What the page asks for. */
export type ReplayJob = { dump: DraDump; nodes: string[]; seed: number; nodeScores: Readonly<Record<'first-fit' | 'scored', NodeScore>> };
/** What the worker answers: progress, the stream (without its claim objects) and both runs, or an error. */
export type ReplayMessage =
  | { type: 'progress'; label: string; done: number; all: number }
  | { type: 'done'; stream: StreamSummary; runs: ReplayRun[]; ms: number }
  | { type: 'error'; message: string };

let engine: Promise<Engine> | undefined;
const post = (m: ReplayMessage): void => (self as unknown as { postMessage(m: ReplayMessage): void }).postMessage(m);

self.onmessage = async (event: MessageEvent<ReplayJob>) => {
  const job = event.data;
  try {
    engine ??= openEngine({ backend: 'ts' });
    const e = await engine;
    const started = performance.now();
    const map = readGpus(job.dump.slices, job.nodes);
    post({ type: 'progress', label: 'drawing the stream', done: 0, all: 1 });
    const stream = claimStream(e, job.dump, map, job.seed);
    if (stream.claims.length === 0) throw new Error('replay: no claim of the dump fits on the empty fleet, so there is no stream to replay');
    let last = 0;
    const runs = (['first-fit', 'scored'] as const).map((mode, m) =>
      replay(e, job.dump, map, stream, mode, job.nodeScores[mode], (done) => {
        const now = performance.now();
        if (now - last < 200 && done < stream.claims.length) return;
        last = now;
        post({ type: 'progress', label: mode, done: m * stream.claims.length + done, all: 2 * stream.claims.length });
      }),
    );
    const { claims, ...rest } = stream;
    post({ type: 'done', stream: { ...rest, count: claims.length }, runs, ms: performance.now() - started });
  } catch (error) {
    post({ type: 'error', message: error instanceof AllocationError || error instanceof Error ? error.message : String(error) });
  }
};
