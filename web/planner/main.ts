// The node planner page: creates the one page state, wires the controls to the actions and renders
// every panel from the state after each change. Everything the page holds is saved to localStorage
// after every change.
import { type Backend, DEFAULT_CONTEXT_LENGTH, getPreset, listPresets } from '../../src/index.ts';
import { byTestId, h } from '../shared/dom.ts';
import * as act from './actions.ts';
import { Planner } from './model.ts';
import { input, type Page, type PageState, select, type Tab } from './page.ts';
import { renderFragmentation } from './panels/capacity.ts';
import { renderClusterView } from './panels/cluster.ts';
import { describeType, fillTypeSelect, refreshTpChoices } from './panels/forms.ts';
import { clearEstimate, estimateFromGguf, showReading } from './panels/gguf.ts';
import { logDecision } from './panels/log.ts';
import { renderNodeView } from './panels/node.ts';
import { renderResult } from './panels/result.ts';
import { renderWorkloads } from './panels/workloads.ts';
import { describeError } from './types.ts';
import { VIEWS } from './views.ts';

const DEFAULT_PRESET = 'dgx-a100';

const state: PageState = { planner: undefined, decision: undefined, view: 'cluster', activeTab: 'model', logCount: 0, ggufEstimate: undefined };

// ---------- errors: always on the page ----------

function showError(error: unknown, context?: string): void {
  const { title, message } = describeError(error);
  byTestId('error-title').textContent = context === undefined ? title : `${context} · ${title}`;
  byTestId('error-message').textContent = message;
  byTestId('error-banner').hidden = false;
}

function clearError(): void {
  byTestId('error-banner').hidden = true;
  byTestId('error-title').textContent = '';
  byTestId('error-message').textContent = '';
}

/** Saves the cluster and the page's metadata (a full or blocked storage is shown, not fatal). */
function persist(): void {
  if (state.planner === undefined || document.body.dataset.ready !== 'true') return;
  try {
    state.planner.save(window.localStorage);
    document.body.dataset.saved = String(Date.now());
  } catch (error) {
    const full = error instanceof DOMException && error.name === 'QuotaExceededError';
    showError(error, full ? 'saving to localStorage: the cluster is larger than this browser keeps; use Export state to keep it' : 'saving to localStorage');
  }
}

function requirePlanner(): Planner {
  if (state.planner === undefined) throw new Error('the engine is still loading');
  return state.planner;
}

const page: Page = {
  state,
  planner: requirePlanner,
  render,
  guard(context, action) {
    return async () => {
      try {
        clearError();
        await action();
      } catch (error) {
        showError(error, context);
        console.error(error);
      }
      persist();
    };
  },
  log(call, timed, outcome, backend) {
    logDecision(state, call, timed, outcome, timed?.backend ?? backend ?? requirePlanner().backend);
  },
};

// ---------- rendering ----------

function render(): void {
  const p = state.planner;
  if (p === undefined) return;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-backend]')) {
    b.classList.toggle('active', b.dataset.backend === p.backend);
    b.disabled = p.engines[b.dataset.backend as Backend] === undefined;
  }
  const status = byTestId('engine-status');
  status.dataset.backend = p.backend;
  status.textContent =
    p.backend === 'wasm' ? `engine ready · wasm backend (${p.engines.wasm?.memoryPages() ?? 0} pages)` : `engine ready · ts backend${p.engines.wasm === undefined ? ' (wasm failed to load)' : ''}`;
  if (p.selected !== undefined && !p.hasNode(p.selected)) p.selected = p.nodes()[0]?.id;
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-view]')) {
    b.classList.toggle('active', b.dataset.view === state.view);
    b.disabled = b.dataset.view === 'node' && p.selected === undefined;
  }
  for (const section of document.querySelectorAll<HTMLElement>('[data-view-body]')) section.hidden = section.dataset.viewBody !== state.view;
  refreshTpChoices(page);
  renderClusterView(page);
  renderNodeView(page);
  renderResult(page);
  renderWorkloads(page);
  renderFragmentation(page);
}

// ---------- wiring ----------

/** Runs an action when a file is picked, then clears the picker (so picking the same file again fires). */
function onFile(testid: string, context: string, action: (file: File) => Promise<void>): void {
  const picker = input(testid);
  picker.addEventListener(
    'change',
    page.guard(context, async () => {
      const file = picker.files?.[0];
      if (file === undefined) return;
      try {
        await action(file);
      } finally {
        picker.value = '';
      }
    }),
  );
}

