// What the node planner's controls do: each action reads its form, calls the Planner, records the
// decision in the page's state and the log, and renders. main.ts wires them to the controls.
import type { ReplicaPolicy } from '../../src/index.ts';
import { byTestId, plural } from '../shared/dom.ts';
import { input, type Page, select, type Tab } from './page.ts';
import { fillTypeSelect, parseCount, parseMemory, selectedTpSizes } from './panels/forms.ts';
import { VIEWS } from './views.ts';

/** Adds the form's count of nodes of the picked machine type. */
export function addNodes(page: Page): void {
  const p = page.planner();
  const key = select('add-type').value;
  const count = parseCount('add-count', 'count', 1, 10_000);
  const ids = p.addNodes(key, count);
  page.log('add nodes', undefined, `${count} × ${p.machineType(key)?.label ?? key}: ${ids[0]}${ids.length > 1 ? ` … ${ids[ids.length - 1]}` : ''}`);
  page.state.decision = undefined;
  page.render();
}

/** Adds a machine type from an inventory JSON file and picks it. */
export async function loadInventoryFile(page: Page, file: File): Promise<void> {
  const p = page.planner();
  const text = await file.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${file.name} is not valid JSON: ${(cause as Error).message}`);
  }
  const host = (json as { host?: unknown } | null)?.host;
  const label = typeof host === 'string' && host !== '' ? host : file.name.replace(/\.json$/i, '');
  const key = p.addType(`file:${file.name}`, label, json, file.name);
  fillTypeSelect(page);
  select('add-type').value = key;
  const inv = p.machineType(key)?.inventory;
  byTestId('type-description').textContent = `Loaded ${file.name}: ${inv?.gpus.length ?? 0} GPUs${inv?.host ? ` (host ${inv.host})` : ''}. Add nodes of it with a count.`;
}

/** Downloads the state file (the same bytes `gpualloc plan --state FILE` writes). */
export function exportState(page: Page): void {
  const p = page.planner();
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
  page.log('export', undefined, `${p.nodes().length} nodes, ${p.snapshot().nodes.reduce((sum, n) => sum + n.slots.length, 0)} slots (${text.length} bytes)`);
}

/** Replaces the cluster with a state file's. */
export async function importState(page: Page, file: File): Promise<void> {
  const p = page.planner();
  p.importText(await file.text(), file.name);
  page.state.decision = undefined;
  page.log('import', undefined, `${file.name}: ${p.nodes().length} nodes, ${p.snapshot().nodes.reduce((sum, n) => sum + n.slots.length, 0)} slots`);
  page.render();
}

/** Removes every node and goes back to the cluster view. */
export function clearCluster(page: Page): void {
  const p = page.planner();
  const n = p.nodes().length;
  p.clearCluster();
  page.state.decision = undefined;
  page.log('clear cluster', undefined, `${plural(n, 'node')} removed`);
  setView(page, 'cluster');
}

/** Releases all work on the node on show (node view) or in the cluster. */
export function releaseAll(page: Page): void {
  const p = page.planner();
  const scoped = page.state.view === 'node' && p.selected !== undefined;
  const work = scoped ? p.workloads(p.selected) : p.workloads();
  for (const w of work) p.release(w.id);
  page.state.decision = undefined;
  page.log('release all', undefined, `${work.length} released${scoped ? ` on ${p.selected}` : ''}`);
  page.render();
}

/** Plans the form's model across the cluster (cluster view) or on the node on show. */
export function planModel(page: Page): void {
  const p = page.planner();
  const label = input('model-name').value.trim() || 'model';
  const memory = parseMemory(page.state);
  const request = { memory, model: label, tensorParallelSizes: selectedTpSizes(), policy: select('model-policy').value as 'spread' | 'pack', allowEviction: input('model-evict').checked };
  const scope = page.state.view === 'node' ? 'node' : 'cluster';
  const timed = scope === 'node' ? p.planNode(request) : p.planCluster(request);
  page.state.decision = { kind: 'model', scope, label, memory, timed, selected: 0 };
  const best = timed.value.options[0];
  page.log(
    scope === 'node' ? 'planPlacement' : 'state.plan',
    timed,
    best ? `${plural(timed.value.options.length, 'option')}; best ${best.node !== undefined ? `${best.node} ` : ''}GPUs ${best.gpus.join(',')}` : 'no viable option',
  );
  page.render();
}

/** Picks replica devices on the node on show. */
export function allocateReplicas(page: Page): void {
  const p = page.planner();
  const replicasPerGpu = parseCount('replicas-per-gpu', 'replicas per GPU', 1, 64);
  const size = parseCount('replicas-size', 'size', 1, 4096);
  const policy = select('replicas-policy').value as ReplicaPolicy;
  const timed = p.allocateReplicas(replicasPerGpu, size, policy);
  page.state.decision = { kind: 'replicas', label: `${plural(size, 'replica')} (${policy})`, replicasPerGpu, timed };
  page.state.view = 'node';
  page.log('allocateReplicas', timed, timed.value.devices.length > 0 ? `${timed.value.devices.length} devices` : (timed.value.reason?.code ?? 'none'));
  page.render();
}

/** Picks whole GPUs on the node on show. */
export function allocateGpus(page: Page): void {
  const p = page.planner();
  const size = parseCount('gpus-size', 'GPUs', 1, 64);
  const policy = select('gpus-policy').value as 'besteffort' | 'topology';
  const timed = p.allocateAligned(size, policy);
  page.state.decision = { kind: 'gpus', label: `${plural(size, 'whole GPU')} (${policy})`, timed };
  page.state.view = 'node';
  page.log('allocateAligned', timed, timed.value.devices.length > 0 ? `GPUs ${timed.value.devices.join(',')}, score ${timed.value.score}` : (timed.value.reason?.code ?? 'none'));
  page.render();
}

/** Commits the decision on show. */
export function commitDecision(page: Page): void {
  const p = page.planner();
  const { decision } = page.state;
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
  page.log('commit', { backend: p.backend, ms, runs: 1 }, outcome);
  page.state.decision = undefined;
  page.render();
}

/** Shows a view: 'cluster' (every node) or 'node' (the selected node in detail). */
export function setView(page: Page, next: string): void {
  if (!VIEWS.some((v) => v.id === next)) throw new Error(`view: ${JSON.stringify(next)} is not one of ${VIEWS.map((v) => v.id).join(', ')}`);
  if (next === 'node') page.planner().requireSelected();
  const { decision } = page.state;
  // A plan made for one scope does not carry over to the other (a node plan is not a cluster plan).
  if (decision?.kind === 'model' && decision.scope !== next && !(decision.scope === 'cluster' && next === 'node')) page.state.decision = undefined;
  page.state.view = next;
  page.render();
}

/** Shows a workload tab. */
export function switchTab(page: Page, tab: Tab): void {
  page.state.activeTab = tab;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const f of document.querySelectorAll<HTMLElement>('[data-tab-body]')) f.hidden = f.dataset.tabBody !== tab;
  page.render();
}

/** Acts on a tile of the cluster view: open, duplicate or remove the node. */
export function tileAction(page: Page, e: Event): void {
  const target = (e.target as HTMLElement).closest<HTMLElement>('[data-act]');
  const tile = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="node-tile"]');
  if (target === null || tile === null) return;
  const id = tile.dataset.node as string;
  const p = page.planner();
  const { decision } = page.state;
  if (target.dataset.act === 'open') {
    if (!p.hasNode(id)) throw new Error(`node ${JSON.stringify(id)} is not in the cluster`);
    if (p.selected !== id && !(decision?.kind === 'model' && decision.scope === 'cluster')) page.state.decision = undefined;
    p.selected = id;
    setView(page, 'node');
  } else if (target.dataset.act === 'duplicate') {
    const copy = p.duplicateNode(id);
    page.log('duplicate node', undefined, `${id} → ${copy}`);
    page.render();
  } else if (target.dataset.act === 'remove') {
    const slots = p.node(id).slots.length;
    p.removeNode(id);
    if (decision?.kind === 'model') page.state.decision = undefined;
    page.log('remove node', undefined, `${id}${slots > 0 ? ` with ${plural(slots, 'slot')}` : ''}`);
    page.render();
  }
}
