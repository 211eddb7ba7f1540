// The DRA page's GPUs: each GPU drawn as its counter set (a bar of memory slices coloured by the
// claims holding them, and under it every placement the driver publishes, row by profile: in its
// claim's colour when allocated, greyed when the counters no longer allow it), grouped by node
// with per-node totals, and the fleet's totals on top.
import { h, plural } from '../../shared/dom.ts';
import { type Gpu, type GpuMap, type GpuState, type GpuTotals, gpuStates, lanes, type Placement, totals } from '../counters.ts';

/** Who holds a device: its claim and whether it was allocated in the dump ('held') or by the page ('new'). */
export type Holder = { claim: string; held: boolean };

/** Test IDs of the drawn elements (the replay's side-by-side drawings use their own). */
export type DrawIds = { gpu: string; device: string; slice: string };

export const MAIN_IDS: DrawIds = { gpu: 'dra-gpu', device: 'dra-device', slice: 'dra-slice' };

/** A stable colour per claim. */
export function colorOf(claim: string): string {
  let x = 0;
  for (let i = 0; i < claim.length; i++) x = (x * 31 + claim.charCodeAt(i)) >>> 0;
  return `hsl(${x % 360} 60% 42%)`;
}

const HELD_COLOR = '#9ca3af';

function fill(holder: Holder): string {
  return holder.held ? HELD_COLOR : colorOf(holder.claim);
}

/** The short label of a placement: `1g` for `1g.10gb`, `GPU` for a whole GPU. */
function shortLabel(p: Placement): string {
  if (p.profile === 'gpu' || p.profile === 'device') return p.profile === 'gpu' ? 'GPU' : p.name;
  return p.profile.replace(/\..*$/, '');
}

/** How many bar units a placement covers. */
function width(g: Gpu, p: Placement): number {
  if (p.span !== undefined) return p.span[1] - p.span[0];
  const c = g.barCounters[0];
  const own = c === undefined ? undefined : p.consumes.get(g.key)?.get(c);
  return Math.max(1, Math.min(g.units, own ?? 1));
}

/** The bar: one cell per memory slice (or the bar counter's units), coloured by the claim holding it. */
function bar(g: Gpu, st: GpuState, holders: ReadonlyMap<string, Holder>, ids: DrawIds): HTMLElement {
  const box = h('div', { class: 'dra-bar', style: `grid-template-columns:repeat(${g.units},1fr)` });
  const used = g.placements.filter((p) => st.placement.get(p.id) === 'used');
  const cell = (from: number, n: number, holder: Holder | undefined, index: number): HTMLElement =>
    h('i', {
      'data-testid': ids.slice,
      'data-index': index,
      'data-claim': holder?.claim,
      class: holder === undefined ? 'free' : 'used',
      style: `grid-column:${from + 1} / span ${n}${holder !== undefined ? `;background:${fill(holder)}` : ''}`,
      title: holder === undefined ? 'free' : holder.claim,
    });
  if (g.layout === 'slices' || g.layout === 'whole') {
    for (let k = 0; k < g.units; k++) {
      const p = used.find((x) => x.span !== undefined && x.span[0] <= k && k < x.span[1]);
      box.append(cell(k, 1, p === undefined ? undefined : holders.get(p.id), k));
    }
  } else {
    // Aggregate counters say how much, not where: partitions stack from the left.
    let at = 0;
    for (const p of used) {
      const n = Math.min(width(g, p), g.units - at);
      if (n <= 0) break;
      box.append(cell(at, n, holders.get(p.id), at));
      at += n;
    }
    if (at < g.units) box.append(cell(at, g.units - at, undefined, at));
  }
  return box;
}

/** One placement: coloured by its claim, outlined when its counters allow it, greyed when not. */
function placement(g: Gpu, p: Placement, st: GpuState, holders: ReadonlyMap<string, Holder>, ids: DrawIds): HTMLElement {
  const holder = holders.get(p.id);
  const state = st.placement.get(p.id) === 'used' ? (holder?.held === true ? 'held' : 'new') : (st.placement.get(p.id) ?? 'free');
  const where = p.span !== undefined && g.layout === 'slices' ? `grid-column:${p.span[0] + 1} / span ${p.span[1] - p.span[0]}` : `grid-column:span ${width(g, p)}`;
  const why = state === 'blocked' ? 'the counters left do not allow it' : state === 'free' ? 'free' : `${holder?.claim ?? 'in use'}`;
  return h(
    'span',
    {
      class: 'dra-place',
      'data-testid': ids.device,
      'data-device': p.id,
      'data-state': state,
      'data-claim': holder?.claim,
      'data-profile': p.profile,
      style: `${where}${holder !== undefined ? `;background:${fill(holder)}` : ''}`,
      title: `${p.id} (${p.profile}): ${why}`,
    },
    shortLabel(p),
  );
}

