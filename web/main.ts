// The planning page: wires the form controls to the Planner and renders the cluster, the selected
// node and each decision. Everything the page holds is saved to localStorage after every change.
import {
  DEFAULT_CONTEXT_LENGTH,
  estimateMemory,
  formatBytes,
  getPreset,
  listPresets,
  parseBytes,
  type AlignedResult,
  type Backend,
  type MemoryEstimate,
  type PlacementPlan,
  type ReplicaPolicy,
  type ReplicaResult,
} from '../src/index.ts';
import { esc, renderCluster, TYPE_COLORS } from './cluster-view.ts';
import { drawNode, legendHtml, OTHERS_LABEL, slotStateKeys, workloadColor, type Overlay } from './draw.ts';
import { drawPcieTree, pcieTree } from './pcie-tree.ts';
import { describeError, Planner, type Timed } from './planner.ts';
import { VIEWS } from './views.ts';


/** The decision on show in the result panel. scope: planned across the cluster, or on the selected node. */
type Decision =
  | { kind: 'model'; scope: 'cluster' | 'node'; label: string; memory: number; timed: Timed<PlacementPlan>; selected: number }
  | { kind: 'replicas'; label: string; replicasPerGpu: number; timed: Timed<ReplicaResult> }
  | { kind: 'gpus'; label: string; timed: Timed<AlignedResult> };

const DEFAULT_PRESET = 'dgx-a100';
const GGUF_PREFIXES = [16 * 2 ** 20, 128 * 2 ** 20, 1024 * 2 ** 20];

let planner: Planner | undefined;
let decision: Decision | undefined;
let view = 'cluster';
let activeTab: 'model' | 'replicas' | 'gpus' = 'model';
let logCount = 0;
let ggufEstimate: { text: string; bytes: number } | undefined;

function $(testid: string): HTMLElement {
  const node = document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  if (node === null) throw new Error(`page is missing [data-testid="${testid}"]`);
  return node;
}
function input(testid: string): HTMLInputElement {
  return $(testid) as HTMLInputElement;
}
function select(testid: string): HTMLSelectElement {
  return $(testid) as HTMLSelectElement;
}

/** Milliseconds with a sensible number of digits. */
function formatMs(ms: number, runs = 2): string {
  // One run is only as precise as the browser's clock (often 0.1 ms): do not print digits it lacks.
  if (runs === 1) return ms < 0.1 ? '< 0.1 ms' : `${ms.toFixed(1)} ms`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.001) return `${(ms * 1000).toFixed(1)} µs`;
  return '< 1 µs';
}

// ---------- errors: always on the page ----------

function showError(error: unknown, context?: string): void {
  const { title, message } = describeError(error);
  $('error-title').textContent = context === undefined ? title : `${context} · ${title}`;
  $('error-message').textContent = message;
  $('error-banner').hidden = false;
}
function clearError(): void {
  $('error-banner').hidden = true;
  $('error-title').textContent = '';
  $('error-message').textContent = '';
}
/** Runs a UI action; anything thrown lands in the error banner. */
function guard(context: string, action: () => void | Promise<void>): () => Promise<void> {
  return async () => {
    try {
      clearError();
      await action();
    } catch (error) {
      showError(error, context);
      console.error(error);
    }
    persist();
  };
}

/** Saves the cluster and the page's metadata (a full or blocked storage is shown, not fatal). */
function persist(): void {
  if (planner === undefined || document.body.dataset.ready !== 'true') return;
  try {
    planner.save(window.localStorage);
    document.body.dataset.saved = String(Date.now());
  } catch (error) {
    const full = error instanceof DOMException && error.name === 'QuotaExceededError';
    showError(error, full ? 'saving to localStorage: the cluster is larger than this browser keeps; use Export state to keep it' : 'saving to localStorage');
  }
}

// ---------- parsing form input ----------

function parseCount(testid: string, field: string, min: number, max: number): number {
  const raw = input(testid).value.trim();
  const value = Number(raw);
  if (raw === '' || !Number.isInteger(value) || value < min || value > max) throw new Error(`${field}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return value;
}

function parseMemory(): number {
  const raw = input('model-memory').value;
  if (ggufEstimate !== undefined && raw === ggufEstimate.text) return ggufEstimate.bytes;
  const bytes = parseBytes(raw, 'memory');
  if (bytes <= 0) throw new Error(`memory: expected more than 0 bytes, got ${JSON.stringify(raw)}`);
  return bytes;
}

function selectedTpSizes(): number[] {
  const sizes = [...document.querySelectorAll<HTMLInputElement>('[data-testid="model-tp"] input:checked')].map((x) => Number(x.value));
  if (sizes.length === 0) throw new Error('tensor-parallel sizes: pick at least one size');
  return sizes;
}

/** TP sizes offered for a node of n GPUs: powers of two up to n, and n itself. */
function tpChoices(n: number): number[] {
  const sizes: number[] = [];
  for (let k = 1; k <= n; k *= 2) sizes.push(k);
  if (n > 0 && !sizes.includes(n)) sizes.push(n);
  return sizes;
}

// ---------- the cluster ----------

/** The TP choices for the selected node (node view) or the widest node (cluster view). */
function refreshTpChoices(): void {
  const p = requirePlanner();
  const widths = view === 'node' && p.selected !== undefined && p.hasNode(p.selected) ? [p.node(p.selected).gpus.length] : p.nodes().map((n) => n.gpus.length);
  const n = Math.max(0, ...widths);
  const choices = tpChoices(n);
  const current = [...document.querySelectorAll<HTMLInputElement>('[data-testid="model-tp"] input')].map((x) => x.value).join(',');
  if (current === choices.join(',')) return;
  $('model-tp').innerHTML = choices.map((k) => `<label class="chip"><input type="checkbox" value="${k}" data-testid="tp-${k}" checked /><span>TP ${k}</span></label>`).join('');
}

function addNodes(): void {
  const p = requirePlanner();
  const key = select('add-type').value;
  const count = parseCount('add-count', 'count', 1, 10_000);
  const ids = p.addNodes(key, count);
  logDecision('add nodes', undefined, `${count} × ${p.machineType(key)?.label ?? key}: ${ids[0]}${ids.length > 1 ? ` … ${ids[ids.length - 1]}` : ''}`);
  decision = undefined;
  render();
}

async function loadInventoryFile(file: File): Promise<void> {
  const p = requirePlanner();
  const text = await file.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${file.name} is not valid JSON: ${(cause as Error).message}`);
  }
  const host = (json as { host?: unknown })?.host;
  const label = typeof host === 'string' && host !== '' ? host : file.name.replace(/\.json$/i, '');
  const key = p.addType(`file:${file.name}`, label, json, file.name);
  fillTypeSelect();
  select('add-type').value = key;
  const inv = p.machineType(key)!.inventory;
  $('type-description').textContent = `Loaded ${file.name}: ${inv.gpus.length} GPUs${inv.host ? ` (host ${inv.host})` : ''}. Add nodes of it with a count.`;
}

