// The result panel: the decision on show (a model's ranked options with what each evicts and the
// GPUs rejected and why, the replica devices picked, or the whole GPUs picked), its time on the
// backend that made it (and on the other one), and the button that commits it.
import { formatBytes, type PlacementPlan } from '../../../src/index.ts';
import { byTestId, h, plural } from '../../shared/dom.ts';
import { type Decision, formatMs, input, type Page } from '../page.ts';

/** Rejections listed at most. */
const REJECTIONS_SHOWN = 200;

/** Renders the decision on show. */
export function renderResult(page: Page): void {
  const body = byTestId('result-body');
  const timing = byTestId('decision-time');
  const { decision } = page.state;
  if (decision === undefined) {
    byTestId('result-title').textContent = 'Decision';
    timing.replaceChildren();
    body.replaceChildren(h('p', { class: 'hint', 'data-testid': 'result-empty' }, "Plan a model, or allocate replicas or whole GPUs, to see the engine's decision here."));
    return;
  }
  const t = decision.timed;
  timing.replaceChildren(
    h('span', { class: `badge backend-${t.backend}`, 'data-testid': 'decision-backend' }, t.backend),
    ' ',
    h('span', { 'data-testid': 'decision-ms', 'data-ms': t.ms }, formatMs(t.ms, t.runs)),
    ' ',
    h('span', { class: 'muted' }, `per decision, mean of ${plural(t.runs, 'run')}`),
    ...(t.other !== undefined
      ? [' ', h('span', { class: 'muted', 'data-testid': 'decision-other', 'data-backend': t.other.backend, 'data-ms': t.other.ms }, `· ${t.other.backend}: ${formatMs(t.other.ms, t.other.runs)}`)]
      : []),
  );
  if (decision.kind === 'model') renderPlan(page, body, decision);
  else if (decision.kind === 'replicas') renderReplicas(page, body, decision);
  else renderAligned(body, decision);
}

/** A notice that nothing was picked, with the engine's reason. */
function noOption(code: string, message: string): HTMLElement {
  return h('div', { class: 'notice', 'data-testid': 'no-option' }, h('b', {}, `${code}.`), ` ${message}`);
}

function commitButton(label: string): HTMLElement {
  return h('button', { type: 'button', class: 'primary', 'data-testid': 'commit-button' }, label);
}

function renderPlan(page: Page, body: HTMLElement, d: Extract<Decision, { kind: 'model' }>): void {
  const p = page.planner();
  byTestId('result-title').textContent = `Plan${d.scope === 'cluster' ? ' across the cluster' : ` on ${p.selected}`}: ${d.label} (${formatBytes(d.memory)})`;
  const { options, rejected } = d.timed.value;
  const cluster = d.scope === 'cluster';
  // The slots an option evicts, described from the state (model, node, GPUs, memory).
  const slots = new Map<string, { model: string; node: string; gpus: number[]; memoryPerGpu: number }>();
  for (const n of p.nodes()) for (const x of n.slots) slots.set(x.id, { model: x.model ?? x.id, node: n.id, gpus: x.gpus, memoryPerGpu: x.memoryPerGpu });
  const evictCell = (ids: string[]): HTMLElement =>
    h(
      'td',
      {},
      ids.length === 0
        ? h('span', { class: 'muted' }, '—')
        : ids.map((id, k) => {
            const x = slots.get(id);
            return [
              k > 0 && ' ',
              h(
                'span',
                { class: 'evict-tag', 'data-testid': 'evict-tag', 'data-slot': id, title: x ? `${x.model} on ${x.node} GPUs ${x.gpus.join(',')}, ${formatBytes(x.memoryPerGpu)} per GPU` : id },
                id,
                x && ` · ${x.model}`,
              ),
            ];
          }),
    );
  const parts: HTMLElement[] = [];
  if (options.length === 0) {
    parts.push(
      h(
        'div',
        { class: 'notice', 'data-testid': 'no-option' },
        h('b', {}, 'No viable option.'),
        ` No GPU set has room for ${formatBytes(d.memory)} with the allowed tensor-parallel sizes${input('model-evict').checked ? ', even after evicting stale work' : ''}. See the per-GPU reasons below.`,
      ),
    );
  } else {
    const rows = options.map((o, k) => {
      const row = h(
        'tr',
        {
          'data-testid': 'option-row',
          'data-rank': k + 1,
          'data-node': o.node ?? '',
          'data-gpus': o.gpus.join(','),
          'data-memory-per-gpu': o.memoryPerGpu,
          'data-score': o.score,
          'data-evict': o.evict.join(','),
          class: `${k === d.selected ? 'selected' : ''}${o.evict.length > 0 ? ' evicts' : ''}`,
          tabindex: 0,
        },
        h('td', {}, k + 1),
        cluster && h('td', {}, h('code', {}, o.node ?? '')),
        h('td', {}, h('code', {}, o.gpus.join(', '))),
        h('td', {}, o.gpus.length),
        h('td', { class: 'num' }, formatBytes(o.memoryPerGpu)),
        evictCell(o.evict),
        h('td', { class: 'num' }, o.score),
      );
      const pick = (): void => {
        d.selected = k;
        page.render();
        body.querySelector<HTMLElement>(`[data-testid="option-row"][data-rank="${k + 1}"]`)?.focus();
      };
      row.addEventListener('click', pick);
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          pick();
        }
      });
      return row;
    });
    const head = h(
      'tr',
      {},
      h('th', {}, 'rank'),
      cluster && h('th', {}, 'node'),
      h('th', {}, 'GPUs'),
      h('th', {}, 'TP'),
      h('th', { class: 'num' }, 'memory / GPU'),
      h('th', {}, 'evicts'),
      h('th', { class: 'num' }, 'score'),
    );
    parts.push(h('table', { class: 'options', 'data-testid': 'options' }, h('thead', {}, head), h('tbody', {}, rows)));
    const sel = options[d.selected];
    parts.push(
      h(
        'div',
        { class: 'actions' },
        commitButton(`Commit option ${d.selected + 1} (${sel.node !== undefined ? `${sel.node} ` : ''}GPUs ${sel.gpus.join(', ')}${sel.evict.length > 0 ? `, evicting ${sel.evict.length}` : ''})`),
        h('span', { class: 'muted' }, `Click a row to preview another option on the ${cluster ? 'cluster' : 'drawing'}.`),
      ),
    );
  }
  body.replaceChildren(...parts, ...renderRejections(rejected));
}

