// The DRA page: load cluster dumps as kubectl prints them (or the bundled sample), schedule every
// pending claim as its own pod with the same engine as `gpualloc dra schedule`, and draw each GPU as
// its counter set (claims already allocated in the dump hold theirs); replay one stream of claims
// under first-fit and scored side by side.
import sampleUrl from '../../data/samples/dra/cluster.json?url';
import { AllocationError, claimsOfDump, DEFAULT_NODE_SCORES, DRA_MODES, type DraDump, type DraMode, type Engine, NODE_SCORES, type NodeScore, openEngine, splitDraDump } from '../../src/index.ts';
import { byTestId, h } from '../shared/dom.ts';
import { type GpuMap, readGpus } from './counters.ts';
import { type Row, renderClaims } from './panels/claims.ts';
import { type Holder, renderFleet } from './panels/gpus.ts';
import { type ReplayView, renderReplayResult, renderReplaySides } from './panels/replay.ts';
import type { ReplayJob, ReplayMessage } from './worker.ts';

type Slice = { spec: { driver: string; pool: { name: string }; nodeName?: string; devices?: Array<{ name: string }> } };
type Named = { metadata: { name: string; labels?: Record<string, string> } };

/** The page's one state object: the dump, its GPUs, the claims as shown, the replay on show. */
interface DraPageState {
  dump: DraDump | undefined;
  map: GpuMap | undefined;
  /** Node name → its labels as one line (kubernetes.io/ labels left out). */
  nodeLabels: Map<string, string>;
  rows: Row[];
  engine: Engine | undefined;
  replay: ReplayView | undefined;
}

/** The replay's worker while one runs. */
let worker: Worker | undefined;

const state: DraPageState = { dump: undefined, map: undefined, nodeLabels: new Map(), rows: [], engine: undefined, replay: undefined };

function showError(message: string | null): void {
  byTestId('dra-error').hidden = message === null;
  byTestId('dra-error-message').textContent = message ?? '';
}

function selectValue(testid: string): string {
  return byTestId<HTMLSelectElement>(testid).value;
}

byTestId('dra-mode').append(...DRA_MODES.map((o) => h('option', { value: o }, o)));
// The node score's first choice is each mode's own default (the engine's DEFAULT_NODE_SCORES).
byTestId('dra-node-score').append(
  h('option', { value: 'default' }, `each mode's default (scored: ${DEFAULT_NODE_SCORES.scored}, first-fit: ${DEFAULT_NODE_SCORES['first-fit']})`),
  ...NODE_SCORES.map((o) => h('option', { value: o }, o)),
);

/** The node score chosen for `mode`: the mode's default when the page says so. */
function nodeScoreFor(mode: DraMode): NodeScore {
  const choice = selectValue('dra-node-score');
  return choice === 'default' ? DEFAULT_NODE_SCORES[mode] : (choice as NodeScore);
}

/** Devices in use → who holds them, from the claims as shown. */
function holdersOf(rows: readonly Row[], only?: 'held'): Map<string, Holder> {
  const out = new Map<string, Holder>();
  for (const r of rows) {
    if (only === 'held' && r.state !== 'held') continue;
    for (const d of r.allocation?.devices.results ?? []) if (d.adminAccess !== true) out.set(`${d.driver}/${d.pool}/${d.device}`, { claim: r.claim, held: r.state === 'held' });
  }
  return out;
}

/** Renders the claims table, the fleet's totals and every node's GPUs. */
function render(): void {
  if (state.dump === undefined || state.map === undefined) return;
  renderClaims(byTestId('dra-claims').querySelector('tbody') as HTMLElement, state.rows);
  renderFleet(byTestId('dra-nodes'), byTestId('dra-fleet'), state.map, state.nodeLabels, holdersOf(state.rows));
}

