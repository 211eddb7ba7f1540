// The benchmark harness: suites describe cases (one workload, a function per backend, optionally
// the upstream reference); the harness times them with tinybench and reduces the statistics.
import { Bench, type Fn, type Task } from 'tinybench';
import type { Engine } from '../src/engine.js';

/** The two backends every case is timed on. */
export type BackendName = 'wasm' | 'ts';

/** Both backends. */
export const BACKENDS: readonly BackendName[] = ['wasm', 'ts'];

/** What a suite gets: one engine per backend and the run mode. */
export type SuiteContext = {
  /** One engine per backend, shared by every suite of a run. */
  engines: Record<BackendName, Engine>;
  /** Quick mode: few iterations, for the smoke test and a first look. */
  quick: boolean;
};

/** How the upstream reference algorithm of a case is timed. */
export type ReferenceSpec = {
  /** What the reference is, e.g. "go-gpuallocator BestEffort (partition enumeration)". */
  name: string;
} & (
  | {
      /** Timed directly with tinybench, like the backends. */
      method: 'measured';
      fn: Fn;
    }
  | {
      /** Too slow to run in full: time `sample()` (which enumerates a bounded prefix) and scale up. */
      method: 'extrapolated';
      /** Runs the bounded prefix; returns how many units it did and how many the full run has. */
      sample: () => { done: number; total: number; unit: string };
      /** Untimed call before the samples (JIT warm-up). */
      warmup?: () => void;
      /** Samples to take; the fastest counts (the estimate most favourable to the reference). Default 1. */
      repeat?: number;
    }
);

/** One workload. `run[backend]` performs one operation (or one batch, see opsPerCall). */
export type Case = {
  /** The suite it belongs to, e.g. 'aligned'. */
  family: string;
  /** The workload within the family, e.g. 'dgx2 besteffort size=3'. */
  name: string;
  /**
   * One operation on each backend (sync or async). May return tinybench's `{ overriddenDuration }`
   * (ms) to leave setup out. A case with one entry is backend-independent code, timed once.
   */
  run: Partial<Record<BackendName, Fn>>;
  /** One line shown under the table (for example why a backend is missing). */
  note?: string;
  /** Operations done by one call of `run` (default 1); ops/s and latencies are per operation. */
  opsPerCall?: number;
  /** Unit of one operation in the table ('op' unless told). */
  unit?: string;
  /** Per-operation latencies in ms, when a call does many operations and records each one. */
  perOpLatencies?: Record<BackendName, number[]>;
  /** The upstream algorithm doing the same job, when there is one. */
  reference?: ReferenceSpec;
  /** false when the two backends' return values are not comparable (timings, not answers). Default true. */
  compareAnswers?: boolean;
  /**
   * The search alone: the kernel call that one call of `run` makes, on the same input (each backend's
   * marshaling into its kernels included), without reading and validating the request or building
   * the public result. Timed like `run`, to show how much of an end-to-end call the search is.
   */
  search?: Partial<Record<BackendName, Fn>>;
  /** Tinybench limits for this case when the defaults would take too long. */
  limits?: { time?: number; iterations?: number; warmupIterations?: number };
};

/** Statistics of one backend (or the reference) on one case. Latencies in microseconds. */
export type Timing = {
  /** Operations per second (mean). */
  opsPerSec: number;
  /** Median latency of one operation, in microseconds. */
  medianUs: number;
  /** 99th-percentile latency of one operation, in microseconds. */
  p99Us: number;
  /** Relative margin of error of the mean, in percent. */
  rme: number;
  /** How many timed calls the statistics come from. */
  samples: number;
};