function fillTypeSelect(): void {
  const p = requirePlanner();
  const keep = select('add-type').value;
  select('add-type').innerHTML = p.machineTypes().map((t) => `<option value="${esc(t.key)}">${esc(t.key.startsWith('file:') ? `${t.label} (inventory file)` : t.label)}</option>`).join('');
  if (keep !== '' && p.machineType(keep) !== undefined) select('add-type').value = keep;
}

function describeType(): void {
  const key = select('add-type').value;
  const name = key.startsWith('preset:') ? key.slice('preset:'.length) : undefined;
  $('type-description').textContent = name !== undefined ? (listPresets().find((x) => x.name === name)?.description ?? '') : `From an inventory file (${key.slice('file:'.length)}).`;
}

function openNode(id: string): void {
  const p = requirePlanner();
  if (!p.hasNode(id)) throw new Error(`node ${JSON.stringify(id)} is not in the cluster`);
  if (p.selected !== id && !(decision?.kind === 'model' && decision.scope === 'cluster')) decision = undefined;
  p.selected = id;
  setView('node');
}

function exportState(): void {
  const p = requirePlanner();
  const text = p.exportText();
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'gpualloc-state.json';
  a.dataset.testid = 'export-link';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  logDecision('export', undefined, `${p.nodes().length} nodes, ${p.snapshot().nodes.reduce((s, n) => s + n.slots.length, 0)} slots (${text.length} bytes)`);
}

async function importState(file: File): Promise<void> {
  const p = requirePlanner();
  p.importText(await file.text(), file.name);
  decision = undefined;
  logDecision('import', undefined, `${file.name}: ${p.nodes().length} nodes, ${p.snapshot().nodes.reduce((s, n) => s + n.slots.length, 0)} slots`);
  render();
}

function requirePlanner(): Planner {
  if (planner === undefined) throw new Error('the engine is still loading');
  return planner;
}

// ---------- decisions ----------

function logDecision(call: string, timed: { backend: Backend; ms: number; runs: number } | undefined, outcome: string, backend?: Backend): void {
  logCount++;
  const row = document.createElement('tr');
  row.dataset.testid = 'log-row';
  row.dataset.n = String(logCount);
  row.innerHTML = `<td>${logCount}</td><td><code>${esc(call)}</code></td><td>${esc(timed?.backend ?? backend ?? requirePlanner().backend)}</td><td class="num">${timed ? esc(formatMs(timed.ms, timed.runs)) : '—'}</td><td>${esc(outcome)}</td>`;
  const body = $('decision-log');
  body.prepend(row);
  while (body.children.length > 12) body.lastElementChild?.remove();
}

function planModel(): void {
  const p = requirePlanner();
  const label = input('model-name').value.trim() || 'model';
  const memory = parseMemory();
  const request = { memory, model: label, tensorParallelSizes: selectedTpSizes(), policy: select('model-policy').value as 'spread' | 'pack', allowEviction: input('model-evict').checked };
  const scope = view === 'node' ? 'node' : 'cluster';
  const timed = scope === 'node' ? p.planNode(request) : p.planCluster(request);
  decision = { kind: 'model', scope, label, memory, timed, selected: 0 };
  const best = timed.value.options[0];
  logDecision(scope === 'node' ? 'planPlacement' : 'state.plan', timed, best ? `${timed.value.options.length} option${timed.value.options.length === 1 ? '' : 's'}; best ${best.node !== undefined ? `${best.node} ` : ''}GPUs ${best.gpus.join(',')}` : 'no viable option');
  render();
}

function allocateReplicas(): void {
  const p = requirePlanner();
  const replicasPerGpu = parseCount('replicas-per-gpu', 'replicas per GPU', 1, 64);
  const size = parseCount('replicas-size', 'size', 1, 4096);
  const policy = select('replicas-policy').value as ReplicaPolicy;
  const timed = p.allocateReplicas(replicasPerGpu, size, policy);
  decision = { kind: 'replicas', label: `${size} replica${size === 1 ? '' : 's'} (${policy})`, replicasPerGpu, timed };
  view = 'node';
  logDecision('allocateReplicas', timed, timed.value.devices.length > 0 ? `${timed.value.devices.length} devices` : timed.value.reason?.code ?? 'none');
  render();
}

function allocateGpus(): void {
  const p = requirePlanner();
  const size = parseCount('gpus-size', 'GPUs', 1, 64);
  const policy = select('gpus-policy').value as 'besteffort' | 'topology';
  const timed = p.allocateAligned(size, policy);
  decision = { kind: 'gpus', label: `${size} whole GPU${size === 1 ? '' : 's'} (${policy})`, timed };
  view = 'node';
  logDecision('allocateAligned', timed, timed.value.devices.length > 0 ? `GPUs ${timed.value.devices.join(',')}, score ${timed.value.score}` : timed.value.reason?.code ?? 'none');
  render();
}

