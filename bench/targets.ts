// The issue's performance targets, checked against one run's report (ratios, so they hold on a noisy machine).

import { type CaseResult, noKernelCall } from './harness.js';
import type { BenchReport } from './run.js';

/** One target: met, missed, or not measurable in this run (null: its workload did not run). */
export type TargetResult = { target: string; met: boolean | null; detail: string };

/** Sizes at 16 GPUs whose besteffort search must beat the reference enumeration by 1000×. */
export const BESTEFFORT_TARGET_SIZES: readonly number[] = [2, 3, 4];

/** Minimum speedup of besteffort over the reference at those sizes. */
export const REFERENCE_SPEEDUP_TARGET = 1000;

/** Minimum wasm ÷ ts on the aligned and placement searches at 16 GPUs. */
export const SEARCH_SPEEDUP_TARGET = 3;

/** Most a 128k-token GGUF header's estimate may cost, as a multiple of the 1k-token header's (issue 18). */
export const ESTIMATE_HEADER_RATIO_TARGET = 3;

/** Minimum plan-and-commit decisions per second on the plain 5,000-node cluster. */
export const CLUSTER_DECISIONS_TARGET = 10_000;

/** Issue 19: realistic 5,000 nodes per decision within this factor of the plain cluster. */
export const REALISTIC_VS_PLAIN = 2;
/** Issue 19: realistic 50,000 nodes per decision within this factor of 5,000 nodes. */
export const SCALE_50K_VS_5K = 1.5;
/** Issue 19: p99 of a realistic decision at 5,000 nodes, in microseconds. */
export const REALISTIC_P99_US = 1000;
/** Issue 19: createClusterState of 50,000 realistic nodes, in milliseconds. */
export const CREATE_50K_MS = 1000;

/** Rows that read plain objects on every call: reported, not held to wasm ≥ ts (the prepared rows are). */
export function isPlainObjectRow(w: CaseResult): boolean {
  return / plain objects,/.test(w.name);
}

function _fmt(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits);
}

/** Is this case a 16-GPU aligned or placement search? (Their names carry the GPU count.) */
export function isSixteenGpuSearch(w: CaseResult): boolean {
  return (w.family === 'aligned' || w.family === 'placement') && /\b16 GPUs\b/.test(w.name);
}

