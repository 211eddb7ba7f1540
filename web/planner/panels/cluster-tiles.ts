// The cluster view's tiles: one compact tile per node with a vertical memory bar per GPU (slots
// coloured by model, memory used by other processes hatched, stale slots faded with a dashed edge),
// the chosen option's node and GPUs outlined, and the slots it evicts crossed out. Plain HTML
// elements (no SVG) so 200 nodes stay cheap to draw and readable.
import { formatBytes, type PlacementOption } from '../../../src/index.ts';
import { h } from '../../shared/dom.ts';
import { OTHERS_LABEL, workloadColor } from '../draw.ts';
import type { Planner } from '../model.ts';

/** What the cluster view overlays: the option on show and the slots it evicts. */
export type ClusterOverlay = { option?: PlacementOption; evict: Set<string> };

/** Colours of machine types (the tile's left edge), in order of first appearance. */
export const TYPE_COLORS = ['#334155', '#0f766e', '#9333ea', '#b45309', '#be123c', '#1d4ed8'];

/** A share of a GPU's memory as a CSS height, in percent (0..100, 3 decimals). */
function pct(bytes: number, total: number): string {
  return total > 0 ? `${Math.max(0, Math.min(100, (100 * bytes) / total)).toFixed(3)}%` : '0%';
}

/** Renders every node's tile into `host`. Tiles carry data-testid="node-tile" and data-node. */
export function renderCluster(host: HTMLElement, planner: Planner, overlay: ClusterOverlay): void {
  const nodes = planner.nodes();
  if (nodes.length === 0) {
    host.replaceChildren(h('p', { class: 'hint', 'data-testid': 'cluster-empty' }, 'The cluster has no nodes. Pick a machine type and a count above, then ', h('b', {}, 'Add nodes'), '.'));
    return;
  }
  const typeIndex = new Map<string, number>();
  const option = overlay.option;
  const tiles: HTMLElement[] = [];
  for (const node of nodes) {
    const type = planner.typeLabel(node.id);
    if (!typeIndex.has(type)) typeIndex.set(type, typeIndex.size);
    const chosenNode = option !== undefined && option.node === node.id;
    const chosenGpus = new Set(chosenNode ? option.gpus : []);
    const used = planner.usedMemory(node.id);
    const bySlotGpu = new Map<number, HTMLElement[]>();
    let total = 0;
    let free = 0;
    for (const g of node.gpus) {
      const u = used.get(g.index) ?? { others: 0, slots: 0 };
      total += g.memoryTotal;
      free += Math.max(0, g.memoryTotal - u.others - u.slots);
      bySlotGpu.set(g.index, []);
    }
    const work = planner.workloads(node.id);
    // Evicted slots stack last, so what stays is one run from the bottom and the planned share sits on it.
    const isEvicted = (w: { slotId?: string }): number => (w.slotId !== undefined && overlay.evict.has(w.slotId) ? 1 : 0);
    for (const w of [...work].sort((a, b) => isEvicted(a) - isEvicted(b))) {
      if (w.slotId === undefined) continue;
      const evicted = overlay.evict.has(w.slotId);
      for (const gpu of w.gpus) {
        const memoryTotal = node.gpus.find((g) => g.index === gpu)?.memoryTotal ?? 0;
        bySlotGpu.get(gpu)?.push(
          h('i', {
            class: `mseg${w.stale ? ' stale' : ''}${evicted ? ' evicted' : ''}`,
            'data-testid': 'tile-slot',
            'data-slot': w.slotId,
            'data-stale': String(w.stale === true),
            'data-evicted': String(evicted),
            style: `height:${pct(w.memoryPerGpu, memoryTotal)};--c:${workloadColor(w.color)}`,
            title: `${w.label} (${w.slotId}): ${formatBytes(w.memoryPerGpu)}${evicted ? ' · evicted by the selected option' : w.stale ? ' · stale' : ''}`,
          }),
        );
      }
    }
    const bars = node.gpus.map((g) => {
      const u = used.get(g.index) ?? { others: 0, slots: 0 };
      const chosen = chosenGpus.has(g.index);
      const others =
        u.others > 0 &&
        h('i', { class: 'mseg others', 'data-testid': 'tile-others', 'data-bytes': u.others, style: `height:${pct(u.others, g.memoryTotal)}`, title: `${OTHERS_LABEL}: ${formatBytes(u.others)}` });
      // The planned share sits on what stays (used memory and the slots not evicted), over the evicted slots it replaces.
      const kept = !chosen ? 0 : u.others + work.filter((w) => w.slotId !== undefined && !overlay.evict.has(w.slotId) && w.gpus.includes(g.index)).reduce((t, w) => t + w.memoryPerGpu, 0);
      const planned =
        chosen &&
        option !== undefined &&
        h('i', { class: 'mseg planned', 'data-testid': 'tile-planned', style: `bottom:${pct(kept, g.memoryTotal)};height:${pct(option.memoryPerGpu, g.memoryTotal)}` });
      return h(
        'div',
        {
          class: `gbar${chosen ? ' chosen' : ''}`,
          'data-testid': 'tile-gpu',
          'data-gpu': g.index,
          'data-chosen': String(chosen),
          'data-total': g.memoryTotal,
          'data-others': u.others,
          'data-slots': u.slots,
          title: `GPU ${g.index}: ${formatBytes(u.others + u.slots)} / ${formatBytes(g.memoryTotal)} used`,
        },
        others,
        bySlotGpu.get(g.index) ?? [],
        planned,
      );
    });
    const freePct = total > 0 ? Math.round((100 * free) / total) : 0;
    tiles.push(
      h(
        'div',
        {
          class: `tile${chosenNode ? ' chosen' : ''}${planner.selected === node.id ? ' selected' : ''}`,
          'data-testid': 'node-tile',
          'data-node': node.id,
          'data-type': type,
          'data-chosen': String(chosenNode),
          'data-free': free,
          'data-total': total,
          style: `--t:${TYPE_COLORS[(typeIndex.get(type) ?? 0) % TYPE_COLORS.length]}`,
          title: `${node.id} · ${type} · ${formatBytes(free)} free of ${formatBytes(total)} · click for the node view`,
        },
        h(
          'div',
          { class: 'tile-head' },
          h('button', { type: 'button', class: 'tile-id', 'data-act': 'open', 'data-testid': 'tile-id' }, node.id),
          h('span', { class: 'tile-free', 'data-testid': 'tile-free' }, `${freePct}%`),
          h(
            'button',
            { type: 'button', class: 'tile-btn', 'data-act': 'duplicate', 'data-testid': 'duplicate-node', 'aria-label': `duplicate ${node.id}`, title: 'duplicate (same machine, no slots)' },
            '+',
          ),
          h('button', { type: 'button', class: 'tile-btn', 'data-act': 'remove', 'data-testid': 'remove-node', 'aria-label': `remove ${node.id}`, title: 'remove with its slots' }, '×'),
        ),
        h('div', { class: 'tile-bars', 'data-act': 'open' }, bars),
      ),
    );
  }
  host.replaceChildren(h('div', { class: 'tiles', 'data-testid': 'tiles' }, tiles));
}
