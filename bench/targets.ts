// The issue's performance targets, checked against one run's report (ratios, so they hold on a noisy machine).
import type { BenchReport } from './run.js';
import { noKernelCall, type CaseResult } from './harness.js';

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

/** Minimum plan-and-commit decisions per second on the 5,000-node cluster. */
export const CLUSTER_DECISIONS_TARGET = 10_000;

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
  if (be.length === 0) out.push({ target: `besteffort at 16 GPUs, sizes ${BESTEFFORT_TARGET_SIZES.join(', ')}: ≥ ${REFERENCE_SPEEDUP_TARGET}× the reference enumeration`, met: null, detail: 'not measured in this run' });
  else {
    const parts = be.map((w) => `${w.name}: wasm ${_fmt(w.reference?.wasmSpeedup)}×, ts ${_fmt(w.reference?.tsSpeedup)}×${w.reference?.method === 'extrapolated' ? ' (reference extrapolated)' : ''}`);
    const met = be.length === BESTEFFORT_TARGET_SIZES.length && be.every((w) => (w.reference?.wasmSpeedup ?? 0) >= REFERENCE_SPEEDUP_TARGET);
    out.push({ target: `besteffort at 16 GPUs, sizes ${BESTEFFORT_TARGET_SIZES.join(', ')}: ≥ ${REFERENCE_SPEEDUP_TARGET}× the reference enumeration`, met, detail: parts.join('; ') });
  }

  // A workload where neither backend called a kernel ran the same TypeScript on both: its ratio is
  // noise around 1, a tie by construction. It counts as a tie, never as slower, and is not a search.
  const label = (w: CaseResult): string => `${w.family} / ${w.name} ${_fmt(w.wasmOverTs)}×`;
  const tiesNote = (ties: CaseResult[], what = ''): string => (ties.length === 0 ? '' : `; ${what}tie (no kernel call) on ${ties.length}: ${ties.map(label).join('; ')}`);

  const both = ws.filter((w) => w.wasmOverTs !== null);
  if (both.length === 0) out.push({ target: 'wasm ≥ ts on every workload', met: null, detail: 'no workload ran on both backends' });
  else {
    const ties = both.filter(noKernelCall);
    const timed = both.filter((w) => !noKernelCall(w));
    const slower = timed.filter((w) => (w.wasmOverTs as number) < 1);
    const lowest = timed.length === 0 ? 'n/a' : `${_fmt(Math.min(...timed.map((w) => w.wasmOverTs as number)))}×`;
    out.push({
      target: 'wasm ≥ ts on every workload',
      met: slower.length === 0,
      detail: (slower.length === 0 ? `all ${timed.length} workloads that call a kernel (lowest ${lowest})` : `slower on ${slower.length} of ${timed.length} that call a kernel: ${slower.map(label).join('; ')}`) + tiesNote(ties),
    });
  }

  const sixteen = ws.filter((w) => isSixteenGpuSearch(w) && w.wasmOverTs !== null);
  const search = sixteen.filter((w) => !noKernelCall(w));
  const notSearches = sixteen.filter(noKernelCall);
  if (search.length === 0) out.push({ target: `wasm ≥ ${SEARCH_SPEEDUP_TARGET}× ts on the aligned and placement searches at 16 GPUs`, met: null, detail: 'not measured in this run' + tiesNote(notSearches, 'not searches, ') });
  else {
    const low = search.filter((w) => (w.wasmOverTs as number) < SEARCH_SPEEDUP_TARGET);
    out.push({
      target: `wasm ≥ ${SEARCH_SPEEDUP_TARGET}× ts on the aligned and placement searches at 16 GPUs`,
      met: low.length === 0 && ws.some((w) => w.family === 'aligned') && ws.some((w) => w.family === 'placement'),
      detail: (low.length === 0 ? `all ${search.length} (lowest ${_fmt(Math.min(...search.map((w) => w.wasmOverTs as number)))}×)` : `below on ${low.length} of ${search.length}: ${low.map((w) => label(w) + (w.search?.wasmOverTs != null ? ` (the search alone ${_fmt(w.search.wasmOverTs)}×)` : '')).join('; ')}`) + tiesNote(notSearches, 'not searches, '),
    });
  }

  const cl = ws.filter((w) => w.family === 'cluster');
  if (cl.length === 0) out.push({ target: `cluster: ≥ ${CLUSTER_DECISIONS_TARGET.toLocaleString('en-US')} plan-and-commit decisions/s`, met: null, detail: 'not measured in this run' });
  else {
    const wasm = cl.map((w) => w.backends.wasm?.opsPerSec ?? 0);
    out.push({
      target: `cluster: ≥ ${CLUSTER_DECISIONS_TARGET.toLocaleString('en-US')} plan-and-commit decisions/s`,
      met: wasm.every((x) => x >= CLUSTER_DECISIONS_TARGET),
      detail: cl.map((w) => `wasm ${_fmt(w.backends.wasm?.opsPerSec)}/s, ts ${_fmt(w.backends.ts?.opsPerSec)}/s`).join('; '),
    });
  }

  const large = ws.find((w) => w.family === 'estimate' && w.name.startsWith('70B GGUF header'));
  const small = ws.find((w) => w.family === 'estimate' && w.name.startsWith('70B shape, 1k-token GGUF header'));
  const headerTarget = `estimate: 128k-token GGUF header ≤ ${ESTIMATE_HEADER_RATIO_TARGET}× the 1k-token header`;
  const largeUs = large?.backends.ts?.medianUs;
  const smallUs = small?.backends.ts?.medianUs;
  if (largeUs === undefined || smallUs === undefined) out.push({ target: headerTarget, met: null, detail: 'not measured in this run' });
  else out.push({ target: headerTarget, met: largeUs <= ESTIMATE_HEADER_RATIO_TARGET * smallUs, detail: `${_fmt(largeUs / smallUs)}× (${_fmt(largeUs / 1000)} ms vs ${_fmt(smallUs / 1000)} ms, medians)` });

  const bytes = report.wasm.releaseBytes;
  out.push({ target: 'release wasm ≤ 64 KiB', met: bytes === null ? null : bytes <= report.wasm.limitBytes, detail: bytes === null ? 'build/release.wasm missing' : `${bytes.toLocaleString('en-US')} bytes of ${report.wasm.limitBytes.toLocaleString('en-US')}` });
  out.push({ target: 'wasm memory pages after the suite = after warm-up', met: report.wasm.pagesAfterSuite === report.wasm.pagesAfterWarmup, detail: `${report.wasm.pagesAfterWarmup} after warm-up, ${report.wasm.pagesAfterSuite} after the suite` });
  return out;
}