function commitDecision(): void {
  const p = requirePlanner();
  if (decision === undefined) return;
  const t0 = performance.now();
  let outcome: string;
  if (decision.kind === 'model') {
    const option = decision.timed.value.options[decision.selected];
    if (option === undefined) throw new Error('nothing to commit: the plan has no option');
    const slot = p.commitOption(option);
    outcome = `${decision.label} → ${slot} on ${option.node ?? p.selected} GPUs ${option.gpus.join(',')}${option.evict.length > 0 ? `, evicted ${option.evict.join(', ')}` : ''}`;
  } else if (decision.kind === 'replicas') {
    const devices = decision.timed.value.devices;
    if (devices.length === 0) throw new Error('nothing to commit: no devices were picked');
    const w = p.commitReplicas(devices, decision.replicasPerGpu, decision.label);
    outcome = `${devices.length} devices on GPUs ${w.gpus.join(',')}`;
  } else {
    const { devices, score } = decision.timed.value;
    if (devices.length === 0) throw new Error('nothing to commit: no GPUs were picked');
    const slot = p.commitWholeGpus(devices, score, decision.label);
    outcome = `${slot}: GPUs ${devices.join(',')}`;
  }
  const ms = performance.now() - t0;
  logDecision('commit', { backend: p.backend, ms, runs: 1 }, outcome);
  decision = undefined;
  render();
}

// ---------- GGUF ----------

async function estimateFromGguf(file: File): Promise<void> {
  const options = {
    contextLength: parseCount('gguf-context', 'context length', 1, 10_000_000),
    parallel: parseCount('gguf-parallel', 'parallel', 1, 1024),
    kvCacheType: select('gguf-kv').value as 'f16' | 'q8_0' | 'q4_0',
    flashAttention: input('gguf-flash').checked,
  };
  let estimate: MemoryEstimate | undefined;
  let lastError: unknown;
  // Read only the file's head: the GGUF header holds everything the estimate needs.
  for (const prefix of GGUF_PREFIXES) {
    const bytes = new Uint8Array(await file.slice(0, Math.min(prefix, file.size)).arrayBuffer());
    try {
      estimate = await estimateMemory(bytes, options);
      break;
    } catch (error) {
      lastError = error;
      if (prefix >= file.size || !/truncat|end of|short|beyond/i.test(describeError(error).message)) break;
    }
  }
  if (estimate === undefined) throw lastError;
  const text = formatBytes(Math.ceil(estimate.total / 2 ** 20) * 2 ** 20).replace(' ', '');
  ggufEstimate = { text, bytes: estimate.total };
  input('model-memory').value = text;
  input('model-name').value = file.name.replace(/\.gguf$/i, '');
  $('gguf-estimate').innerHTML = `<table class="kv" data-testid="gguf-table">
    <tr><th>weights</th><td>${esc(formatBytes(estimate.weights))}</td></tr>
    <tr><th>KV cache</th><td>${esc(formatBytes(estimate.kvCache))}</td></tr>
    <tr><th>graph</th><td>${esc(formatBytes(estimate.graph))}</td></tr>
    <tr><th>total</th><td data-testid="gguf-total" data-bytes="${estimate.total}"><b>${esc(formatBytes(estimate.total))}</b></td></tr>
    ${estimate.layers !== undefined ? `<tr><th>layers</th><td>${estimate.layers}</td></tr>` : ''}
  </table>${(estimate.warnings ?? []).map((w) => `<p class="warn">${esc(w)}</p>`).join('')}`;
}

// ---------- rendering ----------

/** The option on show (a model decision's selected row), if any. */
function shownOption(): import('../src/index.ts').PlacementOption | undefined {
  return decision?.kind === 'model' ? decision.timed.value.options[decision.selected] : undefined;
}

function render(): void {
  const p = planner;
  if (p === undefined) return;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-backend]')) {
    b.classList.toggle('active', b.dataset.backend === p.backend);
    b.disabled = p.engines[b.dataset.backend as Backend] === undefined;
  }
  renderStatus();
  if (p.selected !== undefined && !p.hasNode(p.selected)) p.selected = p.nodes()[0]?.id;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-view]')) {
    b.classList.toggle('active', b.dataset.view === view);
    b.disabled = b.dataset.view === 'node' && p.selected === undefined;
  }
  for (const section of document.querySelectorAll<HTMLElement>('[data-view-body]')) section.hidden = section.dataset.viewBody !== view;
  refreshTpChoices();
  renderClusterView();
  renderNodeView();
  renderResult();
  renderWorkloads();
  renderFragmentation();
}

function renderStatus(): void {
  const p = requirePlanner();
  const status = $('engine-status');
  status.dataset.backend = p.backend;
  status.textContent = p.backend === 'wasm' ? `engine ready · wasm backend (${p.engines.wasm?.memoryPages() ?? 0} pages)` : `engine ready · ts backend${p.engines.wasm === undefined ? ' (wasm failed to load)' : ''}`;
}

