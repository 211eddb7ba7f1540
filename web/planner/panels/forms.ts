// The controls panel's form fields: reading them (a clear message naming the field on bad input),
// the tensor-parallel choices for the node or cluster on show, and the machine-type picker.
import { listPresets, parseBytes } from '../../../src/index.ts';
import { byTestId, h } from '../../shared/dom.ts';
import { input, type Page, type PageState, select, tpChoices } from '../page.ts';

/** A whole number from a field, within [min, max]. */
export function parseCount(testid: string, field: string, min: number, max: number): number {
  const raw = input(testid).value.trim();
  const value = Number(raw);
  if (raw === '' || !Number.isInteger(value) || value < min || value > max) throw new Error(`${field}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return value;
}

/** A field's whole number, or `fallback` when it is not one from 1 to 64 (for drawing while the user types). */
export function safeCount(testid: string, fallback: number): number {
  const v = Number(input(testid).value);
  return Number.isInteger(v) && v >= 1 && v <= 64 ? v : fallback;
}

/** The model's memory in bytes (the GGUF estimate's exact bytes while its text is in the field). */
export function parseMemory(state: PageState): number {
  const raw = input('model-memory').value;
  if (state.ggufEstimate !== undefined && raw === state.ggufEstimate.text) return state.ggufEstimate.bytes;
  const bytes = parseBytes(raw, 'memory');
  if (bytes <= 0) throw new Error(`memory: expected more than 0 bytes, got ${JSON.stringify(raw)}`);
  return bytes;
}

/** The ticked tensor-parallel sizes. */
export function selectedTpSizes(): number[] {
  const sizes = [...document.querySelectorAll<HTMLInputElement>('[data-testid="model-tp"] input:checked')].map((x) => Number(x.value));
  if (sizes.length === 0) throw new Error('tensor-parallel sizes: pick at least one size');
  return sizes;
}

/** The TP choices for the selected node (node view) or the widest node (cluster view); kept when unchanged. */
export function refreshTpChoices(page: Page): void {
  const p = page.planner();
  const widths = page.state.view === 'node' && p.selected !== undefined && p.hasNode(p.selected) ? [p.node(p.selected).gpus.length] : p.nodes().map((n) => n.gpus.length);
  const choices = tpChoices(Math.max(0, ...widths));
  const current = [...document.querySelectorAll<HTMLInputElement>('[data-testid="model-tp"] input')].map((x) => x.value).join(',');
  if (current === choices.join(',')) return;
  byTestId('model-tp').replaceChildren(
    ...choices.map((k) => h('label', { class: 'chip' }, h('input', { type: 'checkbox', value: k, 'data-testid': `tp-${k}`, checked: true }), h('span', {}, `TP ${k}`))),
  );
}

/** Fills the machine-type picker, keeping the current choice when it is still there. */
export function fillTypeSelect(page: Page): void {
  const p = page.planner();
  const picker = select('add-type');
  const keep = picker.value;
  picker.replaceChildren(...p.machineTypes().map((t) => h('option', { value: t.key }, t.key.startsWith('file:') ? `${t.label} (inventory file)` : t.label)));
  if (keep !== '' && p.machineType(keep) !== undefined) picker.value = keep;
}

/** Describes the picked machine type under the picker. */
export function describeType(): void {
  const key = select('add-type').value;
  const name = key.startsWith('preset:') ? key.slice('preset:'.length) : undefined;
  byTestId('type-description').textContent = name !== undefined ? (listPresets().find((x) => x.name === name)?.description ?? '') : `From an inventory file (${key.slice('file:'.length)}).`;
}