/** The reference's timing: measured like a backend, or extrapolated from a bounded sample. */
export type ReferenceTiming = {
  /** What the reference is. */
  name: string;
  /** Full reference runs per second (1 / secondsPerOp). */
  opsPerSec: number;
  /** Seconds one full reference run takes: the median when measured, the scaled-up sample when extrapolated. */
  secondsPerOp: number;
  /** 'measured' or 'extrapolated' from `sampled` of `total` units. */
  method: 'measured' | 'extrapolated';
  /** Units (e.g. partitions) timed, when extrapolated. */
  sampled?: number;
  /** Units of the full run, when extrapolated. */
  total?: number;
  /** What a unit is ('partitions'). */
  unit?: string;
  /** Seconds the sample took, when extrapolated. */
  sampleSeconds?: number;
};

/** Result of one case. */
export type CaseResult = {
  family: string;
  name: string;
  unit: string;
  /** Per backend; absent when that backend errored (see `errors`). */
  backends: Partial<Record<BackendName, Timing>>;
  /** ts median latency ÷ wasm median latency: above 1 means the wasm core is faster (medians: robust to a noisy machine). */
  wasmOverTs: number | null;
  /** wasm ops/s ÷ ts ops/s (means: includes GC pauses and machine noise). */
  wasmOverTsMean: number | null;
  /** The upstream reference and our speedup over it (reference seconds per call ÷ our median), when there is one. */
  reference: (ReferenceTiming & { wasmSpeedup: number | null; tsSpeedup: number | null }) | null;
  /** The case's note, if any. */
  note?: string;
  /**
   * Kernel calls one call of the case made on each backend (counted on the warm-up call). 0 on both:
   * both backends ran the same TypeScript and no kernel, so their ratio is a tie by construction.
   */
  kernelCalls?: Partial<Record<BackendName, number>>;
  /** The case's search alone (see Case.search), per backend, and ts median ÷ wasm median. */
  search?: { backends: Partial<Record<BackendName, Timing>>; wasmOverTs: number | null };
  /** Error messages by backend, when a backend threw. */
  errors?: CaseErrors;
};

/** Tinybench options for the whole run. */
export function benchOptions(quick: boolean): { time: number; iterations: number; warmupTime: number; warmupIterations: number } {
  return quick ? { time: 20, iterations: 2, warmupTime: 0, warmupIterations: 1 } : { time: 800, iterations: 10, warmupTime: 150, warmupIterations: 5 };
}

function _gc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
}

function _percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function _timing(task: Task, opsPerCall: number, perOp: number[] | undefined): Timing | string {
  const r = task.result;
  if (r.state === 'errored') return r.error.message;
  if (r.state !== 'completed') return `task ${r.state}`;
  const meanMs = r.latency.mean;
  let medianUs = (r.latency.p50 * 1000) / opsPerCall;
  let p99Us = (r.latency.p99 * 1000) / opsPerCall;
  if (perOp !== undefined && perOp.length > 0) {
    const sorted = Float64Array.from(perOp).sort();
    medianUs = _percentile(Array.from(sorted), 0.5) * 1000;
    p99Us = _percentile(Array.from(sorted), 0.99) * 1000;
  }
  return { opsPerSec: (1000 / meanMs) * opsPerCall, medianUs, p99Us, rme: r.latency.rme, samples: r.latency.samplesCount };
}

/** Times the reference of a case. */
export async function timeReference(ref: ReferenceSpec, quick: boolean): Promise<ReferenceTiming> {
  if (ref.method === 'extrapolated') {
    ref.warmup?.();
    let best: { secondsPerUnit: number; done: number; total: number; unit: string; sampleSeconds: number } | undefined;
    for (let k = 0; k < Math.max(1, quick ? 1 : (ref.repeat ?? 1)); k++) {
      _gc();
      const t0 = performance.now();
      const { done, total, unit } = ref.sample();
      const sampleSeconds = (performance.now() - t0) / 1000;
      if (done <= 0) throw new Error('the reference sample did no work');
      if (best === undefined || sampleSeconds / done < best.secondsPerUnit) best = { secondsPerUnit: sampleSeconds / done, done, total, unit, sampleSeconds };
    }
    const b = best!;
    const secondsPerOp = b.secondsPerUnit * b.total;
    return { name: ref.name, opsPerSec: 1 / secondsPerOp, secondsPerOp, method: 'extrapolated', sampled: b.done, total: b.total, unit: b.unit, sampleSeconds: b.sampleSeconds };
  }
  const bench = new Bench({ ...benchOptions(quick), setup: _gc });
  bench.add('reference', ref.fn);
  await bench.run();
  const t = _timing(bench.tasks[0]!, 1, undefined);
  if (typeof t === 'string') throw new Error(t);
  const secondsPerOp = t.medianUs / 1e6;
  return { name: ref.name, opsPerSec: 1 / secondsPerOp, secondsPerOp, method: 'measured' };
}