function renderClusterView(): void {
  const p = requirePlanner();
  const option = decision?.kind === 'model' && decision.scope === 'cluster' ? shownOption() : undefined;
  const evict = new Set(option?.evict ?? []);
  const nodes = p.nodes();
  let gpus = 0;
  let total = 0;
  let used = 0;
  let others = 0;
  let slots = 0;
  for (const n of nodes) {
    slots += n.slots.length;
    for (const [gpu, u] of p.usedMemory(n.id)) {
      gpus++;
      total += n.gpus.find((g) => g.index === gpu)?.memoryTotal ?? 0;
      used += u.others + u.slots;
      others += u.others;
    }
  }
  const types = p.typeCounts();
  $('cluster-summary').innerHTML = `<span data-testid="cluster-types">${types.map((t) => `${t.count} × ${esc(t.label)}`).join(', ') || 'no nodes'}</span><span class="muted"> · <span data-testid="cluster-nodes" data-count="${nodes.length}">${nodes.length} node${nodes.length === 1 ? '' : 's'}</span>, ${gpus} GPUs, <span data-testid="cluster-slots" data-count="${slots}">${slots} slot${slots === 1 ? '' : 's'}</span>, <span data-testid="cluster-used" data-used="${used}" data-total="${total}">${esc(formatBytes(used))} used of ${esc(formatBytes(total))} (${total > 0 ? ((100 * used) / total).toFixed(1) : '0'}%)</span>${others > 0 ? `, ${esc(formatBytes(others))} ${OTHERS_LABEL}` : ''}</span>`;
  renderCluster($('cluster-view'), p, { option, evict });
  // Legend: machine types, then models by colour.
  const typeKeys = types.map((t, k) => `<span class="key"><span class="swatch-box" style="background:${TYPE_COLORS[k % TYPE_COLORS.length]}"></span>${esc(t.label)}</span>`);
  const models = new Map<string, number>();
  for (const w of p.workloads()) if (w.slotId !== undefined) models.set(w.label, w.color);
  const modelKeys = [...models].map(([label, color]) => `<span class="key" data-testid="legend-model"><span class="swatch-box" style="background:${workloadColor(color)}"></span>${esc(label)}</span>`);
  $('cluster-legend').innerHTML = [...typeKeys, ...modelKeys, ...slotStateKeys(), '<span class="key"><span class="swatch-box planned-box"></span>planned</span>'].join('');
}

function renderNodeView(): void {
  const p = requirePlanner();
  const id = p.selected;
  if (id === undefined || !p.hasNode(id)) {
    $('node-title').textContent = 'No node selected';
    $('node-summary').innerHTML = '';
    $('node-drawing').replaceChildren();
    $('pcie-host').replaceChildren();
    $('legend').innerHTML = '';
    return;
  }
  const inventory = p.inventoryOf(id);
  const node = p.node(id);
  const used = p.usedMemory(id);
  const totalMem = node.gpus.reduce((s, g) => s + g.memoryTotal, 0);
  const usedMem = [...used.values()].reduce((s, x) => s + x.others + x.slots, 0);
  const othersMem = [...used.values()].reduce((s, x) => s + x.others, 0);
  const nvPairs = inventory.links.filter((l) => (l.nvlink ?? 0) > 0).length;
  const migCount = inventory.gpus.reduce((s, g) => s + (g.mig?.length ?? 0), 0);
  const models = new Map<string, number>();
  for (const g of inventory.gpus) models.set(g.name ?? 'GPU', (models.get(g.name ?? 'GPU') ?? 0) + 1);
  $('node-title').textContent = `${id} · ${[...models].map(([name, count]) => `${count} × ${name}`).join(' + ')}`;
  $('node-summary').innerHTML = `<dl>
    <dt>type</dt><dd data-testid="node-type">${esc(p.typeLabel(id))}</dd>
    <dt>source</dt><dd data-testid="node-source">${esc(p.sourceOf(id))}</dd>
    <dt>GPUs</dt><dd data-testid="node-gpus">${node.gpus.length}${migCount > 0 ? ` (${migCount} MIG slices)` : ''}</dd>
    <dt>memory</dt><dd data-testid="node-memory">${esc(formatBytes(usedMem))} used of ${esc(formatBytes(totalMem))}${othersMem > 0 ? ` (${esc(formatBytes(othersMem))} ${OTHERS_LABEL})` : ''}</dd>
    <dt>links</dt><dd>${nvPairs} NVLink pair${nvPairs === 1 ? '' : 's'}, ${inventory.links.length} pairs in all</dd>
  </dl>`;

  // What the drawing overlays: the option on show when it is on this node.
  const workloads = p.workloads(id);
  const overlay: Overlay = { workloads, chosen: [], rejected: new Map(), others: p.othersOf(id), evict: new Set() };
  if (decision?.kind === 'model') {
    const option = shownOption();
    if (option !== undefined && (option.node === undefined || option.node === id)) {
      overlay.chosen = option.gpus;
      overlay.plannedPerGpu = option.memoryPerGpu;
      overlay.evict = new Set(option.evict);
    }
    for (const r of decision.timed.value.rejected) if ((r.node === undefined || r.node === id) && !overlay.rejected.has(r.gpu)) overlay.rejected.set(r.gpu, r);
  } else if (decision?.kind === 'gpus') {
    overlay.chosen = decision.timed.value.devices;
  }
  const showReplicas = activeTab === 'replicas' || decision?.kind === 'replicas' || workloads.some((w) => w.kind === 'replicas');
  if (showReplicas) {
    const perGpuCount = decision?.kind === 'replicas' ? decision.replicasPerGpu : safeCount('replicas-per-gpu', 4);
    const rv = p.replicaDevices(perGpuCount);
    const perGpu = new Map<number, string[]>();
    for (const d of rv.devices) {
      const g = rv.gpuOf.get(d) as number;
      perGpu.set(g, [...(perGpu.get(g) ?? []), d]);
    }
    const holder = new Map<string, (typeof workloads)[number]>();
    for (const w of workloads) for (const d of w.devices ?? []) holder.set(d, w);
    const chosen = new Set(decision?.kind === 'replicas' ? decision.timed.value.devices : []);
    overlay.replicas = { perGpu, holder, chosen };
    if (decision?.kind === 'replicas') overlay.chosen = [...new Set(decision.timed.value.devices.map((d) => rv.gpuOf.get(d) as number))].sort((a, b) => a - b);
  }
  $('node-drawing').replaceChildren(drawNode(inventory, overlay));
  // PCIe as a tree by switch level: shown when asked, and always on machines without NVLink.
  const showPcie = input('show-pcie').checked || nvPairs === 0;
  $('pcie-panel').hidden = !showPcie;
  if (showPcie) $('pcie-host').replaceChildren(drawPcieTree(pcieTree(node.gpus.map((g) => g.index), inventory.links), new Set(overlay.chosen)));
  else $('pcie-host').replaceChildren();
  $('legend').innerHTML = legendHtml(inventory);
}

function safeCount(testid: string, fallback: number): number {
  const v = Number(input(testid).value);
  return Number.isInteger(v) && v >= 1 && v <= 64 ? v : fallback;
}