function renderSides(): void {
  if (state.replay === undefined || state.map === undefined) return;
  renderReplaySides(byTestId('dra-replay-sides'), byTestId('dra-replay-step-label'), state.replay, state.map, state.nodeLabels, holdersOf(state.rows, 'held'));
}

/** The dump's claims as rows: pending, or held where the dump allocated them. */
function initialRows(dump: DraDump): Row[] {
  return claimsOfDump(dump.claims).claims.map((c): Row => {
    if (c.allocation === undefined) return { claim: c.label, state: 'pending' };
    // Where a held claim runs: the node of the (node-local) slice of its first device.
    const d = c.allocation.devices.results[0];
    const slice = (dump.slices as Slice[]).find(
      (s) => s.spec.driver === d?.driver && s.spec.pool.name === d.pool && s.spec.nodeName !== undefined && (s.spec.devices ?? []).some((x) => x.name === d.device),
    );
    return { claim: c.label, state: 'held', node: slice?.spec.nodeName, allocation: c.allocation };
  });
}

/** Reads files (or the sample) into one dump. */
async function load(files: Array<{ name: string; text: () => Promise<string> }>): Promise<void> {
  showError(null);
  const merged: DraDump = { classes: [], slices: [], claims: [], nodes: [] };
  try {
    for (const f of files) {
      let json: unknown;
      try {
        json = JSON.parse(await f.text());
      } catch (error) {
        throw new Error(`${f.name}: not valid JSON: ${(error as Error).message}`);
      }
      let part: DraDump;
      try {
        part = splitDraDump(json, f.name);
      } catch (error) {
        throw error instanceof AllocationError && !error.message.startsWith(f.name) ? new Error(`${f.name}: ${error.message}`) : error;
      }
      for (const k of ['classes', 'slices', 'claims', 'nodes'] as const) merged[k].push(...part[k]);
    }
  } catch (error) {
    showError((error as Error).message);
    return;
  }
  const nodes = merged.nodes as Named[];
  state.dump = merged;
  state.nodeLabels = new Map(
    nodes.map((n) => [
      n.metadata.name,
      Object.entries(n.metadata.labels ?? {})
        .filter(([k]) => !k.startsWith('kubernetes.io/'))
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ]),
  );
  state.map = readGpus(
    merged.slices,
    nodes.map((n) => n.metadata.name),
  );
  state.rows = initialRows(merged);
  state.replay = undefined;
  worker?.terminate();
  worker = undefined;
  byTestId('dra-replay').hidden = true;
  const pendingCount = state.rows.filter((r) => r.state === 'pending').length;
  byTestId('dra-loaded').textContent =
    `${files.map((f) => f.name).join(', ')}: ${merged.nodes.length} nodes, ${merged.slices.length} slices, ${merged.classes.length} classes, ${merged.claims.length} claims (${pendingCount} pending)`;
  for (const testid of ['dra-schedule', 'dra-replay-run']) byTestId<HTMLButtonElement>(testid).disabled = false;
  for (const testid of ['dra-status', 'dra-replay-status']) {
    byTestId(testid).textContent = '';
    delete byTestId(testid).dataset.done;
  }
  render();
}

/** Schedules every pending claim, one pod each, in file order. */
async function schedule(): Promise<void> {
  const dump = state.dump;
  if (dump === undefined) return;
  showError(null);
  const mode = selectValue('dra-mode') as DraMode;
  const nodeScore = nodeScoreFor(mode);
  try {
    state.engine ??= await openEngine({ backend: 'ts' });
    const started = performance.now();
    const { claims, held } = claimsOfDump(dump.claims);
    const cluster = state.engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode, nodeScore });
    const rows = initialRows(dump);
    for (const c of claims) {
      if (c.allocation !== undefined) continue;
      const r = cluster.schedule(c.object);
      const row = rows.find((x) => x.claim === c.label) as Row;
      if (r.reason !== undefined) Object.assign(row, { state: 'unschedulable', reason: r.reason.message });
      else Object.assign(row, { state: 'scheduled', node: r.node, allocation: r.results[0] });
    }
    const ms = performance.now() - started;
    state.rows = rows;
    render();
    const done = rows.filter((r) => r.state === 'scheduled').length;
    const failed = rows.filter((r) => r.state === 'unschedulable').length;
    byTestId('dra-status').textContent = `${done + failed} pending claims: ${done} scheduled, ${failed} unschedulable (${mode}, ${nodeScore}) in ${ms.toFixed(1)} ms`;
    byTestId('dra-status').dataset.done = 'true';
  } catch (error) {
    showError((error as Error).message);
  }
}