function onSubmit(testid: string, context: string, action: (page: Page) => void): void {
  byTestId(testid).addEventListener('submit', (e) => {
    e.preventDefault();
    void page.guard(context, () => action(page))();
  });
}

function wire(): void {
  byTestId('error-close').addEventListener('click', clearError);
  window.addEventListener('error', (e) => showError(e.error ?? e.message, 'unexpected error'));
  window.addEventListener('unhandledrejection', (e) => showError(e.reason, 'unexpected error'));
  byTestId('view-switcher').replaceChildren(...VIEWS.map((v) => h('button', { type: 'button', class: 'seg', 'data-view': v.id, 'data-testid': `view-${v.id}` }, v.label)));
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-view]'))
    b.addEventListener(
      'click',
      page.guard('view', () => act.setView(page, b.dataset.view as string)),
    );
  select('add-type').addEventListener('change', describeType);
  onSubmit('add-form', 'add nodes', act.addNodes);
  onFile('inventory-file', 'inventory file', (file) => act.loadInventoryFile(page, file));
  onFile('import-state', 'import state', (file) => act.importState(page, file));
  byTestId('export-state').addEventListener(
    'click',
    page.guard('export state', () => act.exportState(page)),
  );
  byTestId('clear-cluster').addEventListener(
    'click',
    page.guard('clear cluster', () => act.clearCluster(page)),
  );
  byTestId('cluster-view').addEventListener('click', (e) => void page.guard('node', () => act.tileAction(page, e))());
  byTestId('cluster-view').addEventListener('keydown', (e) => {
    const target = e.target as HTMLElement;
    if ((e.key === 'Enter' || e.key === ' ') && target.closest('[data-act]') !== null && target.tagName !== 'BUTTON') {
      e.preventDefault();
      void page.guard('node', () => act.tileAction(page, e))();
    }
  });
  onFile('gguf-file', 'GGUF estimate', async (file) => {
    showReading();
    try {
      await estimateFromGguf(state, file);
    } catch (error) {
      clearEstimate();
      throw error;
    }
  });
  byTestId('reset-node').addEventListener(
    'click',
    page.guard('clear', () => act.releaseAll(page)),
  );
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-backend]')) {
    b.addEventListener(
      'click',
      page.guard('backend', () => {
        requirePlanner().setBackend(b.dataset.backend as Backend);
        render();
      }),
    );
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) b.addEventListener('click', () => act.switchTab(page, b.dataset.tab as Tab));
  onSubmit('model-form', 'plan', act.planModel);
  onSubmit('replicas-form', 'allocateReplicas', act.allocateReplicas);
  onSubmit('gpus-form', 'allocateAligned', act.allocateGpus);
  byTestId('result-body').addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('[data-testid="commit-button"]') !== null) void page.guard('commit', () => act.commitDecision(page))();
  });
  input('show-pcie').addEventListener('change', () => render());
  input('replicas-per-gpu').addEventListener('input', () => {
    if (state.decision?.kind !== 'replicas') render();
  });
}

// ---------- start ----------

async function start(): Promise<void> {
  wire();
  const created = await Planner.create();
  const planner = created.planner;
  state.planner = planner;
  if (created.wasmError !== undefined) showError(created.wasmError, 'WebAssembly core failed to load; using the ts backend');
  byTestId('engine-status').dataset.ready = 'true';
  input('gguf-context').value = String(DEFAULT_CONTEXT_LENGTH); // one default everywhere (API, CLI, page)
  const presets = listPresets();
  const addPresets = (): void => {
    for (const preset of presets)
      if (planner.machineType(`preset:${preset.name}`) === undefined) planner.addType(`preset:${preset.name}`, preset.name, getPreset(preset.name), `preset ${preset.name}`);
  };
  addPresets();
  let restored = false;
  try {
    restored = planner.load(window.localStorage);
  } catch (error) {
    showError(error, 'the saved cluster could not be restored (starting afresh; it is replaced on the next change)');
  }
  // Built-in presets are always offered, also after a reload.
  addPresets();
  fillTypeSelect(page);
  select('add-type').value = `preset:${DEFAULT_PRESET}`;
  describeType();
  act.switchTab(page, 'model');
  if (!restored && planner.machineType(`preset:${DEFAULT_PRESET}`) !== undefined) planner.addNodes(`preset:${DEFAULT_PRESET}`, 1);
  document.body.dataset.ready = 'true';
  document.body.dataset.restored = String(restored);
  render();
  persist();
}

start().catch((error: unknown) => {
  showError(error, 'start-up');
  byTestId('engine-status').textContent = 'failed to start';
  document.body.dataset.ready = 'error';
});
