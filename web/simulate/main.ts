// The Simulate view: pick a trace (bundled openb or uploaded CSV files), policies, seeds and a scale
// (the trace replicated), run the fleet simulator in a worker (the same engine and wasm as the CLI)
// with its progress shown and a Stop button, and draw allocation and fragmentation against arrived
// load, one line per policy (mean over seeds), with uPlot, and the run time per policy.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import nodesUrl from '../../data/openb/openb_node_list_gpu_node.csv?url';
import defaultUrl from '../../data/openb/openb_pod_list_default.csv?url';
import share40Url from '../../data/openb/openb_pod_list_gpushare40.csv?url';
import spec33Url from '../../data/openb/openb_pod_list_gpuspec33.csv?url';
import multi20Url from '../../data/openb/openb_pod_list_multigpu20.csv?url';
import { formatDuration } from '../../src/fleet/progress.ts';
import { parseSeeds } from '../../src/fleet/seeds.ts';
import { DEFAULT_FLEET_POLICY, FLEET_POLICIES } from '../../src/index.ts';
import { byTestId, h } from '../shared/dom.ts';
import type { SimulateJob, WorkerMessage } from './worker.ts';

const BUNDLED: Record<string, string> = { default: defaultUrl, gpushare40: share40Url, multigpu20: multi20Url, gpuspec33: spec33Url };
const AT = [90, 100, 110, 130];

type Run = Extract<WorkerMessage, { type: 'run' }>;

const $ = byTestId;

function showError(message: string | null): void {
  const banner = $('sim-error');
  banner.hidden = message === null;
  $('sim-error-message').textContent = message ?? '';
}

// Policy checkboxes: FGD and ours ticked.
const boxes = $('sim-policies');
for (const p of FLEET_POLICIES) {
  const checked = p.name === 'fgd' || p.name === DEFAULT_FLEET_POLICY;
  boxes.append(h('label', { title: p.summary }, h('input', { type: 'checkbox', value: p.name, checked, 'data-testid': `sim-policy-${p.name}` }), ` ${p.name}`));
}

const charts: uPlot[] = [];

/** Mean over seeds of each policy's curve, x = 0..130 (null where no run has a value). */
function meanCurves(runs: Run[], key: 'allocation' | 'fragmentation'): Map<string, (number | null)[]> {
  const out = new Map<string, (number | null)[]>();
  for (const policy of [...new Set(runs.map((r) => r.policy))]) {
    const mine = runs.filter((r) => r.policy === policy);
    out.set(
      policy,
      Array.from({ length: 131 }, (_, x) => {
        const v = mine.map((r) => r[key][x]).filter((y): y is number => y !== undefined);
        return v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length;
      }),
    );
  }
  return out;
}

function draw(runs: Run[]): void {
  for (const c of charts.splice(0)) c.destroy();
  const xs = Array.from({ length: 131 }, (_, x) => x);
  for (const key of ['allocation', 'fragmentation'] as const) {
    const target = $(`sim-chart-${key}`);
    target.replaceChildren();
    const curves = meanCurves(runs, key);
    const names = [...curves.keys()];
    const series: uPlot.Series[] = [{ label: 'arrived %' }, ...names.map((n) => ({ label: n, stroke: FLEET_POLICIES.find((p) => p.name === n)?.color, width: 2 }))];
    const data = [xs, ...names.map((n) => curves.get(n) as (number | null)[])] as uPlot.AlignedData;
    charts.push(
      new uPlot(
        {
          width: Math.max(400, target.clientWidth || 720),
          height: 300,
          series,
          scales: { x: { time: false } },
          axes: [{ label: 'arrived load (%)' }, { label: key === 'allocation' ? 'allocated GPU (%)' : 'fragmented GPU (%)' }],
        },
        data,
        target,
      ),
    );
  }
  const curves = meanCurves(runs, 'allocation');
  const head = h(
    'tr',
    {},
    h('th', {}, 'policy'),
    AT.map((x) => h('th', {}, `${x} %`)),
    h('th', {}, 'failed pods'),
    h('th', {}, 'seeds'),
    h('th', {}, 's per run'),
    h('th', {}, 'µs per pod'),
  );
  const rows = [...curves].map(([policy, ys]) => {
    const mine = runs.filter((r) => r.policy === policy);
    const failed = mine.reduce((a, r) => a + r.failed, 0) / mine.length;
    const ms = mine.reduce((a, r) => a + r.ms, 0);
    const attempts = mine.reduce((a, r) => a + r.pods, 0);
    const cells = AT.map((x) => h('td', { 'data-testid': 'sim-cell', 'data-policy': policy, 'data-x': x, 'data-value': ys[x] ?? '' }, ys[x] === null ? '–' : (ys[x] as number).toFixed(2)));
    return h(
      'tr',
      { 'data-testid': 'sim-row', 'data-policy': policy },
      h('td', {}, policy),
      cells,
      h('td', {}, failed.toFixed(1)),
      h('td', {}, mine.length),
      h('td', { 'data-testid': 'sim-time', 'data-policy': policy }, (ms / mine.length / 1000).toFixed(2)),
      h('td', {}, ((ms * 1000) / attempts).toFixed(1)),
    );
  });
  $('sim-table').replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
}

