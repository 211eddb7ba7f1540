// Progress over a set of simulation runs (policies × seeds), for `gpualloc simulate` and the
// Simulate page: how far along (each run weighs the same), pod attempts per second, the time left,
// and when the next report is due (at most one per `intervalMs`, so a long run reports steadily and a
// short one not at all before it ends).

/** Where a set of runs stands. */
export type ProgressSnapshot = {
  /** Run being played (0-based) and the number of runs. */
  run: number;
  runs: number;
  /** Pod attempts of the current run done, and its total. */
  done: number;
  total: number;
  /** Share of the whole set done, 0..1. */
  fraction: number;
  /** Milliseconds since the set started. */
  elapsedMs: number;
  /** Milliseconds left at the pace so far (NaN before any pod). */
  leftMs: number;
  /** Pod attempts per second over the set so far. */
  podsPerSecond: number;
};

/** Tracks a set of `runs` runs; `pod(run, done, total)` after every attempt says whether a report is due. */
export class RunProgress {
  private readonly started: number;
  private next: number;
  private attempts = 0;
  private state: ProgressSnapshot;

  /**
   * @param runs how many runs the set has
   * @param intervalMs the least time between two reports (the first comes after one interval)
   * @param now the clock, in milliseconds
   */
  constructor(
    runs: number,
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
    this.next = this.started + intervalMs;
    this.state = { run: 0, runs, done: 0, total: 0, fraction: 0, elapsedMs: 0, leftMs: NaN, podsPerSecond: 0 };
  }

  /** Pod `done` of `total` of run `run` was attempted; true when a report is due (then read snapshot()). */
  pod(run: number, done: number, total: number): boolean {
    this.attempts++;
    this.state.run = run;
    this.state.done = done;
    this.state.total = total;
    // The clock only every 64 attempts: a pod costs microseconds.
    if ((this.attempts & 63) !== 0 && done !== total) return false;
    const t = this.now();
    if (t < this.next) return false;
    this.next = t + this.intervalMs;
    return true;
  }

  /** The set as of the last pod. */
  snapshot(): ProgressSnapshot {
    const s = this.state;
    const elapsedMs = this.now() - this.started;
    const fraction = s.runs === 0 ? 1 : Math.min(1, (s.run + (s.total === 0 ? 0 : s.done / s.total)) / s.runs);
    return { ...s, fraction, elapsedMs, leftMs: fraction === 0 ? NaN : (elapsedMs * (1 - fraction)) / fraction, podsPerSecond: elapsedMs === 0 ? 0 : (this.attempts * 1000) / elapsedMs };
  }
}

/** A duration for a progress line: 950 ms, 12 s, 3 min 05 s. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
