// The committed-work panel: every slot and replica work on the node on show (or the cluster), with
// memory other processes hold listed first; each can be released, and a model marked stale.
import { formatBytes } from '../../../src/index.ts';
import { byTestId, h } from '../../shared/dom.ts';
import { OTHERS_LABEL, workloadColor } from '../draw.ts';
import type { Page } from '../page.ts';
import type { Workload } from '../types.ts';

/** Work items listed at most (open a node to see all of its work). */
const SHOWN = 300;

/** Renders the committed work. */
export function renderWorkloads(page: Page): void {
  const p = page.planner();
  const list = byTestId('workloads');
  const scoped = page.state.view === 'node' && p.selected !== undefined && p.hasNode(p.selected);
  const workloads = scoped ? p.workloads(p.selected) : p.workloads();
  byTestId('workloads-title').textContent = scoped ? `Committed work on ${p.selected}` : 'Committed work (cluster)';
  const others = scoped ? [...p.othersOf(p.selected as string)] : [];
  if (workloads.length === 0 && others.length === 0) {
    list.replaceChildren(h('li', { class: 'muted' }, 'Nothing committed yet.'));
    return;
  }
  const shown = workloads.slice(0, SHOWN);
  list.replaceChildren(
    ...others.map(([gpu, bytes]) =>
      h(
        'li',
        { 'data-testid': 'workload-others', 'data-gpu': gpu, 'data-bytes': bytes },
        h('span', { class: 'swatch hatch-others' }),
        h('span', { class: 'wl-label' }, OTHERS_LABEL),
        h('span', { class: 'muted' }, `GPU ${gpu} · ${formatBytes(bytes)} · never evicted`),
      ),
    ),
    ...shown.map((w) => workloadItem(page, w, scoped)),
    ...(workloads.length > shown.length ? [h('li', { class: 'muted' }, `…and ${workloads.length - shown.length} more (open a node to see its work).`)] : []),
  );
}

function workloadItem(page: Page, w: Workload, scoped: boolean): HTMLElement {
  const p = page.planner();
  const what = w.kind === 'replicas' ? `${w.devices?.length ?? 0} devices` : `${formatBytes(w.memoryPerGpu)} / GPU`;
  const release = h('button', { type: 'button', class: 'link', 'data-release': w.id, 'data-testid': `release-${w.id}` }, 'release');
  release.addEventListener(
    'click',
    page.guard('release', () => {
      p.release(w.id);
      page.log('release', undefined, w.id);
      page.state.decision = undefined;
      page.render();
    }),
  );
  let stale: HTMLElement | false = false;
  if (w.kind === 'model') {
    stale = h(
      'button',
      { type: 'button', class: 'link', 'data-stale': w.id, 'data-testid': `stale-${w.id}`, title: 'a stale model may be evicted by another model' },
      w.stale ? 'mark active' : 'mark stale',
    );
    stale.addEventListener(
      'click',
      page.guard('markStale', () => {
        const next = !(p.workloads().find((x) => x.id === w.id)?.stale ?? false);
        p.setStale(w.id, next);
        page.log('markStale', undefined, `${w.id} ${next ? 'stale' : 'active'}`);
        page.state.decision = undefined;
        page.render();
      }),
    );
  }
  return h(
    'li',
    { 'data-testid': 'workload', 'data-kind': w.kind, 'data-node': w.node, 'data-gpus': w.gpus.join(','), 'data-slot': w.slotId ?? '', 'data-stale': String(w.stale === true) },
    h('span', { class: 'swatch', style: `background:${workloadColor(w.color)}` }),
    h('span', { class: 'wl-label' }, w.label),
    w.stale === true && h('span', { class: 'badge stale' }, 'stale'),
    h('span', { class: 'muted' }, `${w.slotId !== undefined ? `${w.slotId} · ` : ''}${scoped ? '' : `${w.node} · `}GPUs ${w.gpus.join(',')} · ${what}`),
    h('span', { class: 'wl-actions' }, stale, release),
  );
}