/** A GPU card: its name and use, the bar, the placements row by profile. */
export function gpuCard(g: Gpu, st: GpuState, holders: ReadonlyMap<string, Holder>, ids: DrawIds = MAIN_IDS): HTMLElement {
  const byProfile = new Map<string, Placement[]>();
  for (const p of g.placements) byProfile.set(p.profile, [...(byProfile.get(p.profile) ?? []), p]);
  // Placed partitions (slice counters) take lanes so none overlaps; aggregate ones fill one row per profile.
  const rows = [...byProfile.values()].sort((a, b) => width(g, a[0]) - width(g, b[0])).flatMap((ps) => (g.layout === 'slices' ? lanes(ps) : [ps]));
  const unit = g.layout === 'amount' ? (g.barCounters[0] ?? 'units') : g.layout === 'slices' ? 'memory slices' : 'device';
  return h(
    'div',
    { class: `dra-gpu layout-${g.layout}`, 'data-testid': ids.gpu, 'data-gpu': g.key, 'data-layout': g.layout, 'data-units': g.units, 'data-used-units': st.usedUnits },
    h(
      'div',
      { class: 'dra-gpu-head' },
      h('b', { title: g.key }, g.name.replace(/-?counter-?set$/i, '')),
      h('span', { title: `${unit} in use` }, g.layout === 'whole' ? (st.usedUnits > 0 ? 'in use' : 'free') : `${st.usedUnits}/${g.units}`),
    ),
    bar(g, st, holders, ids),
    h(
      'div',
      { class: 'dra-lanes' },
      rows.map((lane) =>
        h(
          'div',
          { class: 'dra-lane', style: `grid-template-columns:repeat(${g.units},1fr)` },
          lane.map((p) => placement(g, p, st, holders, ids)),
        ),
      ),
    ),
  );
}

/** Totals as one line: GPUs, in use, allocated share, placements left. */
export function totalsLine(t: GpuTotals, testid: string): HTMLElement {
  const share = t.gpus > 0 ? (100 * t.allocated) / t.gpus : 0;
  return h(
    'div',
    { class: 'dra-totals', 'data-testid': testid, 'data-gpus': t.gpus, 'data-busy': t.busy, 'data-allocated': t.allocated, 'data-share': share, 'data-free': t.free, 'data-blocked': t.blocked },
    h('span', {}, plural(t.gpus, 'GPU')),
    h('span', {}, `${t.busy} in use`),
    h('span', {}, h('b', {}, `${share.toFixed(1)} %`), ` allocated (${t.allocated.toFixed(2)} GPUs)`),
    h('span', {}, `placements: ${t.free} free, `, h('span', { class: 'blocked-text' }, `${t.blocked} no longer allowed`)),
  );
}

/** The fleet's totals and every node's GPUs for the devices in use. */
export function renderFleet(host: HTMLElement, fleetHost: HTMLElement, map: GpuMap, nodeLabels: ReadonlyMap<string, string>, holders: ReadonlyMap<string, Holder>): void {
  const states = gpuStates(map, holders.keys());
  fleetHost.replaceChildren(totalsLine(totals(map.gpus, states), 'dra-fleet-totals'));
  host.replaceChildren(...nodeSections(map, states, nodeLabels, holders, MAIN_IDS));
}

/** One section per node (and one for pools shared between nodes): its totals and its GPUs. */
export function nodeSections(map: GpuMap, states: ReadonlyMap<string, GpuState>, nodeLabels: ReadonlyMap<string, string>, holders: ReadonlyMap<string, Holder>, ids: DrawIds): HTMLElement[] {
  const byNode = new Map<string, Gpu[]>();
  for (const n of nodeLabels.keys()) byNode.set(n, []);
  for (const g of map.gpus) {
    const key = g.node ?? '';
    byNode.set(key, [...(byNode.get(key) ?? []), g]);
  }
  return [...byNode]
    .filter(([, gpus]) => gpus.length > 0)
    .map(([node, gpus]) =>
      h(
        'section',
        { class: 'dra-node', 'data-testid': ids === MAIN_IDS ? 'dra-node' : 'dra-replay-node', 'data-node': node },
        h('h3', {}, node === '' ? 'Shared pools' : node, h('span', {}, node === '' ? 'allNodes, node selectors, per-device node selection' : (nodeLabels.get(node) ?? ''))),
        totalsLine(totals(gpus, states), ids === MAIN_IDS ? 'dra-node-totals' : 'dra-replay-node-totals'),
        h(
          'div',
          { class: 'dra-gpus' },
          gpus.map((g) => gpuCard(g, states.get(g.key) as GpuState, holders, ids)),
        ),
      ),
    );
}