/** Checks every target of issue 9 against `report`. */
export function evaluateTargets(report: Pick<BenchReport, 'workloads' | 'wasm'>): TargetResult[] {
  const out: TargetResult[] = [];
  const ws = report.workloads;

  const be = ws.filter((w) => w.family === 'aligned' && /\b16 GPUs\b/.test(w.name) && /besteffort/.test(w.name) && BESTEFFORT_TARGET_SIZES.some((k) => new RegExp(`size=${k}\\b`).test(w.name)));
  if (be.length === 0)
    out.push({ target: `besteffort at 16 GPUs, sizes ${BESTEFFORT_TARGET_SIZES.join(', ')}: ≥ ${REFERENCE_SPEEDUP_TARGET}× the reference enumeration`, met: null, detail: 'not measured in this run' });
  else {
    const parts = be.map((w) => `${w.name}: wasm ${_fmt(w.reference?.wasmSpeedup)}×, ts ${_fmt(w.reference?.tsSpeedup)}×${w.reference?.method === 'extrapolated' ? ' (reference extrapolated)' : ''}`);
    const met = be.length === BESTEFFORT_TARGET_SIZES.length && be.every((w) => (w.reference?.wasmSpeedup ?? 0) >= REFERENCE_SPEEDUP_TARGET);
    out.push({ target: `besteffort at 16 GPUs, sizes ${BESTEFFORT_TARGET_SIZES.join(', ')}: ≥ ${REFERENCE_SPEEDUP_TARGET}× the reference enumeration`, met, detail: parts.join('; ') });
  }

  // A workload where neither backend called a kernel ran the same TypeScript on both: its ratio is
  // noise around 1, a tie by construction. It counts as a tie, never as slower, and is not a search.
  const label = (w: CaseResult): string => `${w.family} / ${w.name} ${_fmt(w.wasmOverTs)}×`;
  const tiesNote = (ties: CaseResult[], what = ''): string => (ties.length === 0 ? '' : `; ${what}tie (no kernel call) on ${ties.length}: ${ties.map(label).join('; ')}`);

  // The end-to-end wasm ≥ ts target applies to the prepared path; plain-object rows are reported only.
  const both = ws.filter((w) => w.wasmOverTs !== null && !isPlainObjectRow(w));
  if (both.length === 0) out.push({ target: 'wasm ≥ ts on every workload', met: null, detail: 'no workload ran on both backends' });
  else {
    const ties = both.filter(noKernelCall);
    const timed = both.filter((w) => !noKernelCall(w));
    const slower = timed.filter((w) => (w.wasmOverTs as number) < 1);
    const lowest = timed.length === 0 ? 'n/a' : `${_fmt(Math.min(...timed.map((w) => w.wasmOverTs as number)))}×`;
    out.push({
      target: 'wasm ≥ ts on every workload',
      met: slower.length === 0,
      detail:
        (slower.length === 0
          ? `all ${timed.length} workloads that call a kernel (lowest ${lowest})`
          : `slower on ${slower.length} of ${timed.length} that call a kernel: ${slower.map(label).join('; ')}`) + tiesNote(ties),
    });
  }

  // Plain-object rows are reported, not targeted (issue 19): the prepared rows carry the 3× target.
  const sixteen = ws.filter((w) => isSixteenGpuSearch(w) && w.wasmOverTs !== null && !isPlainObjectRow(w));
  const search = sixteen.filter((w) => !noKernelCall(w));
  const notSearches = sixteen.filter(noKernelCall);
  if (search.length === 0)
    out.push({
      target: `wasm ≥ ${SEARCH_SPEEDUP_TARGET}× ts on the aligned and placement searches at 16 GPUs`,
      met: null,
      detail: 'not measured in this run' + tiesNote(notSearches, 'not searches, '),
    });
  else {
    const low = search.filter((w) => (w.wasmOverTs as number) < SEARCH_SPEEDUP_TARGET);
    out.push({
      target: `wasm ≥ ${SEARCH_SPEEDUP_TARGET}× ts on the aligned and placement searches at 16 GPUs`,
      met: low.length === 0 && ws.some((w) => w.family === 'aligned') && ws.some((w) => w.family === 'placement'),
      detail:
        (low.length === 0
          ? `all ${search.length} (lowest ${_fmt(Math.min(...search.map((w) => w.wasmOverTs as number)))}×)`
          : `below on ${low.length} of ${search.length}: ${low.map((w) => label(w) + (w.search?.wasmOverTs != null ? ` (the search alone ${_fmt(w.search.wasmOverTs)}×)` : '')).join('; ')}`) +
        tiesNote(notSearches, 'not searches, '),
    });
  }

  const cl = ws.filter((w) => w.family === 'cluster' && w.unit === 'decision' && /^plain /.test(w.name));
  if (cl.length === 0) out.push({ target: `cluster: ≥ ${CLUSTER_DECISIONS_TARGET.toLocaleString('en-US')} plan-and-commit decisions/s`, met: null, detail: 'not measured in this run' });
  else {
    const wasm = cl.map((w) => w.backends.wasm?.opsPerSec ?? 0);
    out.push({
      target: `cluster: ≥ ${CLUSTER_DECISIONS_TARGET.toLocaleString('en-US')} plan-and-commit decisions/s`,
      met: wasm.every((x) => x >= CLUSTER_DECISIONS_TARGET),
      detail: cl.map((w) => `wasm ${_fmt(w.backends.wasm?.opsPerSec)}/s, ts ${_fmt(w.backends.ts?.opsPerSec)}/s`).join('; '),
    });
  }

  out.push(...clusterTargets(ws));

  const large = ws.find((w) => w.family === 'estimate' && w.name.startsWith('70B GGUF header'));
  const small = ws.find((w) => w.family === 'estimate' && w.name.startsWith('70B shape, 1k-token GGUF header'));
  const headerTarget = `estimate: 128k-token GGUF header ≤ ${ESTIMATE_HEADER_RATIO_TARGET}× the 1k-token header`;
  const largeUs = large?.backends.ts?.medianUs;
  const smallUs = small?.backends.ts?.medianUs;
  if (largeUs === undefined || smallUs === undefined) out.push({ target: headerTarget, met: null, detail: 'not measured in this run' });
  else
    out.push({
      target: headerTarget,
      met: largeUs <= ESTIMATE_HEADER_RATIO_TARGET * smallUs,
      detail: `${_fmt(largeUs / smallUs)}× (${_fmt(largeUs / 1000)} ms vs ${_fmt(smallUs / 1000)} ms, medians)`,
    });

  const bytes = report.wasm.releaseBytes;
  out.push({
    target: 'release wasm ≤ 64 KiB',
    met: bytes === null ? null : bytes <= report.wasm.limitBytes,
    detail: bytes === null ? 'build/release.wasm missing' : `${bytes.toLocaleString('en-US')} bytes of ${report.wasm.limitBytes.toLocaleString('en-US')}`,
  });
  out.push({
    target: 'wasm memory pages after the suite = after warm-up',
    met: report.wasm.pagesAfterSuite === report.wasm.pagesAfterWarmup,
    detail: `${report.wasm.pagesAfterWarmup} after warm-up, ${report.wasm.pagesAfterSuite} after the suite`,
  });
  return out;
}