function renderRejections(rejected: PlacementPlan['rejected']): HTMLElement[] {
  if (rejected.length === 0) return [];
  const nodes = rejected.some((r) => r.node !== undefined);
  const head = h('tr', {}, nodes && h('th', {}, 'node'), h('th', {}, 'GPU'), h('th', {}, 'reason'), h('th', { class: 'num' }, 'short by'), h('th', {}, 'detail'));
  const rows = rejected
    .slice(0, REJECTIONS_SHOWN)
    .map((r) =>
      h(
        'tr',
        { 'data-testid': 'rejection-row', 'data-node': r.node ?? '', 'data-gpu': r.gpu, 'data-code': r.code, 'data-short-by': r.shortBy ?? '' },
        nodes && h('td', {}, r.node ?? ''),
        h('td', {}, r.gpu),
        h('td', {}, h('span', { class: 'code' }, r.code)),
        h('td', { class: 'num' }, r.shortBy !== undefined ? formatBytes(r.shortBy) : '—'),
        h('td', {}, r.message),
      ),
    );
  return [
    h('h3', {}, 'Rejected GPUs'),
    h('table', { class: 'rejections', 'data-testid': 'rejections' }, h('thead', {}, head), h('tbody', {}, rows)),
    ...(rejected.length > REJECTIONS_SHOWN ? [h('p', { class: 'hint' }, `…and ${rejected.length - REJECTIONS_SHOWN} more.`)] : []),
  ];
}

function renderReplicas(page: Page, body: HTMLElement, d: Extract<Decision, { kind: 'replicas' }>): void {
  byTestId('result-title').textContent = `Replicas: ${d.label}`;
  const { devices, reason } = d.timed.value;
  if (devices.length === 0) {
    body.replaceChildren(noOption(reason?.code ?? 'No devices', reason?.message ?? ''));
    return;
  }
  const rv = page.planner().replicaDevices(d.replicasPerGpu);
  const rows = devices.map((id, k) =>
    h('tr', { 'data-testid': 'replica-row', 'data-id': id, 'data-gpu': rv.gpuOf.get(id) }, h('td', {}, k + 1), h('td', {}, h('code', {}, id)), h('td', {}, String(rv.gpuOf.get(id)))),
  );
  body.replaceChildren(
    h('table', { class: 'options', 'data-testid': 'replica-result' }, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'device'), h('th', {}, 'GPU'))), h('tbody', {}, rows)),
    h('div', { class: 'actions' }, commitButton(`Commit ${plural(devices.length, 'device')}`)),
  );
}

function renderAligned(body: HTMLElement, d: Extract<Decision, { kind: 'gpus' }>): void {
  byTestId('result-title').textContent = `Whole GPUs: ${d.label}`;
  const { devices, score, reason } = d.timed.value;
  if (devices.length === 0) {
    body.replaceChildren(noOption(reason?.code ?? 'No GPUs', reason?.message ?? ''));
    return;
  }
  body.replaceChildren(
    h(
      'p',
      { 'data-testid': 'aligned-result', 'data-gpus': devices.join(','), 'data-score': score },
      'GPUs ',
      h('code', {}, devices.join(', ')),
      ' · set score ',
      h('b', {}, score),
      ' ',
      h('span', { class: 'muted' }, '(sum of pair scores: 100 per NVLink + PCIe level)'),
    ),
    h('div', { class: 'actions' }, commitButton(`Commit GPUs ${devices.join(', ')}`)),
  );
}