function renderResult(): void {
  const body = $('result-body');
  const timing = $('decision-time');
  if (decision === undefined) {
    $('result-title').textContent = 'Decision';
    timing.innerHTML = '';
    body.innerHTML = '<p class="hint" data-testid="result-empty">Plan a model, or allocate replicas or whole GPUs, to see the engine\'s decision here.</p>';
    return;
  }
  const t = decision.timed;
  timing.innerHTML = `<span class="badge backend-${t.backend}" data-testid="decision-backend">${t.backend}</span> <span data-testid="decision-ms" data-ms="${t.ms}">${esc(formatMs(t.ms, t.runs))}</span> <span class="muted">per decision, mean of ${t.runs} run${t.runs === 1 ? '' : 's'}</span>${t.other ? ` <span class="muted" data-testid="decision-other" data-backend="${t.other.backend}" data-ms="${t.other.ms}">· ${t.other.backend}: ${esc(formatMs(t.other.ms, t.other.runs))}</span>` : ''}`;
  if (decision.kind === 'model') renderPlan(body, decision);
  else if (decision.kind === 'replicas') renderReplicas(body, decision);
  else renderAligned(body, decision);
}

function renderPlan(body: HTMLElement, d: Extract<Decision, { kind: 'model' }>): void {
  $('result-title').textContent = `Plan${d.scope === 'cluster' ? ' across the cluster' : ` on ${requirePlanner().selected}`}: ${d.label} (${formatBytes(d.memory)})`;
  const { options, rejected } = d.timed.value;
  const cluster = d.scope === 'cluster';
  // The slots an option evicts, described from the state (model, node, GPUs, memory).
  const slots = new Map<string, { model: string; node: string; gpus: number[]; memoryPerGpu: number }>();
  for (const n of requirePlanner().nodes()) for (const x of n.slots) slots.set(x.id, { model: x.model ?? x.id, node: n.id, gpus: x.gpus, memoryPerGpu: x.memoryPerGpu });
  const evictCell = (ids: string[]): string =>
    ids.length === 0
      ? '<span class="muted">—</span>'
      : ids.map((id) => {
          const x = slots.get(id);
          return `<span class="evict-tag" data-testid="evict-tag" data-slot="${esc(id)}" title="${esc(x ? `${x.model} on ${x.node} GPUs ${x.gpus.join(',')}, ${formatBytes(x.memoryPerGpu)} per GPU` : id)}">${esc(id)}${x ? ` · ${esc(x.model)}` : ''}</span>`;
        }).join(' ');
  let html = '';
  if (options.length === 0) {
    html += `<div class="notice" data-testid="no-option"><b>No viable option.</b> No GPU set has room for ${esc(formatBytes(d.memory))} with the allowed tensor-parallel sizes${input('model-evict').checked ? ', even after evicting stale work' : ''}. See the per-GPU reasons below.</div>`;
  } else {
    html += `<table class="options" data-testid="options"><thead><tr><th>rank</th>${cluster ? '<th>node</th>' : ''}<th>GPUs</th><th>TP</th><th class="num">memory / GPU</th><th>evicts</th><th class="num">score</th></tr></thead><tbody>`;
    options.forEach((o, k) => {
      html += `<tr data-testid="option-row" data-rank="${k + 1}" data-node="${esc(o.node ?? '')}" data-gpus="${o.gpus.join(',')}" data-memory-per-gpu="${o.memoryPerGpu}" data-score="${o.score}" data-evict="${esc(o.evict.join(','))}" class="${k === d.selected ? 'selected' : ''}${o.evict.length > 0 ? ' evicts' : ''}" tabindex="0">
        <td>${k + 1}</td>${cluster ? `<td><code>${esc(o.node ?? '')}</code></td>` : ''}<td><code>${o.gpus.join(', ')}</code></td><td>${o.gpus.length}</td><td class="num">${esc(formatBytes(o.memoryPerGpu))}</td><td>${evictCell(o.evict)}</td><td class="num">${o.score}</td></tr>`;
    });
    html += '</tbody></table>';
    const sel = options[d.selected];
    html += `<div class="actions"><button type="button" class="primary" data-testid="commit-button">Commit option ${d.selected + 1} (${sel.node !== undefined ? `${esc(sel.node)} ` : ''}GPUs ${sel.gpus.join(', ')}${sel.evict.length > 0 ? `, evicting ${sel.evict.length}` : ''})</button><span class="muted">Click a row to preview another option on the ${cluster ? 'cluster' : 'drawing'}.</span></div>`;
  }
  html += renderRejections(rejected);
  body.innerHTML = html;
  for (const row of body.querySelectorAll<HTMLTableRowElement>('[data-testid="option-row"]')) {
    const pick = (): void => {
      d.selected = Number(row.dataset.rank) - 1;
      render();
      body.querySelector<HTMLElement>(`[data-testid="option-row"][data-rank="${d.selected + 1}"]`)?.focus();
    };
    row.addEventListener('click', pick);
    row.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        pick();
      }
    });
  }
}

function renderRejections(rejected: PlacementPlan['rejected']): string {
  if (rejected.length === 0) return '';
  const nodes = rejected.some((r) => r.node !== undefined);
  let html = `<h3>Rejected GPUs</h3><table class="rejections" data-testid="rejections"><thead><tr>${nodes ? '<th>node</th>' : ''}<th>GPU</th><th>reason</th><th class="num">short by</th><th>detail</th></tr></thead><tbody>`;
  for (const r of rejected.slice(0, 200)) {
    html += `<tr data-testid="rejection-row" data-node="${esc(r.node ?? '')}" data-gpu="${r.gpu}" data-code="${esc(r.code)}" data-short-by="${r.shortBy ?? ''}">${nodes ? `<td>${esc(r.node ?? '')}</td>` : ''}<td>${r.gpu}</td><td><span class="code">${esc(r.code)}</span></td><td class="num">${r.shortBy !== undefined ? esc(formatBytes(r.shortBy)) : '—'}</td><td>${esc(r.message)}</td></tr>`;
  }
  return `${html}</tbody></table>${rejected.length > 200 ? `<p class="hint">…and ${rejected.length - 200} more.</p>` : ''}`;
}