/** Mean microseconds per operation of a row on a backend (null when it did not run). */
function _usPerOp(w: CaseResult | undefined, b: 'wasm' | 'ts'): number | null {
  const ops = w?.backends[b]?.opsPerSec;
  return ops === undefined || ops <= 0 ? null : 1e6 / ops;
}

/** Issue 19's targets on the cluster rows (benchmark targets, not tests). */
export function clusterTargets(ws: CaseResult[]): TargetResult[] {
  const out: TargetResult[] = [];
  const find = (re: RegExp): CaseResult | undefined => ws.find((w) => w.family === 'cluster' && re.test(w.name));
  const plain = find(/^plain 5,000 nodes/);
  const fill5 = find(/^realistic 5,000 nodes, fill/);
  const fill50 = find(/^realistic 50,000 nodes, fill/);
  const churn5 = find(/^realistic 5,000 nodes, churn/);
  const churn50 = find(/^realistic 50,000 nodes, churn/);
  const create50 = find(/^createClusterState, 50,000/);
  const trip50 = find(/^toJSON \+ restore, 50,000/);
  const ratio = (a: CaseResult | undefined, b: CaseResult | undefined, backend: 'wasm' | 'ts'): number | null => {
    const x = _usPerOp(a, backend);
    const y = _usPerOp(b, backend);
    return x === null || y === null ? null : x / y;
  };
  {
    const rows = [fill5, churn5].filter((w) => w !== undefined);
    const rs = rows.map((w) => ratio(w, plain, 'wasm'));
    const ok = rs.length > 0 && rs.every((r) => r !== null);
    out.push({
      target: `cluster: realistic 5,000 nodes within ${REALISTIC_VS_PLAIN}× the plain cluster per decision`,
      met: ok ? rs.every((r) => (r as number) <= REALISTIC_VS_PLAIN) : null,
      detail: ok ? rows.map((w, k) => `${w.name}: ${_fmt(rs[k])}× (wasm)`).join('; ') : 'not measured in this run',
    });
  }
  {
    const pairs: Array<[CaseResult | undefined, CaseResult | undefined, string]> = [
      [fill50, fill5, 'fill'],
      [churn50, churn5, 'churn'],
    ];
    const rs = pairs.map(([a, b]) => ratio(a, b, 'wasm'));
    const ok = rs.every((r) => r !== null);
    out.push({
      target: `cluster: 50,000 nodes within ${SCALE_50K_VS_5K}× 5,000 nodes per decision`,
      met: ok ? rs.every((r) => (r as number) <= SCALE_50K_VS_5K) : null,
      detail: ok ? pairs.map(([, , what], k) => `${what} ${_fmt(rs[k])}× (wasm)`).join('; ') : 'not measured in this run',
    });
  }
  {
    const rows = [fill5, churn5].filter((w) => w?.backends.wasm !== undefined) as CaseResult[];
    out.push({
      target: `cluster: realistic p99 under ${REALISTIC_P99_US} µs at 5,000 nodes`,
      met: rows.length === 0 ? null : rows.every((w) => w.backends.wasm!.p99Us < REALISTIC_P99_US),
      detail: rows.length === 0 ? 'not measured in this run' : rows.map((w) => `${w.name}: p99 ${_fmt(w.backends.wasm!.p99Us)} µs (wasm)`).join('; '),
    });
  }
  {
    const ms = _usPerOp(create50, 'wasm');
    out.push({
      target: `cluster: createClusterState of 50,000 nodes under ${CREATE_50K_MS} ms`,
      met: ms === null ? null : ms / 1000 < CREATE_50K_MS,
      detail: ms === null ? 'not measured in this run' : `${_fmt(ms / 1000)} ms (wasm), ${_fmt((_usPerOp(create50, 'ts') ?? NaN) / 1000)} ms (ts)`,
    });
  }
  out.push({
    target: 'cluster: toJSON / restore of 50,000 nodes round-trips exactly',
    met: trip50 === undefined ? null : trip50.errors === undefined,
    detail:
      trip50 === undefined
        ? 'not measured in this run'
        : trip50.errors === undefined
          ? `byte-identical JSON after restore, ${_fmt((_usPerOp(trip50, 'wasm') ?? NaN) / 1000)} ms a round trip (wasm)`
          : JSON.stringify(trip50.errors),
  });
  return out;
}
