// The GGUF box of the model form: reads a GGUF file's head in the browser, estimates the memory a
// model needs and fills the form's memory and name with it.
import { estimateMemory, formatBytes, type MemoryEstimate } from '../../../src/index.ts';
import { byTestId, h } from '../../shared/dom.ts';
import { input, type PageState, select } from '../page.ts';
import { describeError } from '../types.ts';
import { parseCount } from './forms.ts';

/** Prefixes of the file tried in turn: the header holds everything the estimate needs. */
const GGUF_PREFIXES = [16 * 2 ** 20, 128 * 2 ** 20, 1024 * 2 ** 20];

/** Estimates from the file, shows the estimate and puts it in the model form. */
export async function estimateFromGguf(state: PageState, file: File): Promise<void> {
  const options = {
    contextLength: parseCount('gguf-context', 'context length', 1, 10_000_000),
    parallel: parseCount('gguf-parallel', 'parallel', 1, 1024),
    kvCacheType: select('gguf-kv').value as 'f16' | 'q8_0' | 'q4_0',
    flashAttention: input('gguf-flash').checked,
  };
  let estimate: MemoryEstimate | undefined;
  let lastError: unknown;
  // Read only the file's head: the GGUF header holds everything the estimate needs.
  for (const prefix of GGUF_PREFIXES) {
    const bytes = new Uint8Array(await file.slice(0, Math.min(prefix, file.size)).arrayBuffer());
    try {
      estimate = await estimateMemory(bytes, options);
      break;
    } catch (error) {
      lastError = error;
      if (prefix >= file.size || !/truncat|end of|short|beyond/i.test(describeError(error).message)) break;
    }
  }
  if (estimate === undefined) throw lastError;
  const text = formatBytes(Math.ceil(estimate.total / 2 ** 20) * 2 ** 20).replace(' ', '');
  state.ggufEstimate = { text, bytes: estimate.total };
  input('model-memory').value = text;
  input('model-name').value = file.name.replace(/\.gguf$/i, '');
  const row = (label: string, value: string): HTMLTableRowElement => h('tr', {}, h('th', {}, label), h('td', {}, value));
  byTestId('gguf-estimate').replaceChildren(
    h(
      'table',
      { class: 'kv', 'data-testid': 'gguf-table' },
      row('weights', formatBytes(estimate.weights)),
      row('KV cache', formatBytes(estimate.kvCache)),
      row('graph', formatBytes(estimate.graph)),
      h('tr', {}, h('th', {}, 'total'), h('td', { 'data-testid': 'gguf-total', 'data-bytes': estimate.total }, h('b', {}, formatBytes(estimate.total)))),
      estimate.layers !== undefined && row('layers', String(estimate.layers)),
    ),
    ...(estimate.warnings ?? []).map((w) => h('p', { class: 'warn' }, w)),
  );
}

/** Shows that the header is being read. */
export function showReading(): void {
  byTestId('gguf-estimate').replaceChildren(h('p', { class: 'hint' }, 'Reading the header…'));
}

/** Clears the estimate box. */
export function clearEstimate(): void {
  byTestId('gguf-estimate').replaceChildren();
}
