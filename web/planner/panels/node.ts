// The node view: the selected node's summary, its drawing (GPU cards, NVLinks, MIG slices or
// replicas, the decision on show overlaid) and, when asked or when it has no NVLink, its PCIe tree.
import { formatBytes } from '../../../src/index.ts';
import { byTestId, h, plural } from '../../shared/dom.ts';
import { drawNode, legendKeys, OTHERS_LABEL, type Overlay } from '../draw.ts';
import { input, type Page, shownOption } from '../page.ts';
import { drawPcieTree, pcieTree } from '../pcie-tree.ts';
import type { Workload } from '../types.ts';
import { safeCount } from './forms.ts';

/** Renders the node view from the page's state. */
export function renderNodeView(page: Page): void {
  const p = page.planner();
  const { decision } = page.state;
  const id = p.selected;
  if (id === undefined || !p.hasNode(id)) {
    byTestId('node-title').textContent = 'No node selected';
    for (const testid of ['node-summary', 'node-drawing', 'pcie-host', 'legend']) byTestId(testid).replaceChildren();
    return;
  }
  const inventory = p.inventoryOf(id);
  const node = p.node(id);
  const used = p.usedMemory(id);
  const totalMem = node.gpus.reduce((sum, g) => sum + g.memoryTotal, 0);
  const usedMem = [...used.values()].reduce((sum, x) => sum + x.others + x.slots, 0);
  const othersMem = [...used.values()].reduce((sum, x) => sum + x.others, 0);
  const nvPairs = inventory.links.filter((l) => (l.nvlink ?? 0) > 0).length;
  const migCount = inventory.gpus.reduce((sum, g) => sum + (g.mig?.length ?? 0), 0);
  const models = new Map<string, number>();
  for (const g of inventory.gpus) models.set(g.name ?? 'GPU', (models.get(g.name ?? 'GPU') ?? 0) + 1);
  byTestId('node-title').textContent = `${id} · ${[...models].map(([name, count]) => `${count} × ${name}`).join(' + ')}`;
  byTestId('node-summary').replaceChildren(
    h(
      'dl',
      {},
      h('dt', {}, 'type'),
      h('dd', { 'data-testid': 'node-type' }, p.typeLabel(id)),
      h('dt', {}, 'source'),
      h('dd', { 'data-testid': 'node-source' }, p.sourceOf(id)),
      h('dt', {}, 'GPUs'),
      h('dd', { 'data-testid': 'node-gpus' }, `${node.gpus.length}${migCount > 0 ? ` (${migCount} MIG slices)` : ''}`),
      h('dt', {}, 'memory'),
      h('dd', { 'data-testid': 'node-memory' }, `${formatBytes(usedMem)} used of ${formatBytes(totalMem)}${othersMem > 0 ? ` (${formatBytes(othersMem)} ${OTHERS_LABEL})` : ''}`),
      h('dt', {}, 'links'),
      h('dd', {}, `${plural(nvPairs, 'NVLink pair')}, ${inventory.links.length} pairs in all`),
    ),
  );

  // What the drawing overlays: the option on show when it is on this node.
  const workloads = p.workloads(id);
  const overlay: Overlay = { workloads, chosen: [], rejected: new Map(), others: p.othersOf(id), evict: new Set() };
  if (decision?.kind === 'model') {
    const option = shownOption(page.state);
    if (option !== undefined && (option.node === undefined || option.node === id)) {
      overlay.chosen = option.gpus;
      overlay.plannedPerGpu = option.memoryPerGpu;
      overlay.evict = new Set(option.evict);
    }
    for (const r of decision.timed.value.rejected) if ((r.node === undefined || r.node === id) && !overlay.rejected.has(r.gpu)) overlay.rejected.set(r.gpu, r);
  } else if (decision?.kind === 'gpus') {
    overlay.chosen = decision.timed.value.devices;
  }
  const showReplicas = page.state.activeTab === 'replicas' || decision?.kind === 'replicas' || workloads.some((w) => w.kind === 'replicas');
  if (showReplicas) {
    const perGpuCount = decision?.kind === 'replicas' ? decision.replicasPerGpu : safeCount('replicas-per-gpu', 4);
    const rv = p.replicaDevices(perGpuCount);
    const perGpu = new Map<number, string[]>();
    for (const d of rv.devices) {
      const g = rv.gpuOf.get(d) as number;
      perGpu.set(g, [...(perGpu.get(g) ?? []), d]);
    }
    const holder = new Map<string, Workload>();
    for (const w of workloads) for (const d of w.devices ?? []) holder.set(d, w);
    const chosen = new Set(decision?.kind === 'replicas' ? decision.timed.value.devices : []);
    overlay.replicas = { perGpu, holder, chosen };
    if (decision?.kind === 'replicas') overlay.chosen = [...new Set(decision.timed.value.devices.map((d) => rv.gpuOf.get(d) as number))].sort((a, b) => a - b);
  }
  byTestId('node-drawing').replaceChildren(drawNode(inventory, overlay));
  // PCIe as a tree by switch level: shown when asked, and always on machines without NVLink.
  const showPcie = input('show-pcie').checked || nvPairs === 0;
  byTestId('pcie-panel').hidden = !showPcie;
  if (showPcie)
    byTestId('pcie-host').replaceChildren(
      drawPcieTree(
        pcieTree(
          node.gpus.map((g) => g.index),
          inventory.links,
        ),
        new Set(overlay.chosen),
      ),
    );
  else byTestId('pcie-host').replaceChildren();
  byTestId('legend').replaceChildren(...legendKeys(inventory));
}
