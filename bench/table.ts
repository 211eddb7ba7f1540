// The one table `npm run bench` prints, plus the notes and targets under it.

import { noKernelCall, type Timing } from './harness.js';
import type { BenchReport } from './run.js';

/** Operations per second with a k/M suffix, three significant digits. */
export function formatRate(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  if (x >= 1e6) return `${(x / 1e6).toPrecision(3)}M`;
  if (x >= 1e3) return `${(x / 1e3).toPrecision(3)}k`;
  if (x >= 1) return x.toPrecision(3);
  return x.toPrecision(2);
}

/** A latency given in microseconds, shown in ns/µs/ms/s, three significant digits. */
export function formatLatency(us: number | undefined | null): string {
  if (us === undefined || us === null || !Number.isFinite(us)) return '–';
  if (us < 1) return `${(us * 1000).toPrecision(3)} ns`;
  if (us < 1000) return `${us.toPrecision(3)} µs`;
  if (us < 1e6) return `${(us / 1000).toPrecision(3)} ms`;
  return `${(us / 1e6).toPrecision(3)} s`;
}

/** A ratio such as 3.2× or 1.2e6×. */
export function formatRatio(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  if (x >= 1e5) return `${x.toExponential(1).replace('e+', 'e')}×`;
  if (x >= 100) return `${Math.round(x)}×`;
  return `${x.toFixed(2)}×`;
}

function _lat(t: Timing | undefined): string {
  return t === undefined ? '–' : `${formatLatency(t.medianUs)} / ${formatLatency(t.p99Us)}`;
}

/** The search-alone cell: wasm and ts medians and their ratio, or – without one. */
function _search(w: BenchReport['workloads'][number]): string {
  const s = w.search;
  if (s === undefined || s.backends.wasm === undefined || s.backends.ts === undefined) return '–';
  return `${formatLatency(s.backends.wasm.medianUs)} / ${formatLatency(s.backends.ts.medianUs)} ${formatRatio(s.wasmOverTs)}`;
}

/** Renders rows as an aligned plain-text table (first column left, the rest right-aligned). */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, k) => (k <= 1 ? c.padEnd(widths[k]!) : c.padStart(widths[k]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The whole printout of a report: the table, the reference notes, pending families, wasm facts, targets. */
export function formatTable(report: BenchReport): string {
  const header = ['family', 'workload', 'wasm ops/s', 'wasm p50 / p99', 'ts ops/s', 'ts p50 / p99', 'wasm/ts', 'search w / ts', 'reference', 'wasm/ref', 'ts/ref'];
  const notes: string[] = [];
  const rows = report.workloads.map((w) => {
    const ref = w.reference;
    let refCell = '–';
    if (ref !== null) {
      refCell = formatLatency(ref.secondsPerOp * 1e6) + (ref.method === 'extrapolated' ? '*' : '');
      if (ref.method === 'extrapolated') {
        notes.push(
          `* ${w.family} / ${w.name}: ${ref.name} timed on ${ref.sampled?.toLocaleString('en-US')} of ${ref.total?.toLocaleString('en-US')} ${ref.unit} (${ref.sampleSeconds?.toFixed(2)} s) and extrapolated to the full count: ${ref.secondsPerOp.toPrecision(3)} s per call.`,
        );
      }
    }
    const unit = w.unit === 'op' ? '' : ` (per ${w.unit})`;
    if (w.note !== undefined) notes.push(`- ${w.family} / ${w.name}: ${w.note}`);
    if (w.errors !== undefined)
      notes.push(
        `! ${w.family} / ${w.name}: ${Object.entries(w.errors)
          .map(([k, v]) => `${k} failed: ${v}`)
          .join('; ')}`,
      );
    const ratio = formatRatio(w.wasmOverTs) + (noKernelCall(w) ? '=' : '');
    return [
      w.family,
      w.name + unit,
      formatRate(w.backends.wasm?.opsPerSec),
      _lat(w.backends.wasm),
      formatRate(w.backends.ts?.opsPerSec),
      _lat(w.backends.ts),
      ratio,
      _search(w),
      refCell,
      formatRatio(ref?.wasmSpeedup),
      formatRatio(ref?.tsSpeedup),
    ];
  });
  const out = [renderTable(header, rows)];
  const refs = [...new Set(report.workloads.filter((w) => w.reference !== null).map((w) => w.reference!.name))];
  out.push('', 'ops/s: mean throughput; p50 / p99: latency of one operation; wasm/ts: ts median ÷ wasm median (above 1: wasm is faster).');
  if (report.workloads.some((w) => w.search !== undefined))
    out.push('search w / ts: the kernel call alone (marshaling included, no request reading, validation or result building), wasm median / ts median, and their ratio.');
  if (report.workloads.some(noKernelCall)) out.push('=: no kernel call on either backend (answered by the same TypeScript on both, without a search): a tie by construction, the ratio is noise.');
  if (refs.length > 0) out.push(`reference: ${refs.join('; ')}, time per call (median). wasm/ref, ts/ref: reference time ÷ our median.`);
  if (notes.length > 0) out.push('', ...notes);
  if (report.pending.length > 0) out.push('', 'not measured:', ...report.pending.map((p) => `  ${p.family}: ${p.reason}`));
  const w = report.wasm;
  out.push(
    '',
    `release wasm: ${w.releaseBytes === null ? 'missing' : `${w.releaseBytes.toLocaleString('en-US')} bytes`}; wasm memory: ${w.pagesAfterWarmup} pages after warm-up, ${w.pagesAfterSuite} after the suite`,
  );
  out.push('', 'targets:', ...report.targets.map((t) => `  [${t.met === null ? ' n/a ' : t.met ? ' met ' : 'MISSED'}] ${t.target} — ${t.detail}`));
  const m = report.machine;
  out.push(
    '',
    `${report.date} · ${report.commit === null ? '' : `commit ${report.commit} · `}${m.cpu} × ${m.cores} · Node ${m.node} · load ${m.loadavgStart[0]} → ${m.loadavgEnd[0]} · ${report.quick ? 'quick mode, ' : ''}${report.seconds} s`,
  );
  return out.join('\n');
}
