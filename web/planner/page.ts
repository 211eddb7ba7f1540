// The node planner's one state object and what its panels may call: every panel renders from
// `page.state` (and the Planner it holds), and every action changes the state, then calls
// `page.render()`. main.ts creates the page and wires the controls.
import type { AlignedResult, Backend, PlacementOption, PlacementPlan, ReplicaResult } from '../../src/index.ts';
import { byTestId } from '../shared/dom.ts';
import type { Planner } from './model.ts';
import type { Timed } from './types.ts';

/** The decision on show in the result panel. scope: planned across the cluster, or on the selected node. */
export type Decision =
  | { kind: 'model'; scope: 'cluster' | 'node'; label: string; memory: number; timed: Timed<PlacementPlan>; selected: number }
  | { kind: 'replicas'; label: string; replicasPerGpu: number; timed: Timed<ReplicaResult> }
  | { kind: 'gpus'; label: string; timed: Timed<AlignedResult> };

/** The workload tabs. */
export type Tab = 'model' | 'replicas' | 'gpus';

/** Everything the page shows that is not in the Planner (the cluster, machine types, replica work). */
export interface PageState {
  planner: Planner | undefined;
  decision: Decision | undefined;
  /** 'cluster' or 'node' (views.ts). */
  view: string;
  activeTab: Tab;
  /** Rows written to the decision log so far. */
  logCount: number;
  /** The memory field's text as the GGUF estimate wrote it, and the exact bytes behind it. */
  ggufEstimate: { text: string; bytes: number } | undefined;
}

/** The state and the page's services, handed to every panel and action. */
export interface Page {
  readonly state: PageState;
  /** The Planner; throws while the engine is still loading. */
  planner(): Planner;
  /** Renders every panel from the state. */
  render(): void;
  /** Wraps a UI action: anything it throws lands in the error banner; the cluster is saved after it. */
  guard(context: string, action: () => void | Promise<void>): () => Promise<void>;
  /** Adds a row to the decision log. */
  log(call: string, timed: { backend: Backend; ms: number; runs: number } | undefined, outcome: string, backend?: Backend): void;
}

/** The input element with that data-testid. */
export function input(testid: string): HTMLInputElement {
  return byTestId<HTMLInputElement>(testid);
}

/** The select element with that data-testid. */
export function select(testid: string): HTMLSelectElement {
  return byTestId<HTMLSelectElement>(testid);
}

/** The option on show (a model decision's selected row), if any. */
export function shownOption(state: PageState): PlacementOption | undefined {
  return state.decision?.kind === 'model' ? state.decision.timed.value.options[state.decision.selected] : undefined;
}

/** Milliseconds with a sensible number of digits. */
export function formatMs(ms: number, runs = 2): string {
  // One run is only as precise as the browser's clock (often 0.1 ms): do not print digits it lacks.
  if (runs === 1) return ms < 0.1 ? '< 0.1 ms' : `${ms.toFixed(1)} ms`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.001) return `${(ms * 1000).toFixed(1)} µs`;
  return '< 1 µs';
}

/** TP sizes offered for a node of n GPUs: powers of two up to n, and n itself. */
export function tpChoices(n: number): number[] {
  const sizes: number[] = [];
  for (let k = 1; k <= n; k *= 2) sizes.push(k);
  if (n > 0 && !sizes.includes(n)) sizes.push(n);
  return sizes;
}
