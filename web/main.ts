// The planning page: wires the form controls to the Planner and renders the node and each decision.
import {
  DEFAULT_CONTEXT_LENGTH,
  estimateMemory,
  formatBytes,
  getPreset,
  listPresets,
  parseBytes,
  validateInventory,
  type AlignedResult,
  type Backend,
  type Inventory,
  type MemoryEstimate,
  type PlacementPlan,
  type ReplicaPolicy,
  type ReplicaResult,
} from '../src/index.ts';
import { drawNode, legendHtml, workloadColor, type Overlay } from './draw.ts';
import { describeError, Planner, type Timed } from './planner.ts';

/** The decision on show in the result panel. */
type Decision =
  | { kind: 'model'; label: string; memory: number; timed: Timed<PlacementPlan>; selected: number }
  | { kind: 'replicas'; label: string; replicasPerGpu: number; timed: Timed<ReplicaResult> }
  | { kind: 'gpus'; label: string; timed: Timed<AlignedResult> };

const DEFAULT_PRESET = 'dgx-a100';
const GGUF_PREFIXES = [16 * 2 ** 20, 128 * 2 ** 20, 1024 * 2 ** 20];

let planner: Planner | undefined;
let decision: Decision | undefined;
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

/** Escapes text for innerHTML. */
function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
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
  };
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

// ---------- the node ----------

function loadInventory(value: unknown, source: string): void {
  const p = requirePlanner();
  try {
    p.setInventory(value as Inventory, source);
  } finally {
    decision = undefined;
    const n = p.inventory?.gpus.length ?? 0;
    $('model-tp').innerHTML = tpChoices(n).map((k) => `<label class="chip"><input type="checkbox" value="${k}" data-testid="tp-${k}" checked /><span>TP ${k}</span></label>`).join('');
    render();
  }
}

function loadPreset(name: string): void {
  const inventory = getPreset(name);
  loadInventory(inventory, `preset ${name}`);
  $('preset-description').textContent = listPresets().find((p) => p.name === name)?.description ?? '';
  input('inventory-file').value = '';
}