/** Times one case on both backends (and its reference); never throws, errors are recorded. */
export async function runCase(c: Case, quick: boolean): Promise<CaseResult> {
  const opsPerCall = c.opsPerCall ?? 1;
  const options = benchOptions(quick);
  if (c.limits !== undefined && !quick) Object.assign(options, c.limits);
  const bench = new Bench({ ...options, setup: _gc });
  for (const b of BACKENDS) {
    const fn = c.run[b];
    if (fn === undefined) continue;
    bench.add(b, fn, {
      beforeAll(mode) {
        if (mode === 'run' && c.perOpLatencies !== undefined) c.perOpLatencies[b].length = 0;
      },
    });
  }
  for (const b of BACKENDS) {
    const fn = c.search?.[b];
    if (fn !== undefined) bench.add(`search:${b}`, fn);
  }
  await bench.run();
  const result: CaseResult = { family: c.family, name: c.name, unit: c.unit ?? 'op', backends: {}, wasmOverTs: null, wasmOverTsMean: null, reference: null };
  if (c.note !== undefined) result.note = c.note;
  const errors: CaseErrors = {};
  const addError = (b: BackendName, message: string): void => addCaseError(errors, b, message);
  const search: Partial<Record<BackendName, Timing>> = {};
  for (const task of bench.tasks) {
    if (task.name.startsWith('search:')) {
      const b = task.name.slice('search:'.length) as BackendName;
      const t = _timing(task, 1, undefined);
      if (typeof t === 'string') addError(b, `search: ${t}`);
      else search[b] = t;
      continue;
    }
    const b = task.name as BackendName;
    const t = _timing(task, opsPerCall, c.perOpLatencies?.[b]);
    if (typeof t === 'string') addError(b, t);
    else result.backends[b] = t;
  }
  if (c.search !== undefined) result.search = { backends: search, wasmOverTs: search.wasm !== undefined && search.ts !== undefined ? search.ts.medianUs / search.wasm.medianUs : null };
  const w = result.backends.wasm;
  const s = result.backends.ts;
  if (w !== undefined && s !== undefined) {
    result.wasmOverTs = s.medianUs / w.medianUs;
    result.wasmOverTsMean = w.opsPerSec / s.opsPerSec;
  }
  if (c.reference !== undefined) {
    try {
      const ref = await timeReference(c.reference, quick);
      const speedup = (t: Timing | undefined): number | null => (t === undefined ? null : (ref.secondsPerOp * 1e6) / t.medianUs);
      result.reference = { ...ref, wasmSpeedup: speedup(w), tsSpeedup: speedup(s) };
    } catch (error) {
      errors.reference = error instanceof Error ? error.message : String(error);
    }
  }
  if (Object.keys(errors).length > 0) result.errors = errors;
  return result;
}

/** One kernel call: the kernel's name and copies of its arguments. */
export type KernelCall = { name: string; args: unknown[] };

/**
 * Watches every kernel call `engine` makes (each function of engine.kernels but memoryPages) until
 * restore() puts the kernels back: `count()` calls so far and, with `record`, each call in `calls`
 * with a structured clone of its arguments (a capability reuses its scratch arrays from call to call;
 * a clone keeps views that share a buffer sharing one, as the node state's block and its parts do).
 * Without `record` nothing is kept but the count (the warm-up: copies of a 100,000-ID sort's
 * arguments would stay alive through the timing). For the warm-up and for setting up cases, never
 * while timing.
 */
