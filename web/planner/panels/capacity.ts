// The fragmentation panel: in the cluster view, capacity by machine type (nodes, memory used, idle
// GPUs and nodes, the most free on one GPU); in the node view, the node's free memory, how much of
// it is stranded on partly used GPUs, and the largest model that fits now per TP size.
import { formatBytes } from '../../../src/index.ts';
import { byTestId, h } from '../../shared/dom.ts';
import { type Page, tpChoices } from '../page.ts';

/** Renders the panel for the view on show. */
export function renderFragmentation(page: Page): void {
  if (page.state.view === 'cluster') {
    renderCapacity(page);
    return;
  }
  const p = page.planner();
  byTestId('fragmentation-title').textContent = 'Fragmentation';
  const id = p.selected;
  if (id === undefined || !p.hasNode(id)) {
    byTestId('fragmentation').replaceChildren();
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
  const totalFree = free.reduce((sum, f) => sum + f.bytes, 0);
  const sorted = [...free].sort((a, b) => b.bytes - a.bytes || a.gpu - b.gpu);
  const largest = sorted[0]?.bytes ?? 0;
  // Stranded: free memory on GPUs that already hold work (whole-GPU work cannot use it).
  const stranded = free.filter((f) => f.partial).reduce((sum, f) => sum + f.bytes, 0);
  const emptyGpus = free.filter((f) => f.bytes > 0 && !f.partial).length;
  const fragmentation = totalFree > 0 ? stranded / totalFree : 0;
  const rows = tpChoices(node.gpus.length)
    .filter((k) => k <= sorted.length)
    .map((k) =>
      h('tr', { 'data-testid': 'capacity-row', 'data-tp': k, 'data-bytes': k * sorted[k - 1].bytes }, h('td', {}, `TP ${k}`), h('td', { class: 'num' }, formatBytes(k * sorted[k - 1].bytes))),
    );
  const stat = (value: HTMLElement, label: string): HTMLElement => h('div', {}, value, h('span', { class: 'muted' }, label));
  byTestId('fragmentation').replaceChildren(
    h(
      'div',
      { class: 'stats' },
      stat(h('span', { class: 'stat', 'data-testid': 'free-total', 'data-bytes': totalFree }, formatBytes(totalFree)), 'free in all'),
      stat(h('span', { class: 'stat', 'data-testid': 'free-largest', 'data-bytes': largest }, formatBytes(largest)), 'largest free on one GPU'),
      stat(h('span', { class: 'stat', 'data-testid': 'empty-gpus' }, emptyGpus), 'empty GPUs'),
      stat(h('span', { class: 'stat', 'data-testid': 'fragmentation-index', 'data-stranded': stranded }, `${(fragmentation * 100).toFixed(0)}%`), 'of free memory stranded on partly used GPUs'),
    ),
    h('table', { class: 'kv' }, h('thead', {}, h('tr', {}, h('th', {}, 'largest model that fits now'), h('th', { class: 'num' }, 'no eviction'))), h('tbody', {}, rows)),
  );
}

/** How full the cluster is, by machine type: nodes, GPUs, memory used, GPUs and nodes with nothing on them. */
function renderCapacity(page: Page): void {
  const p = page.planner();
  byTestId('fragmentation-title').textContent = 'Capacity by machine type';
  const rows = new Map<string, { nodes: number; gpus: number; total: number; used: number; emptyGpus: number; emptyNodes: number; largest: number }>();
  for (const n of p.nodes()) {
    const label = p.typeLabel(n.id);
    const r = rows.get(label) ?? { nodes: 0, gpus: 0, total: 0, used: 0, emptyGpus: 0, emptyNodes: 0, largest: 0 };
    let nodeUsed = 0;
    const usage = p.usedMemory(n.id);
    for (const g of n.gpus) {
      const u = usage.get(g.index) ?? { others: 0, slots: 0 };
      const usedBytes = u.others + u.slots;
      r.gpus++;
      r.total += g.memoryTotal;
      r.used += usedBytes;
      if (usedBytes === 0) r.emptyGpus++;
      r.largest = Math.max(r.largest, g.memoryTotal - usedBytes);
      nodeUsed += usedBytes;
    }
    r.nodes++;
    if (nodeUsed === 0) r.emptyNodes++;
    rows.set(label, r);
  }
  if (rows.size === 0) {
    byTestId('fragmentation').replaceChildren(h('p', { class: 'hint' }, 'No nodes.'));
    return;
  }
  const head = h('tr', {}, h('th', {}, 'type'), ...['nodes', 'used', 'idle GPUs', 'idle nodes', 'most free on a GPU'].map((x) => h('th', { class: 'num' }, x)));
  const body = [...rows].map(([label, r]) =>
    h(
      'tr',
      {
        'data-testid': 'capacity-type',
        'data-type': label,
        'data-nodes': r.nodes,
        'data-used': r.used,
        'data-total': r.total,
        'data-empty-gpus': r.emptyGpus,
        'data-empty-nodes': r.emptyNodes,
        'data-largest': r.largest,
      },
      h('td', {}, label),
      h('td', { class: 'num' }, r.nodes),
      h('td', { class: 'num' }, `${r.total > 0 ? ((100 * r.used) / r.total).toFixed(1) : '0'}%`),
      h('td', { class: 'num' }, `${r.emptyGpus} / ${r.gpus}`),
      h('td', { class: 'num' }, r.emptyNodes),
      h('td', { class: 'num' }, formatBytes(r.largest)),
    ),
  );
  byTestId('fragmentation').replaceChildren(h('div', { class: 'scroll-x' }, h('table', { class: 'capacity', 'data-testid': 'capacity' }, h('thead', {}, head), h('tbody', {}, body))));
}