async function loadInventoryFile(file: File): Promise<void> {
  const text = await file.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${file.name} is not valid JSON: ${(cause as Error).message}`);
  }
  const inventory = validateInventory(json, file.name);
  loadInventory(inventory, `file ${file.name}`);
  select('preset-select').value = '';
  $('preset-description').textContent = `Loaded ${file.name}${inventory.host ? ` (host ${inventory.host})` : ''}.`;
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
  const timed = p.planModel(request);
  decision = { kind: 'model', label, memory, timed, selected: 0 };
  const best = timed.value.options[0];
  logDecision('plan', timed, best ? `${timed.value.options.length} options; best GPUs ${best.gpus.join(',')}` : 'no viable option');
  render();
}

function allocateReplicas(): void {
  const p = requirePlanner();
  const replicasPerGpu = parseCount('replicas-per-gpu', 'replicas per GPU', 1, 64);
  const size = parseCount('replicas-size', 'size', 1, 4096);
  const policy = select('replicas-policy').value as ReplicaPolicy;
  const timed = p.allocateReplicas(replicasPerGpu, size, policy);
  decision = { kind: 'replicas', label: `${size} replica${size === 1 ? '' : 's'} (${policy})`, replicasPerGpu, timed };
  logDecision('allocateReplicas', timed, timed.value.devices.length > 0 ? `${timed.value.devices.length} devices` : timed.value.reason?.code ?? 'none');
  render();
}

function allocateGpus(): void {
  const p = requirePlanner();
  const size = parseCount('gpus-size', 'GPUs', 1, 64);
  const policy = select('gpus-policy').value as 'besteffort' | 'topology';
  const timed = p.allocateAligned(size, policy);
  decision = { kind: 'gpus', label: `${size} whole GPU${size === 1 ? '' : 's'} (${policy})`, timed };
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
    const slot = p.commitOption(option, decision.label);
    outcome = `${decision.label} → ${slot} on GPUs ${option.gpus.join(',')}${option.evict.length > 0 ? `, evicted ${option.evict.join(', ')}` : ''}`;
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

function render(): void {
  const p = planner;
  if (p === undefined) return;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-backend]')) {
    b.classList.toggle('active', b.dataset.backend === p.backend);
    b.disabled = p.engines[b.dataset.backend as Backend] === undefined;
  }
  const inventory = p.inventory;
  if (inventory === undefined) return;
  const used = p.usedMemory();
  const totalMem = inventory.gpus.reduce((s, g) => s + g.memoryTotal, 0);
  const usedMem = [...used.values()].reduce((s, x) => s + x, 0);
  const nvPairs = inventory.links.filter((l) => (l.nvlink ?? 0) > 0).length;
  const migCount = inventory.gpus.reduce((s, g) => s + (g.mig?.length ?? 0), 0);
  const models = new Map<string, number>();
  for (const g of inventory.gpus) models.set(g.name ?? 'GPU', (models.get(g.name ?? 'GPU') ?? 0) + 1);
  $('node-title').textContent = `${inventory.host ?? 'node'} · ${[...models].map(([name, count]) => `${count} × ${name}`).join(' + ')}`;
  $('node-summary').innerHTML = `<dl>
    <dt>source</dt><dd data-testid="node-source">${esc(p.source)}</dd>
    <dt>GPUs</dt><dd data-testid="node-gpus">${inventory.gpus.length}${migCount > 0 ? ` (${migCount} MIG slices)` : ''}</dd>
    <dt>memory</dt><dd data-testid="node-memory">${esc(formatBytes(usedMem))} used of ${esc(formatBytes(totalMem))}</dd>
    <dt>links</dt><dd>${nvPairs} NVLink pair${nvPairs === 1 ? '' : 's'}, ${inventory.links.length} pairs in all</dd>
  </dl>`;

  // What the drawing overlays.
  const overlay: Overlay = { workloads: p.workloads, chosen: [], rejected: new Map(), showPcie: input('show-pcie').checked };
  if (decision?.kind === 'model') {
    const option = decision.timed.value.options[decision.selected];
    if (option !== undefined) {
      overlay.chosen = option.gpus;
      overlay.plannedPerGpu = option.memoryPerGpu;
    }
    for (const r of decision.timed.value.rejected) if ((r.node === undefined || r.node === p.node) && !overlay.rejected.has(r.gpu)) overlay.rejected.set(r.gpu, r);
  } else if (decision?.kind === 'gpus') {
    overlay.chosen = decision.timed.value.devices;
  }
  const showReplicas = activeTab === 'replicas' || decision?.kind === 'replicas' || p.workloads.some((w) => w.kind === 'replicas');
  if (showReplicas) {
    const perGpuCount = decision?.kind === 'replicas' ? decision.replicasPerGpu : safeCount('replicas-per-gpu', 4);
    const view = p.replicaDevices(perGpuCount);
    const perGpu = new Map<number, string[]>();
    for (const d of view.devices) {
      const g = view.gpuOf.get(d) as number;
      perGpu.set(g, [...(perGpu.get(g) ?? []), d]);
    }
    const holder = new Map<string, (typeof p.workloads)[number]>();
    for (const w of p.workloads) for (const d of w.devices ?? []) holder.set(d, w);
    const chosen = new Set(decision?.kind === 'replicas' ? decision.timed.value.devices : []);
    overlay.replicas = { perGpu, holder, chosen };
    if (decision?.kind === 'replicas') overlay.chosen = [...new Set(decision.timed.value.devices.map((d) => view.gpuOf.get(d) as number))].sort((a, b) => a - b);
  }
  const host = $('node-drawing');
  host.replaceChildren(drawNode(inventory, overlay));
  $('legend').innerHTML = legendHtml(inventory);

  renderResult();
  renderWorkloads();
  renderFragmentation();
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
  $('result-title').textContent = `Plan: ${d.label} (${formatBytes(d.memory)})`;
  const { options, rejected } = d.timed.value;
  let html = '';
  if (options.length === 0) {
    html += `<div class="notice" data-testid="no-option"><b>No viable option.</b> No GPU set has room for ${esc(formatBytes(d.memory))} with the allowed tensor-parallel sizes${input('model-evict').checked ? ', even after evicting stale work' : ''}. See the per-GPU reasons below.</div>`;
  } else {
    html += `<table class="options" data-testid="options"><thead><tr><th>rank</th><th>GPUs</th><th>TP</th><th class="num">memory / GPU</th><th>evicts</th><th class="num">score</th></tr></thead><tbody>`;
    options.forEach((o, k) => {
      html += `<tr data-testid="option-row" data-rank="${k + 1}" data-gpus="${o.gpus.join(',')}" data-memory-per-gpu="${o.memoryPerGpu}" data-score="${o.score}" data-evict="${esc(o.evict.join(','))}" class="${k === d.selected ? 'selected' : ''}" tabindex="0">
        <td>${k + 1}</td><td><code>${o.gpus.join(', ')}</code></td><td>${o.gpus.length}</td><td class="num">${esc(formatBytes(o.memoryPerGpu))}</td><td>${o.evict.length > 0 ? esc(o.evict.join(', ')) : '<span class="muted">—</span>'}</td><td class="num">${o.score}</td></tr>`;
    });
    html += '</tbody></table>';
    const sel = options[d.selected];
    html += `<div class="actions"><button type="button" class="primary" data-testid="commit-button">Commit option ${d.selected + 1} (GPUs ${sel.gpus.join(', ')})</button><span class="muted">Click a row to preview another option on the drawing.</span></div>`;
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
  let html = `<h3>Rejected GPUs</h3><table class="rejections" data-testid="rejections"><thead><tr><th>GPU</th><th>reason</th><th class="num">short by</th><th>detail</th></tr></thead><tbody>`;
  for (const r of rejected) {
    html += `<tr data-testid="rejection-row" data-gpu="${r.gpu}" data-code="${esc(r.code)}" data-short-by="${r.shortBy ?? ''}"><td>${r.gpu}</td><td><span class="code">${esc(r.code)}</span></td><td class="num">${r.shortBy !== undefined ? esc(formatBytes(r.shortBy)) : '—'}</td><td>${esc(r.message)}</td></tr>`;
  }
  return `${html}</tbody></table>`;
}

function renderReplicas(body: HTMLElement, d: Extract<Decision, { kind: 'replicas' }>): void {
  $('result-title').textContent = `Replicas: ${d.label}`;
  const { devices, reason } = d.timed.value;
  if (devices.length === 0) {
    body.innerHTML = `<div class="notice" data-testid="no-option"><b>${esc(reason?.code ?? 'No devices')}.</b> ${esc(reason?.message ?? '')}</div>`;
    return;
  }
  const view = requirePlanner().replicaDevices(d.replicasPerGpu);
  body.innerHTML = `<table class="options" data-testid="replica-result"><thead><tr><th>#</th><th>device</th><th>GPU</th></tr></thead><tbody>${devices
    .map((id, k) => `<tr data-testid="replica-row" data-id="${esc(id)}" data-gpu="${view.gpuOf.get(id)}"><td>${k + 1}</td><td><code>${esc(id)}</code></td><td>${view.gpuOf.get(id)}</td></tr>`)
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
  if (p.workloads.length === 0) {
    list.innerHTML = '<li class="muted">Nothing committed yet.</li>';
    return;
  }
  list.innerHTML = p.workloads
    .map((w) => {
      const what = w.kind === 'replicas' ? `${w.devices?.length ?? 0} devices` : `${formatBytes(w.memoryPerGpu)} / GPU`;
      const stale = w.kind === 'model' ? `<button type="button" class="link" data-stale="${esc(w.id)}" data-testid="stale-${esc(w.id)}" title="a stale model may be evicted by another model">${w.stale ? 'mark active' : 'mark stale'}</button>` : '';
      const release = `<button type="button" class="link" data-release="${esc(w.id)}" data-testid="release-${esc(w.id)}">release</button>`;
      return `<li data-testid="workload" data-kind="${w.kind}" data-gpus="${w.gpus.join(',')}" data-slot="${esc(w.slotId ?? '')}" data-stale="${w.stale === true}"><span class="swatch" style="background:${workloadColor(w.color)}"></span><span class="wl-label">${esc(w.label)}</span>${w.stale ? '<span class="badge stale">stale</span>' : ''}<span class="muted">${w.slotId !== undefined ? `${esc(w.slotId)} · ` : ''}GPUs ${w.gpus.join(',')} · ${esc(what)}</span><span class="wl-actions">${stale}${release}</span></li>`;
    })
    .join('');
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
      const stale = !(p.workloads.find((w) => w.id === id)?.stale ?? false);
      p.setStale(id, stale);
      logDecision('markStale', undefined, `${id} ${stale ? 'stale' : 'active'}`);
      decision = undefined;
      render();
    }));
  }
}