function renderReplicas(body: HTMLElement, d: Extract<Decision, { kind: 'replicas' }>): void {
  $('result-title').textContent = `Replicas: ${d.label}`;
  const { devices, reason } = d.timed.value;
  if (devices.length === 0) {
    body.innerHTML = `<div class="notice" data-testid="no-option"><b>${esc(reason?.code ?? 'No devices')}.</b> ${esc(reason?.message ?? '')}</div>`;
    return;
  }
  const rv = requirePlanner().replicaDevices(d.replicasPerGpu);
  body.innerHTML = `<table class="options" data-testid="replica-result"><thead><tr><th>#</th><th>device</th><th>GPU</th></tr></thead><tbody>${devices
    .map((id, k) => `<tr data-testid="replica-row" data-id="${esc(id)}" data-gpu="${rv.gpuOf.get(id)}"><td>${k + 1}</td><td><code>${esc(id)}</code></td><td>${rv.gpuOf.get(id)}</td></tr>`)
    .join('')}</tbody></table><div class="actions"><button type="button" class="primary" data-testid="commit-button">Commit ${devices.length} device${devices.length === 1 ? '' : 's'}</button></div>`;
}

function renderAligned(body: HTMLElement, d: Extract<Decision, { kind: 'gpus' }>): void {
  $('result-title').textContent = `Whole GPUs: ${d.label}`;
  const { devices, score, reason } = d.timed.value;
  if (devices.length === 0) {
    body.innerHTML = `<div class="notice" data-testid="no-option"><b>${esc(reason?.code ?? 'No GPUs')}.</b> ${esc(reason?.message ?? '')}</div>`;
    return;
  }
  body.innerHTML = `<p data-testid="aligned-result" data-gpus="${devices.join(',')}" data-score="${score}">GPUs <code>${devices.join(', ')}</code> · set score <b>${score}</b> <span class="muted">(sum of pair scores: 100 per NVLink + PCIe level)</span></p><div class="actions"><button type="button" class="primary" data-testid="commit-button">Commit GPUs ${devices.join(', ')}</button></div>`;
}

function renderWorkloads(): void {
  const p = requirePlanner();
  const list = $('workloads');
  const scoped = view === 'node' && p.selected !== undefined && p.hasNode(p.selected);
  const workloads = scoped ? p.workloads(p.selected) : p.workloads();
  $('workloads-title').textContent = scoped ? `Committed work on ${p.selected}` : 'Committed work (cluster)';
  const others = scoped ? [...p.othersOf(p.selected as string)] : [];
  if (workloads.length === 0 && others.length === 0) {
    list.innerHTML = '<li class="muted">Nothing committed yet.</li>';
    return;
  }
  const shown = workloads.slice(0, 300);
  list.innerHTML =
    others.map(([gpu, bytes]) => `<li data-testid="workload-others" data-gpu="${gpu}" data-bytes="${bytes}"><span class="swatch hatch-others"></span><span class="wl-label">${OTHERS_LABEL}</span><span class="muted">GPU ${gpu} · ${esc(formatBytes(bytes))} · never evicted</span></li>`).join('') +
    shown
      .map((w) => {
        const what = w.kind === 'replicas' ? `${w.devices?.length ?? 0} devices` : `${formatBytes(w.memoryPerGpu)} / GPU`;
        const stale = w.kind === 'model' ? `<button type="button" class="link" data-stale="${esc(w.id)}" data-testid="stale-${esc(w.id)}" title="a stale model may be evicted by another model">${w.stale ? 'mark active' : 'mark stale'}</button>` : '';
        const release = `<button type="button" class="link" data-release="${esc(w.id)}" data-testid="release-${esc(w.id)}">release</button>`;
        return `<li data-testid="workload" data-kind="${w.kind}" data-node="${esc(w.node)}" data-gpus="${w.gpus.join(',')}" data-slot="${esc(w.slotId ?? '')}" data-stale="${w.stale === true}"><span class="swatch" style="background:${workloadColor(w.color)}"></span><span class="wl-label">${esc(w.label)}</span>${w.stale ? '<span class="badge stale">stale</span>' : ''}<span class="muted">${w.slotId !== undefined ? `${esc(w.slotId)} · ` : ''}${scoped ? '' : `${esc(w.node)} · `}GPUs ${w.gpus.join(',')} · ${esc(what)}</span><span class="wl-actions">${stale}${release}</span></li>`;
      })
      .join('') +
    (workloads.length > shown.length ? `<li class="muted">…and ${workloads.length - shown.length} more (open a node to see its work).</li>` : '');
  for (const b of list.querySelectorAll<HTMLButtonElement>('[data-release]')) {
    b.addEventListener('click', guard('release', () => {
      p.release(b.dataset.release as string);
      logDecision('release', undefined, b.dataset.release as string);
      decision = undefined;
      render();
    }));
  }
  for (const b of list.querySelectorAll<HTMLButtonElement>('[data-stale]')) {
    b.addEventListener('click', guard('markStale', () => {
      const id = b.dataset.stale as string;
      const stale = !(p.workloads().find((w) => w.id === id)?.stale ?? false);
      p.setStale(id, stale);
      logDecision('markStale', undefined, `${id} ${stale ? 'stale' : 'active'}`);
      decision = undefined;
      render();
    }));
  }
}