/** Replays one seeded stream under both modes, from the dump's state, in a worker. */
function runReplay(): void {
  const { dump } = state;
  if (dump === undefined) return;
  showError(null);
  const raw = byTestId<HTMLInputElement>('dra-replay-seed').value.trim();
  const seed = Number(raw);
  if (raw === '' || !Number.isSafeInteger(seed) || seed < 0) {
    showError(`seed: expected a whole number from 0, got ${JSON.stringify(raw)}`);
    return;
  }
  // First-fit is upstream's allocator: it keeps its own default when the page asks for the scored
  // objective's node score, which first-fit mode refuses.
  const choice = nodeScoreFor('scored');
  const nodeScores = { 'first-fit': choice === 'fragmentation' ? DEFAULT_NODE_SCORES['first-fit'] : nodeScoreFor('first-fit'), scored: choice };
  const status = byTestId('dra-replay-status');
  const button = byTestId<HTMLButtonElement>('dra-replay-run');
  delete status.dataset.done;
  status.textContent = 'starting…';
  button.disabled = true;
  worker?.terminate();
  worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  worker.onmessage = (event: MessageEvent<ReplayMessage>) => {
    const m = event.data;
    if (m.type === 'progress') {
      status.textContent = `${m.label}: ${m.done} of ${m.all}`;
      return;
    }
    button.disabled = false;
    worker?.terminate();
    worker = undefined;
    if (m.type === 'error') {
      status.textContent = '';
      showError(m.message);
      return;
    }
    state.replay = { stream: m.stream, runs: m.runs, seed, step: m.stream.count };
    byTestId('dra-replay').hidden = false;
    renderReplayResult(byTestId('dra-replay-chart'), byTestId('dra-replay-table'), state.replay);
    const slider = byTestId<HTMLInputElement>('dra-replay-step');
    slider.max = String(m.stream.count);
    slider.value = String(m.stream.count);
    renderSides();
    status.textContent = `${m.stream.count} claims (seed ${seed}) replayed under first-fit (${nodeScores['first-fit']}) and scored (${nodeScores.scored}) in ${m.ms.toFixed(0)} ms, in a worker`;
    status.dataset.done = 'true';
  };
  const job: ReplayJob = { dump, nodes: [...state.nodeLabels.keys()], seed, nodeScores };
  worker.postMessage(job);
}

byTestId('dra-files').addEventListener('change', () => {
  const picker = byTestId<HTMLInputElement>('dra-files');
  const files = [...(picker.files ?? [])];
  // Cleared once read, so picking the same files again loads them afresh.
  if (files.length > 0) void load(files.map((f) => ({ name: f.name, text: () => f.text() }))).finally(() => (picker.value = ''));
});
byTestId('dra-sample').addEventListener('click', () => {
  void load([{ name: 'cluster.json (sample)', text: async () => (await fetch(sampleUrl)).text() }]);
});
byTestId('dra-schedule').addEventListener('click', () => void schedule());
byTestId('dra-replay-run').addEventListener('click', runReplay);
byTestId('dra-replay-step').addEventListener('input', () => {
  if (state.replay === undefined) return;
  state.replay.step = Number(byTestId<HTMLInputElement>('dra-replay-step').value);
  renderSides();
});
document.body.dataset.ready = 'true';