export function watchKernels(engine: Engine, record = true): { calls: KernelCall[]; count: () => number; restore: () => void } {
  const kernels = engine.kernels as unknown as Record<string, unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const calls: KernelCall[] = [];
  let count = 0;
  for (const name of Object.keys(kernels)) {
    const fn = kernels[name];
    if (typeof fn !== 'function' || name === 'memoryPages') continue;
    originals.set(name, fn as (...args: unknown[]) => unknown);
    kernels[name] = function (this: unknown, ...args: unknown[]): unknown {
      count++;
      if (record) calls.push({ name, args: structuredClone(args) });
      return (fn as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return {
    calls,
    count: () => count,
    restore: () => {
      for (const [name, fn] of originals) kernels[name] = fn;
    },
  };
}

/**
 * A case's `search` (see Case.search): the kernel call that one call of `run[b]` makes on each
 * backend, replayed on copies of its arguments. Undefined when it makes none (the call is answered
 * without a search); an error when it makes more than one (the search alone would be ambiguous).
 */
export function searchOf(engines: Record<BackendName, Engine>, run: Record<BackendName, () => unknown>): Case['search'] {
  const search: Partial<Record<BackendName, Fn>> = {};
  const made: string[] = [];
  for (const b of BACKENDS) {
    const watch = watchKernels(engines[b]);
    try {
      run[b]();
    } finally {
      watch.restore();
    }
    made.push(`${watch.calls.length} on ${b}`);
    if (watch.calls.length > 1) throw new Error(`searchOf: one call made ${watch.calls.length} kernel calls on ${b} (${watch.calls.map((c) => c.name).join(', ')})`);
    if (watch.calls.length === 0) continue;
    const { name, args } = watch.calls[0]!; // exactly one call (checked above)
    const kernels = engines[b].kernels as unknown as Record<string, (...a: unknown[]) => unknown>;
    // The kernel (restored, not the watcher) bound to its arguments once: a timed call is that call alone.
    search[b] = kernels[name]!.bind(kernels, ...args) as Fn;
  }
  const searched = BACKENDS.filter((b) => search[b] !== undefined).length;
  if (searched === 0) return undefined;
  // One backend searching where the other answers without a search would leave the row without its search column.
  if (searched < BACKENDS.length) throw new Error(`searchOf: the backends disagree on searching (kernel calls: ${made.join(', ')})`);
  return search;
}

/** A case's error messages by backend (and reference). */
export type CaseErrors = Partial<Record<BackendName | 'reference', string>>;

/** Adds `message` to `errors[b]`, after any message already there (a backend's run and its search may both fail). */
export function addCaseError(errors: CaseErrors, b: BackendName, message: string): void {
  errors[b] = errors[b] === undefined ? message : `${errors[b]}; ${message}`;
}

/** True when neither backend called a kernel in the case (see CaseResult.kernelCalls): a tie by construction. */
export function noKernelCall(w: CaseResult): boolean {
  return w.kernelCalls?.wasm === 0 && w.kernelCalls?.ts === 0;
}

/** True when `error` is a capability placeholder that has not landed yet. */
export function isNotBuilt(error: unknown): boolean {
  return error instanceof Error && /not built yet/.test(error.message);
}

/** One workload family: a file `bench/<family>.bench.ts` exports one of these as `suite`. */
export type Suite = {
  /** Family name, e.g. 'natural-sort'. */
  family: string;
  /** One line: what the family measures. */
  description: string;
  /** Builds the cases (inputs generated here, outside the timing); throws "not built yet" while the capability is a placeholder. */
  cases(ctx: SuiteContext): Case[] | Promise<Case[]>;
};