/** How full the cluster is, by machine type: nodes, GPUs, memory used, GPUs and nodes with nothing on them. */
function renderCapacity(): void {
  const p = requirePlanner();
  $('fragmentation-title').textContent = 'Capacity by machine type';
  const rows = new Map<string, { nodes: number; gpus: number; total: number; used: number; emptyGpus: number; emptyNodes: number; largest: number }>();
  for (const n of p.nodes()) {
    const label = p.typeLabel(n.id);
    const r = rows.get(label) ?? { nodes: 0, gpus: 0, total: 0, used: 0, emptyGpus: 0, emptyNodes: 0, largest: 0 };
    let nodeUsed = 0;
    const usage = p.usedMemory(n.id);
    for (const g of n.gpus) {
      const u = usage.get(g.index) ?? { others: 0, slots: 0 };
      const used = u.others + u.slots;
      r.gpus++;
      r.total += g.memoryTotal;
      r.used += used;
      if (used === 0) r.emptyGpus++;
      r.largest = Math.max(r.largest, g.memoryTotal - used);
      nodeUsed += used;
    }
    r.nodes++;
    if (nodeUsed === 0) r.emptyNodes++;
    rows.set(label, r);
  }
  $('fragmentation').innerHTML = rows.size === 0 ? '<p class="hint">No nodes.</p>' : `<div class="scroll-x"><table class="capacity" data-testid="capacity"><thead><tr><th>type</th><th class="num">nodes</th><th class="num">used</th><th class="num">idle GPUs</th><th class="num">idle nodes</th><th class="num">most free on a GPU</th></tr></thead><tbody>${[...rows]
    .map(([label, r]) => `<tr data-testid="capacity-type" data-type="${esc(label)}" data-nodes="${r.nodes}" data-used="${r.used}" data-total="${r.total}" data-empty-gpus="${r.emptyGpus}" data-empty-nodes="${r.emptyNodes}" data-largest="${r.largest}"><td>${esc(label)}</td><td class="num">${r.nodes}</td><td class="num">${r.total > 0 ? ((100 * r.used) / r.total).toFixed(1) : '0'}%</td><td class="num">${r.emptyGpus} / ${r.gpus}</td><td class="num">${r.emptyNodes}</td><td class="num">${esc(formatBytes(r.largest))}</td></tr>`)
    .join('')}</tbody></table></div>`;
}

function renderFragmentation(): void {
  const p = requirePlanner();
  if (view === 'cluster') {
    renderCapacity();
    return;
  }
  $('fragmentation-title').textContent = 'Fragmentation';
  const id = p.selected;
  if (id === undefined || !p.hasNode(id)) {
    $('fragmentation').innerHTML = '';
    return;
  }
  const node = p.node(id);
  const used = p.usedMemory(id);
  const whole = p.wholeGpus();
  const free = node.gpus.map((g) => {
    const u = used.get(g.index) ?? { others: 0, slots: 0 };
    const usedBytes = whole.has(g.index) ? g.memoryTotal : Math.min(u.others + u.slots, g.memoryTotal);
    return { gpu: g.index, bytes: g.memoryTotal - usedBytes, partial: usedBytes > 0 && usedBytes < g.memoryTotal };
  });
  const totalFree = free.reduce((s, f) => s + f.bytes, 0);
  const sorted = [...free].sort((a, b) => b.bytes - a.bytes || a.gpu - b.gpu);
  const largest = sorted[0]?.bytes ?? 0;
  // Stranded: free memory on GPUs that already hold work (whole-GPU work cannot use it).
  const stranded = free.filter((f) => f.partial).reduce((s, f) => s + f.bytes, 0);
  const emptyGpus = free.filter((f) => f.bytes > 0 && !f.partial).length;
  const fragmentation = totalFree > 0 ? stranded / totalFree : 0;
  const rows = tpChoices(node.gpus.length)
    .filter((k) => k <= sorted.length)
    .map((k) => `<tr data-testid="capacity-row" data-tp="${k}" data-bytes="${k * sorted[k - 1].bytes}"><td>TP ${k}</td><td class="num">${esc(formatBytes(k * sorted[k - 1].bytes))}</td></tr>`)
    .join('');
  $('fragmentation').innerHTML = `<div class="stats">
      <div><span class="stat" data-testid="free-total" data-bytes="${totalFree}">${esc(formatBytes(totalFree))}</span><span class="muted">free in all</span></div>
      <div><span class="stat" data-testid="free-largest" data-bytes="${largest}">${esc(formatBytes(largest))}</span><span class="muted">largest free on one GPU</span></div>
      <div><span class="stat" data-testid="empty-gpus">${emptyGpus}</span><span class="muted">empty GPUs</span></div>
      <div><span class="stat" data-testid="fragmentation-index" data-stranded="${stranded}">${(fragmentation * 100).toFixed(0)}%</span><span class="muted">of free memory stranded on partly used GPUs</span></div>
    </div>
    <table class="kv"><thead><tr><th>largest model that fits now</th><th class="num">no eviction</th></tr></thead><tbody>${rows}</tbody></table>`;
}

// ---------- start ----------

function switchTab(tab: 'model' | 'replicas' | 'gpus'): void {
  activeTab = tab;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const f of document.querySelectorAll<HTMLElement>('[data-tab-body]')) f.hidden = f.dataset.tabBody !== tab;
  render();
}

/** Shows a view: 'cluster' (every node) or 'node' (the selected node in detail). */
function setView(next: string): void {
  if (!VIEWS.some((v) => v.id === next)) throw new Error(`view: ${JSON.stringify(next)} is not one of ${VIEWS.map((v) => v.id).join(', ')}`);
  if (next === 'node') requirePlanner().requireSelected();
  // A plan made for one scope does not carry over to the other (a node plan is not a cluster plan).
  if (decision?.kind === 'model' && decision.scope !== next && !(decision.scope === 'cluster' && next === 'node')) decision = undefined;
  view = next;
  render();
}

