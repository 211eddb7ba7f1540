// The DRA page's claims table: every claim of the dump, its state (held in the dump, pending,
// scheduled by the page, unschedulable with the engine's reason), its node and its devices.
import type { DraAllocationResult } from '../../../src/index.ts';
import { h } from '../../shared/dom.ts';
import { colorOf } from './gpus.ts';

/** A claim as the table shows it. */
export type Row = { claim: string; state: 'held' | 'scheduled' | 'unschedulable' | 'pending'; node?: string; allocation?: DraAllocationResult; reason?: string };

/** Renders the rows into the table's body. */
export function renderClaims(body: HTMLElement, rows: readonly Row[]): void {
  body.replaceChildren(
    ...rows.map((r) => {
      const devices = r.allocation?.devices.results.map((d) => `${d.pool}/${d.device}`).join(', ') ?? '';
      return h(
        'tr',
        { 'data-testid': 'dra-claim-row', 'data-claim': r.claim, 'data-state': r.state, 'data-node': r.node ?? '' },
        h('td', {}, r.allocation !== undefined && h('span', { class: 'dra-swatch', style: `background:${r.state === 'held' ? '#9ca3af' : colorOf(r.claim)}` }), r.claim),
        h('td', {}, r.state),
        h('td', {}, r.node ?? '–'),
        r.reason !== undefined ? h('td', { class: 'reason' }, r.reason) : h('td', { 'data-testid': 'dra-claim-devices' }, devices),
      );
    }),
  );
}
