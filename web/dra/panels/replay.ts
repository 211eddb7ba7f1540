// The DRA page's replay: one stream of claims under first-fit and under scored, drawn as the
// allocated share of the fleet's GPUs against the arrived load (one line per mode, uPlot), a row per
// mode (placed, failed, placed before the first failure, the final share), and the two fleets side
// by side at any step of the stream (a slider), so where first-fit strands partitions is seen.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from '../../shared/dom.ts';
import { type GpuMap, gpuStates } from '../counters.ts';
import type { ReplayRun, StreamSummary } from '../replay.ts';
import { type DrawIds, type Holder, nodeSections } from './gpus.ts';

/** Line colours by mode. */
const COLORS: Record<string, string> = { 'first-fit': '#d62728', scored: '#1f77b4' };

const SIDE_IDS: DrawIds = { gpu: 'dra-replay-gpu', device: 'dra-replay-device', slice: 'dra-replay-slice' };

/** A replay on show: the stream, each mode's run, and the step the side-by-side drawings show. */
export interface ReplayView {
  stream: StreamSummary;
  runs: ReplayRun[];
  seed: number;
  step: number;
}

let chart: uPlot | undefined;

/** Draws the chart and the table for a finished replay. */
export function renderReplayResult(chartHost: HTMLElement, tableBody: HTMLElement, view: ReplayView): void {
  chart?.destroy();
  chartHost.replaceChildren();
  const xs = [view.stream.start, ...view.stream.arrived];
  const series: uPlot.Series[] = [{ label: 'arrived %' }, ...view.runs.map((r) => ({ label: r.mode, stroke: COLORS[r.mode] ?? '#555', width: 2 }))];
  const data = [xs, ...view.runs.map((r) => [r.start, ...r.share])] as uPlot.AlignedData;
  chart = new uPlot(
    {
      width: Math.max(420, chartHost.clientWidth || 720),
      height: 280,
      series,
      scales: { x: { time: false }, y: { range: [0, 100] } },
      axes: [{ label: 'arrived load (% of the fleet’s GPUs)' }, { label: 'allocated (% of GPUs)' }],
    },
    data,
    chartHost,
  );
  chartHost.dataset.series = view.runs.map((r) => r.mode).join(',');
  chartHost.dataset.points = String(xs.length);
  tableBody.replaceChildren(
    ...view.runs.map((r) => {
      const placed = r.node.filter((n) => n !== undefined).length;
      const failed = r.node.length - placed;
      const before = r.firstFailure < 0 ? r.node.length : r.firstFailure;
      const final = r.share.at(-1) ?? r.start;
      return h(
        'tr',
        { 'data-testid': 'dra-replay-row', 'data-mode': r.mode, 'data-placed': placed, 'data-failed': failed, 'data-before-failure': before, 'data-final': final, 'data-blocked': r.blockedEnd },
        h('td', {}, h('span', { class: 'dra-swatch', style: `background:${COLORS[r.mode] ?? '#555'}` }), r.mode),
        h('td', { class: 'num' }, placed),
        h('td', { class: 'num' }, failed),
        h('td', { class: 'num' }, before),
        h('td', { class: 'num', 'data-testid': 'dra-replay-final' }, `${final.toFixed(2)} %`),
        h('td', { class: 'num' }, r.blockedEnd),
      );
    }),
  );
}

/** The two fleets side by side after `view.step` arrivals. */
export function renderReplaySides(host: HTMLElement, label: HTMLElement, view: ReplayView, map: GpuMap, nodeLabels: ReadonlyMap<string, string>, held: ReadonlyMap<string, Holder>): void {
  const k = view.step;
  const arrived = k === 0 ? view.stream.start : view.stream.arrived[k - 1];
  label.textContent = `after ${k} of ${view.stream.count} claims (${arrived.toFixed(1)} % of the fleet arrived)`;
  host.replaceChildren(
    ...view.runs.map((r) => {
      const holders = new Map(held);
      for (let i = 0; i < k; i++) for (const d of r.devices[i]) holders.set(d, { claim: view.stream.labels[i], held: false });
      const share = k === 0 ? r.start : r.share[k - 1];
      const failedSoFar = r.node.slice(0, k).filter((n) => n === undefined).length;
      return h(
        'div',
        { class: 'dra-side', 'data-testid': 'dra-replay-side', 'data-mode': r.mode, 'data-step': k, 'data-share': share },
        h('h3', {}, h('span', { class: 'dra-swatch', style: `background:${COLORS[r.mode] ?? '#555'}` }), `${r.mode}: ${share.toFixed(1)} % allocated, ${failedSoFar} failed`),
        nodeSections(map, gpuStates(map, holders.keys()), nodeLabels, holders, SIDE_IDS),
      );
    }),
  );
}