/** Acts on a tile of the cluster view: open, duplicate or remove the node. */
function tileAction(e: Event): void {
  const target = (e.target as HTMLElement).closest<HTMLElement>('[data-act]');
  const tile = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="node-tile"]');
  if (target === null || tile === null) return;
  const id = tile.dataset.node as string;
  const p = requirePlanner();
  if (target.dataset.act === 'open') openNode(id);
  else if (target.dataset.act === 'duplicate') {
    const copy = p.duplicateNode(id);
    logDecision('duplicate node', undefined, `${id} → ${copy}`);
    render();
  } else if (target.dataset.act === 'remove') {
    const slots = p.node(id).slots.length;
    p.removeNode(id);
    if (decision?.kind === 'model') decision = undefined;
    logDecision('remove node', undefined, `${id}${slots > 0 ? ` with ${slots} slot${slots === 1 ? '' : 's'}` : ''}`);
    render();
  }
}

function wire(): void {
  $('error-close').addEventListener('click', clearError);
  window.addEventListener('error', (e) => showError(e.error ?? e.message, 'unexpected error'));
  window.addEventListener('unhandledrejection', (e) => showError(e.reason, 'unexpected error'));
  $('view-switcher').innerHTML = VIEWS.map((v) => `<button type="button" class="seg" data-view="${esc(v.id)}" data-testid="view-${esc(v.id)}">${esc(v.label)}</button>`).join('');
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-view]')) b.addEventListener('click', guard('view', () => setView(b.dataset.view as string)));
  select('add-type').addEventListener('change', describeType);
  $('add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void guard('add nodes', addNodes)();
  });
  input('inventory-file').addEventListener('change', guard('inventory file', async () => {
    const file = input('inventory-file').files?.[0];
    if (file === undefined) return;
    try {
      await loadInventoryFile(file);
    } finally {
      // Clear the picker so choosing the same (fixed) file again fires a new change event.
      input('inventory-file').value = '';
    }
  }));
  input('import-state').addEventListener('change', guard('import state', async () => {
    const file = input('import-state').files?.[0];
    if (file === undefined) return;
    try {
      await importState(file);
    } finally {
      input('import-state').value = '';
    }
  }));
  $('export-state').addEventListener('click', guard('export state', exportState));
  $('clear-cluster').addEventListener('click', guard('clear cluster', () => {
    const p = requirePlanner();
    const n = p.nodes().length;
    p.clearCluster();
    decision = undefined;
    logDecision('clear cluster', undefined, `${n} node${n === 1 ? '' : 's'} removed`);
    setView('cluster');
  }));
  $('cluster-view').addEventListener('click', (e) => void guard('node', () => tileAction(e))());
  $('cluster-view').addEventListener('keydown', (e) => {
    if ((e.key === 'Enter' || e.key === ' ') && (e.target as HTMLElement).closest('[data-act]') !== null && (e.target as HTMLElement).tagName !== 'BUTTON') {
      e.preventDefault();
      void guard('node', () => tileAction(e))();
    }
  });
  input('gguf-file').addEventListener('change', guard('GGUF estimate', async () => {
    const file = input('gguf-file').files?.[0];
    if (file === undefined) return;
    $('gguf-estimate').innerHTML = '<p class="hint">Reading the header…</p>';
    try {
      await estimateFromGguf(file);
    } catch (error) {
      $('gguf-estimate').innerHTML = '';
      throw error;
    } finally {
      input('gguf-file').value = '';
    }
  }));
  $('reset-node').addEventListener('click', guard('clear', () => {
    const p = requirePlanner();
    const scoped = view === 'node' && p.selected !== undefined;
    const work = scoped ? p.workloads(p.selected) : p.workloads();
    for (const w of work) p.release(w.id);
    decision = undefined;
    logDecision('release all', undefined, `${work.length} released${scoped ? ` on ${p.selected}` : ''}`);
    render();
  }));
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-backend]')) {
    b.addEventListener('click', guard('backend', () => {
      requirePlanner().setBackend(b.dataset.backend as Backend);
      render();
    }));
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) b.addEventListener('click', () => switchTab(b.dataset.tab as 'model' | 'replicas' | 'gpus'));
  const submit = (testid: string, context: string, action: () => void): void => {
    $(testid).addEventListener('submit', (e) => {
      e.preventDefault();
      void guard(context, action)();
    });
  };
  submit('model-form', 'plan', planModel);
  submit('replicas-form', 'allocateReplicas', allocateReplicas);
  submit('gpus-form', 'allocateAligned', allocateGpus);
  $('result-body').addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('[data-testid="commit-button"]') !== null) void guard('commit', commitDecision)();
  });
  input('show-pcie').addEventListener('change', () => render());
  input('replicas-per-gpu').addEventListener('input', () => {
    if (decision?.kind !== 'replicas') render();
  });
}

async function start(): Promise<void> {
  wire();
  const created = await Planner.create();
  planner = created.planner;
  if (created.wasmError !== undefined) showError(created.wasmError, 'WebAssembly core failed to load; using the ts backend');
  $('engine-status').dataset.ready = 'true';
  input('gguf-context').value = String(DEFAULT_CONTEXT_LENGTH); // one default everywhere (API, CLI, page)
  const presets = listPresets();
  for (const preset of presets) planner.addType(`preset:${preset.name}`, preset.name, getPreset(preset.name), `preset ${preset.name}`);
  let restored = false;
  try {
    restored = planner.load(window.localStorage);
  } catch (error) {
    showError(error, 'the saved cluster could not be restored (starting afresh; it is replaced on the next change)');
  }
  // Built-in presets are always offered, also after a reload.
  for (const preset of presets) if (planner.machineType(`preset:${preset.name}`) === undefined) planner.addType(`preset:${preset.name}`, preset.name, getPreset(preset.name), `preset ${preset.name}`);
  fillTypeSelect();
  select('add-type').value = `preset:${DEFAULT_PRESET}`;
  describeType();
  switchTab('model');
  if (!restored && planner.machineType(`preset:${DEFAULT_PRESET}`) !== undefined) planner.addNodes(`preset:${DEFAULT_PRESET}`, 1);
  document.body.dataset.ready = 'true';
  document.body.dataset.restored = String(restored);
  render();
  persist();
}

start().catch((error) => {
  showError(error, 'start-up');
  $('engine-status').textContent = 'failed to start';
  document.body.dataset.ready = 'error';
});
