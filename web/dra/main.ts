// The DRA view: load cluster dumps as kubectl prints them (or the bundled sample), schedule every
// pending claim as its own pod with the same engine as `gpualloc dra schedule`, and show the
// claims on the devices of each node (claims already allocated in the dump hold theirs).
import sampleUrl from '../../data/samples/dra/cluster.json?url';
import { AllocationError, claimsOfDump, createEngine, DRA_MODES, NODE_SCORES, splitDraDump, type DraAllocationResult, type DraDump, type DraMode, type Engine, type NodeScore } from '../../src/index.ts';

type Device = { name: string; consumesCounters?: Array<{ counterSet: string }> };
type Slice = { metadata: { name: string }; spec: { driver: string; pool: { name: string }; nodeName?: string; allNodes?: boolean; devices?: Device[] } };
type Named = { metadata: { name: string; labels?: Record<string, string> } };
type Row = { claim: string; state: 'held' | 'scheduled' | 'unschedulable' | 'pending'; node?: string; allocation?: DraAllocationResult; reason?: string };

let dump: DraDump | undefined;
let engine: Engine | undefined;

function $(testid: string): HTMLElement {
  const node = document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  if (node === null) throw new Error(`page is missing [data-testid="${testid}"]`);
  return node;
}

function showError(message: string | null): void {
  $('dra-error').hidden = message === null;
  $('dra-error-message').textContent = message ?? '';
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A stable colour per claim. */
function colorOf(claim: string): string {
  let h = 0;
  for (let i = 0; i < claim.length; i++) h = (h * 31 + claim.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 60% 42%)`;
}

for (const [select, options] of [['dra-mode', DRA_MODES], ['dra-node-score', NODE_SCORES]] as const) {
  for (const o of options) ($(select) as HTMLSelectElement).append(el('option', { value: o }, o));
}

/** Renders the claims table and every node's devices, coloured by the claim holding them. */
function render(rows: Row[]): void {
  if (dump === undefined) return;
  const holder = new Map<string, Row>();
  for (const r of rows) for (const d of r.allocation?.devices.results ?? []) if (d.adminAccess !== true) holder.set(`${d.driver}/${d.pool}/${d.device}`, r);
  const body = $('dra-claims').querySelector('tbody') as HTMLElement;
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = el('tr', { 'data-testid': 'dra-claim-row', 'data-claim': r.claim, 'data-state': r.state, 'data-node': r.node ?? '' });
      const name = el('td');
      if (r.allocation !== undefined) name.append(el('span', { class: 'dra-swatch', style: `background:${r.state === 'held' ? '#9ca3af' : colorOf(r.claim)}` }));
      name.append(r.claim);
      const devices = r.allocation?.devices.results.map((d) => `${d.pool}/${d.device}`).join(', ') ?? '';
      tr.append(name, el('td', {}, r.state), el('td', {}, r.node ?? '–'), r.reason !== undefined ? el('td', { class: 'reason' }, r.reason) : el('td', { 'data-testid': 'dra-claim-devices' }, devices));
      return tr;
    }),
  );
  const slices = dump.slices as Slice[];
  const section = (title: string, sub: string, own: Slice[], node?: string): HTMLElement => {
    const box = el('section', { class: 'dra-node', 'data-testid': 'dra-node', 'data-node': node ?? '' });
    const h = el('h3', {}, title);
    h.append(el('span', {}, sub));
    box.append(h);
    for (const s of own) {
      const devices = s.spec.devices ?? [];
      if (devices.length === 0) continue;
      const pool = el('div', { class: 'dra-pool' }, `${s.spec.driver} · pool ${s.spec.pool.name} · slice ${s.metadata.name}`);
      // Devices drawing on one counter set (a GPU and its partitions) are drawn as one group.
      const groups = new Map<string, Device[]>();
      for (const d of devices) {
        const key = d.consumesCounters?.[0]?.counterSet ?? `device ${d.name}`;
        (groups.get(key) ?? groups.set(key, []).get(key)!).push(d);
      }
      const row = el('div', { class: 'dra-groups' });
      for (const [key, members] of groups) {
        const g = el('div', { class: 'dra-group', title: key });
        for (const d of members) {
          const id = `${s.spec.driver}/${s.spec.pool.name}/${d.name}`;
          const r = holder.get(id);
          const chip = el('span', { class: 'dra-device', 'data-testid': 'dra-device', 'data-device': id, 'data-state': r === undefined ? 'free' : r.state === 'held' ? 'held' : 'new', title: r === undefined ? `${id}: free` : `${id}: ${r.claim}` }, d.name);
          if (r !== undefined) {
            chip.dataset.claim = r.claim;
            if (r.state !== 'held') chip.style.background = colorOf(r.claim);
          }
          g.append(chip);
        }
        row.append(g);
      }
      pool.append(row);
      box.append(pool);
    }
    return box;
  };
  const nodes = dump.nodes as Named[];
  const shared = slices.filter((s) => s.spec.nodeName === undefined);
  $('dra-nodes').replaceChildren(
    ...nodes.map((n) => {
      const labels = Object.entries(n.metadata.labels ?? {}).filter(([k]) => !k.startsWith('kubernetes.io/')).map(([k, v]) => `${k}=${v}`).join(' ');
      return section(n.metadata.name, labels, slices.filter((s) => s.spec.nodeName === n.metadata.name), n.metadata.name);
    }),
    ...(shared.length > 0 ? [section('Shared pools', 'allNodes, node selectors, per-device node selection', shared)] : []),
  );
}

function initialRows(): Row[] {
  if (dump === undefined) return [];
  return claimsOfDump(dump.claims).claims.map((c): Row => {
    if (c.allocation === undefined) return { claim: c.label, state: 'pending' };
    // Where a held claim runs: the node of the (node-local) slice of its first device.
    const d = c.allocation.devices.results[0];
    const slice = (dump!.slices as Slice[]).find((s) => s.spec.driver === d?.driver && s.spec.pool.name === d.pool && s.spec.nodeName !== undefined && (s.spec.devices ?? []).some((x) => x.name === d.device));
    return { claim: c.label, state: 'held', node: slice?.spec.nodeName, allocation: c.allocation };
  });
}

/** Reads files (or the sample) into one dump. */
async function load(files: Array<{ name: string; text: () => Promise<string> }>): Promise<void> {
  showError(null);
  const merged: DraDump = { classes: [], slices: [], claims: [], nodes: [] };
  try {
    for (const f of files) {
      let json: unknown;
      try {
        json = JSON.parse(await f.text());
      } catch (error) {
        throw new Error(`${f.name}: not valid JSON: ${(error as Error).message}`);
      }
      let part: DraDump;
      try {
        part = splitDraDump(json, f.name);
      } catch (error) {
        throw error instanceof AllocationError && !error.message.startsWith(f.name) ? new Error(`${f.name}: ${error.message}`) : error;
      }
      for (const k of ['classes', 'slices', 'claims', 'nodes'] as const) merged[k].push(...part[k]);
    }
  } catch (error) {
    showError((error as Error).message);
    return;
  }
  dump = merged;
  const pendingCount = initialRows().filter((r) => r.state === 'pending').length;
  $('dra-loaded').textContent = `${files.map((f) => f.name).join(', ')}: ${merged.nodes.length} nodes, ${merged.slices.length} slices, ${merged.classes.length} classes, ${merged.claims.length} claims (${pendingCount} pending)`;
  ($('dra-schedule') as HTMLButtonElement).disabled = false;
  $('dra-status').textContent = '';
  delete $('dra-status').dataset.done;
  render(initialRows());
}

async function schedule(): Promise<void> {
  if (dump === undefined) return;
  showError(null);
  const mode = ($('dra-mode') as HTMLSelectElement).value as DraMode;
  const nodeScore = ($('dra-node-score') as HTMLSelectElement).value as NodeScore;
  try {
    engine ??= await createEngine({ backend: 'ts' });
    const started = performance.now();
    const { claims, held } = claimsOfDump(dump.claims);
    const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode, nodeScore });
    const rows = initialRows();
    for (const c of claims) {
      if (c.allocation !== undefined) continue;
      const r = cluster.schedule(c.object);
      const row = rows.find((x) => x.claim === c.label) as Row;
      if (r.reason !== undefined) Object.assign(row, { state: 'unschedulable', reason: r.reason.message });
      else Object.assign(row, { state: 'scheduled', node: r.node, allocation: r.results[0] });
    }
    const ms = performance.now() - started;
    render(rows);
    const done = rows.filter((r) => r.state === 'scheduled').length;
    const failed = rows.filter((r) => r.state === 'unschedulable').length;
    $('dra-status').textContent = `${done + failed} pending claims: ${done} scheduled, ${failed} unschedulable (${mode}, ${nodeScore}) in ${ms.toFixed(1)} ms`;
    $('dra-status').dataset.done = 'true';
  } catch (error) {
    showError((error as Error).message);
  }
}

$('dra-files').addEventListener('change', () => {
  const files = [...(($('dra-files') as HTMLInputElement).files ?? [])];
  if (files.length > 0) void load(files.map((f) => ({ name: f.name, text: () => f.text() })));
});
$('dra-sample').addEventListener('click', () => {
  void load([{ name: 'cluster.json (sample)', text: async () => (await fetch(sampleUrl)).text() }]);
});
$('dra-schedule').addEventListener('click', () => void schedule());
document.body.dataset.ready = 'true';