async function traceTexts(): Promise<{ nodesName: string; nodesText: string; podsName: string; podsText: string }> {
  const choice = ($('sim-trace') as HTMLSelectElement).value;
  if (choice === 'upload') {
    const nodesFile = ($('sim-nodes-file') as HTMLInputElement).files?.[0];
    const podsFile = ($('sim-pods-file') as HTMLInputElement).files?.[0];
    if (nodesFile === undefined || podsFile === undefined) throw new Error('uploaded CSV files: choose both a nodes file and a pods file');
    return { nodesName: nodesFile.name, nodesText: await nodesFile.text(), podsName: podsFile.name, podsText: await podsFile.text() };
  }
  const [nodesText, podsText] = await Promise.all([fetch(nodesUrl).then((r) => r.text()), fetch(BUNDLED[choice]).then((r) => r.text())]);
  return { nodesName: 'openb_node_list_gpu_node.csv', nodesText, podsName: `openb_pod_list_${choice}.csv`, podsText };
}

let worker: Worker | null = null;

/** Back to idle: Run enabled, Stop disabled, no progress shown. */
function idle(): void {
  ($('sim-run') as HTMLButtonElement).disabled = false;
  ($('sim-stop') as HTMLButtonElement).disabled = true;
  $('sim-bar').hidden = true;
  $('sim-progress').textContent = '';
  delete $('sim-progress').dataset.fraction;
}

function showProgress(m: Extract<WorkerMessage, { type: 'progress' }>): void {
  const bar = $('sim-bar') as HTMLProgressElement;
  bar.hidden = false;
  bar.value = m.fraction;
  const line = $('sim-progress');
  line.dataset.fraction = String(m.fraction);
  line.textContent = `${Math.round(100 * m.fraction)} % · ${m.label} · ${Math.round(m.podsPerSecond).toLocaleString('en-US')} pods/s · ${formatDuration(m.leftMs)} left`;
}

$('sim-stop').addEventListener('click', () => {
  worker?.terminate();
  worker = null;
  idle();
  $('sim-status').textContent = 'stopped before the end: the table and charts show the runs that finished';
  $('sim-status').dataset.done = 'stopped';
});

$('sim-run').addEventListener('click', async () => {
  showError(null);
  const button = $('sim-run') as HTMLButtonElement;
  idle();
  try {
    const policies = [...boxes.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value);
    if (policies.length === 0) throw new Error('policies: tick at least one');
    const seeds = parseSeeds('seeds', ($('sim-seeds') as HTMLInputElement).value, 100);
    const scale = Number(($('sim-scale') as HTMLSelectElement).value);
    const job: SimulateJob = { ...(await traceTexts()), policies: policies as SimulateJob['policies'], seeds, backend: ($('sim-backend') as HTMLSelectElement).value as SimulateJob['backend'], scale };
    worker?.terminate();
    worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    const runs: Run[] = [];
    button.disabled = true;
    ($('sim-stop') as HTMLButtonElement).disabled = false;
    $('sim-status').textContent = '';
    $('sim-status').removeAttribute('data-done');
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      if (m.type === 'progress') showProgress(m);
      else if (m.type === 'run') {
        runs.push(m);
        draw(runs);
      } else if (m.type === 'done') {
        idle();
        $('sim-status').textContent =
          `${runs.length} runs in ${(m.ms / 1000).toFixed(1)} s (${m.backend}, in a worker${scale > 1 ? `, ${m.nodes.toLocaleString('en-US')} nodes: the trace ×${scale}` : ''})`;
        $('sim-status').dataset.done = 'true';
      } else {
        idle();
        showError(`${m.code}: ${m.message}`);
      }
    };
    worker.postMessage(job);
  } catch (error) {
    idle();
    showError(error instanceof Error ? error.message : String(error));
  }
});
