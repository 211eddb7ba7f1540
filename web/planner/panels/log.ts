// The decision log: one row per call (the call, the backend, its time, the outcome), newest first,
// the last twelve kept.
import type { Backend } from '../../../src/index.ts';
import { byTestId, h } from '../../shared/dom.ts';
import { formatMs, type PageState } from '../page.ts';

/** Rows the log keeps. */
const KEEP = 12;

/** Adds a row for a call; `backend` is the planner's when the call was not timed. */
export function logDecision(state: PageState, call: string, timed: { backend: Backend; ms: number; runs: number } | undefined, outcome: string, backend: Backend): void {
  state.logCount++;
  const n = state.logCount;
  const row = h(
    'tr',
    { 'data-testid': 'log-row', 'data-n': n },
    h('td', {}, n),
    h('td', {}, h('code', {}, call)),
    h('td', {}, timed?.backend ?? backend),
    h('td', { class: 'num' }, timed ? formatMs(timed.ms, timed.runs) : '—'),
    h('td', {}, outcome),
  );
  const body = byTestId('decision-log');
  body.prepend(row);
  while (body.children.length > KEEP) body.lastElementChild?.remove();
}