function renderFragmentation(): void {
  const p = requirePlanner();
  const inventory = p.inventory;
  if (inventory === undefined) return;
  const used = p.usedMemory();
  const whole = p.wholeGpus();
  const free = inventory.gpus.filter((g) => g.lost !== true).map((g) => {
    const usedBytes = whole.has(g.index) ? g.memoryTotal : Math.min(used.get(g.index) ?? 0, g.memoryTotal);
    return { gpu: g.index, bytes: g.memoryTotal - usedBytes, partial: usedBytes > 0 && usedBytes < g.memoryTotal };
  });
  const totalFree = free.reduce((s, f) => s + f.bytes, 0);
  const sorted = [...free].sort((a, b) => b.bytes - a.bytes || a.gpu - b.gpu);
  const largest = sorted[0]?.bytes ?? 0;
  // Stranded: free memory on GPUs that already hold work (whole-GPU work cannot use it).
  const stranded = free.filter((f) => f.partial).reduce((s, f) => s + f.bytes, 0);
  const emptyGpus = free.filter((f) => f.bytes > 0 && !f.partial).length;
  const fragmentation = totalFree > 0 ? stranded / totalFree : 0;
  const rows = tpChoices(inventory.gpus.length)
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

function wire(): void {
  $('error-close').addEventListener('click', clearError);
  window.addEventListener('error', (e) => showError(e.error ?? e.message, 'unexpected error'));
  window.addEventListener('unhandledrejection', (e) => showError(e.reason, 'unexpected error'));
  select('preset-select').addEventListener('change', guard('preset', () => {
    const name = select('preset-select').value;
    if (name !== '') loadPreset(name);
  }));
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
    requirePlanner().reset();
    decision = undefined;
    logDecision('reset', undefined, 'placements cleared');
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
  const status = $('engine-status');
  if (created.wasmError !== undefined) {
    showError(created.wasmError, 'WebAssembly core failed to load; using the ts backend');
    status.textContent = 'ts only (wasm failed)';
  } else {
    status.textContent = `engine ready · wasm core ${planner.engines.wasm?.memoryPages() ?? 0} pages`;
  }
  status.dataset.ready = 'true';
  input('gguf-context').value = String(DEFAULT_CONTEXT_LENGTH); // one default everywhere (API, CLI, page)
  const presets = listPresets();
  select('preset-select').innerHTML = `<option value="">(inventory file)</option>${presets.map((p) => `<option value="${esc(p.name)}">${esc(p.name)}</option>`).join('')}`;
  const first = presets.find((p) => p.name === DEFAULT_PRESET) ?? presets[0];
  switchTab('model');
  if (first !== undefined) {
    select('preset-select').value = first.name;
    try {
      loadPreset(first.name);
    } catch (error) {
      showError(error, `preset ${first.name}`);
    }
  } else {
    showError(new Error('no built-in presets: load an inventory file'), 'presets');
  }
  document.body.dataset.ready = 'true';
}

start().catch((error) => {
  showError(error, 'start-up');
  $('engine-status').textContent = 'failed to start';
  document.body.dataset.ready = 'error';
});
