// The cluster view: the summary line (machine types, nodes, GPUs, slots, memory used), the tiles,
// and the legend (machine types, models by colour, slot states, planned).
import { formatBytes } from '../../../src/index.ts';
import { byTestId, h, plural } from '../../shared/dom.ts';
import { OTHERS_LABEL, slotStateKeys, workloadColor } from '../draw.ts';
import { type Page, shownOption } from '../page.ts';
import { renderCluster, TYPE_COLORS } from './cluster-tiles.ts';

/** Renders the cluster view from the page's state. */
export function renderClusterView(page: Page): void {
  const p = page.planner();
  const decision = page.state.decision;
  const option = decision?.kind === 'model' && decision.scope === 'cluster' ? shownOption(page.state) : undefined;
  const evict = new Set(option?.evict ?? []);
  const nodes = p.nodes();
  let gpus = 0;
  let total = 0;
  let used = 0;
  let others = 0;
  // A slot across nodes is listed by each of its nodes: count it once.
  const slotIds = new Set<string>();
  for (const n of nodes) {
    for (const slot of n.slots) slotIds.add(slot.id);
    for (const [gpu, u] of p.usedMemory(n.id)) {
      gpus++;
      total += n.gpus.find((g) => g.index === gpu)?.memoryTotal ?? 0;
      used += u.others + u.slots;
      others += u.others;
    }
  }
  const slots = slotIds.size;
  const types = p.typeCounts();
  byTestId('cluster-summary').replaceChildren(
    h('span', { 'data-testid': 'cluster-types' }, types.map((t) => `${t.count} × ${t.label}`).join(', ') || 'no nodes'),
    h(
      'span',
      { class: 'muted' },
      ' · ',
      h('span', { 'data-testid': 'cluster-nodes', 'data-count': nodes.length }, plural(nodes.length, 'node')),
      `, ${gpus} GPUs, `,
      h('span', { 'data-testid': 'cluster-slots', 'data-count': slots }, plural(slots, 'slot')),
      ', ',
      h(
        'span',
        { 'data-testid': 'cluster-used', 'data-used': used, 'data-total': total },
        `${formatBytes(used)} used of ${formatBytes(total)} (${total > 0 ? ((100 * used) / total).toFixed(1) : '0'}%)`,
      ),
      others > 0 && `, ${formatBytes(others)} ${OTHERS_LABEL}`,
    ),
  );
  renderCluster(byTestId('cluster-view'), p, { option, evict });
  // Legend: machine types, then models by colour.
  const typeKeys = types.map((t, k) => h('span', { class: 'key' }, h('span', { class: 'swatch-box', style: `background:${TYPE_COLORS[k % TYPE_COLORS.length]}` }), t.label));
  const models = new Map<string, number>();
  for (const w of p.workloads()) if (w.slotId !== undefined) models.set(w.label, w.color);
  const modelKeys = [...models].map(([label, color]) =>
    h('span', { class: 'key', 'data-testid': 'legend-model' }, h('span', { class: 'swatch-box', style: `background:${workloadColor(color)}` }), label),
  );
  byTestId('cluster-legend').replaceChildren(...typeKeys, ...modelKeys, ...slotStateKeys(), h('span', { class: 'key' }, h('span', { class: 'swatch-box planned-box' }), 'planned'));
}
