// gpualloc state: look at and change a saved cluster state (the --state FILE of `gpualloc plan`):
// list its slots, show one, release one, mark one stale, drop the ones idle for longer than a duration.
// Every change reads, changes and writes the file under the same lock and atomic write as `plan --commit`.
import { parseArgs } from 'node:util';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createEngine, type Engine } from '../engine.js';
import { AllocationError } from '../errors.js';
import type { Slot } from '../placement.js';
import type { ClusterState } from '../cluster/state.js';
import { withFileLock } from '../store/file-lock.js';
import { formatBytes } from '../units.js';
import { EXIT, parseBackend, SOURCE_OPTIONS, table, UsageError, type Command, type Io } from './common.js';
import { busyLine, readState, writeState } from './state-file.js';
import { STORE_OPTION } from './store.js';
import { runStateOnStore, type StateView } from './state-store.js';

const HELP = `gpualloc state: list and change the slots of a saved cluster state (see gpualloc plan --state)

Usage: gpualloc state list --state FILE [--json]
       gpualloc state show SLOT --state FILE [--json]
       gpualloc state release SLOT --state FILE [--json]
       gpualloc state stale SLOT [--clear] --state FILE [--json]
       gpualloc state gc --older-than DURATION --state FILE [--json]
       gpualloc state init --store URL (--preset NAME | --inventory FILE) [--replace] [--json]
       (every action but init takes --store URL, a PostgreSQL state, in place of --state FILE)

Actions:
  list               every slot: ID, node, GPUs, memory per GPU, model, age, stale; and the
                     memory that processes outside gpualloc hold (in use by other processes);
                     with pods, their share, CPU and host memory, and a line per node that
                     tracks CPU, host memory or a GPU model
  show SLOT          one slot in full
  release SLOT       remove the slot, freeing its memory on every GPU it spans (and a pod's
                     CPU and host memory on its node)
  stale SLOT         mark the slot stale: other models may evict it (--clear: not stale again)
  gc                 remove the slots whose last activity is older than --older-than
                     (slots with no recorded activity are kept; release them by ID)
  init               create the PostgreSQL schema (migrations) and the node of the preset or
                     inventory in --store URL (exit 2 if it holds nodes already, unless --replace)

Options:
  --state FILE       the state file (written by gpualloc plan --state FILE --commit)
  --store URL        a cluster state in PostgreSQL (postgres://user:password@host/db?schema=NAME)
  --preset NAME, --inventory FILE, --replace   for init: the node to create; start over
  --older-than D     for gc: a duration such as 90s, 30m, 12h, 7d, 1h30m
  --clear            for stale: mark the slot not stale
  --backend NAME     wasm (default) or ts
  --json             list: { "slots": [ { "id", "node", "gpus", "memoryPerGpu", "model",
                     "lastActivity", "stale" } ] } (model and lastActivity null when unknown,
                     lastActivity in ms since the epoch); show and stale: { "slot": {…} };
                     release: { "released": {…} }; gc: { "removed": [ {…} ], "kept": N }
                     Pods: a slot also has "milli" (its share of each GPU, 1..1000), "cpu"
                     (milli-CPU) and "hostMemory" (bytes) when it holds them; list adds
                     "nodes": [ { "id", "cpu", "cpuHeld", "hostMemory", "hostMemoryHeld",
                     "gpuModel" } ] for the nodes that track any of them (show: "node")

Changes take FILE.lock (flock; waiting up to 10 s, then STATE_LOCKED) and replace FILE atomically,
like plan --commit; with --store each change is one transaction in the database.
Exit codes: 0 done, 2 bad input (an unknown slot ID, a missing or corrupt FILE, a store that holds
no nodes or, for init, already holds some).
`;

const ACTIONS = ['list', 'show', 'release', 'stale', 'gc', 'init'] as const;
type Action = (typeof ACTIONS)[number];

/** One slot as `state list --json` prints it (a pod's milli, cpu and hostMemory only when it holds them). */
export type SlotEntry = { id: string; node: string; gpus: number[]; memoryPerGpu: number; model: string | null; lastActivity: number | null; stale: boolean; milli?: number; cpu?: number; hostMemory?: number };

/**
 * A node's pod resources as `state list --json` prints them, for nodes that track any: allocatable
 * cpu (milli-CPU) and hostMemory (bytes) with what the slots hold of them, and the GPU model.
 */
export type NodeEntry = { id: string; cpu?: number; cpuHeld?: number; hostMemory?: number; hostMemoryHeld?: number; gpuModel?: string };

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses a duration such as `90s`, `30m`, `12h`, `7d`, `1h30m` into milliseconds. */
export function parseDuration(text: string, option: string): number {
  const t = text.trim();
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) throw new UsageError(`${option}: ${JSON.stringify(text)} has no unit; write it as ${t}s, ${t}m, ${t}h or ${t}d`);
  if (t === '' || !/^([0-9]+(\.[0-9]+)?(ms|s|m|h|d|w))+$/.test(t)) throw new UsageError(`${option}: expected a duration such as 90s, 30m, 12h, 7d or 1h30m, got ${JSON.stringify(text)}`);
  let ms = 0;
  for (const m of t.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d|w)/g)) ms += Number(m[1]) * DURATION_UNITS[m[2]];
  return Math.round(ms);
}

/** A duration in ms as the largest whole unit or two: 0s, 45s, 5m, 2h 5m, 3d 4h. */
export function formatAge(ms: number): string {
  if (ms < 0) return 'in the future';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d}d` : `${d}d ${h % 24}h`;
}

/** Every slot of the state with its node, in node order then the order slots were added. */
function entries(state: Pick<ClusterState, 'nodes' | 'listSlots'>): SlotEntry[] {
  const out: SlotEntry[] = [];
  for (const node of state.nodes()) for (const s of state.listSlots(node)) out.push(entry(node, s));
  return out;
}

function entry(node: string, s: Slot): SlotEntry {
  const e: SlotEntry = { id: s.id, node, gpus: [...s.gpus], memoryPerGpu: s.memoryPerGpu, model: s.model ?? null, lastActivity: s.lastActivity ?? null, stale: s.stale === true };
  if (s.milli !== undefined) e.milli = s.milli;
  if (s.cpu !== undefined) e.cpu = s.cpu;
  if (s.hostMemory !== undefined) e.hostMemory = s.hostMemory;
  return e;
}

/** The nodes that track CPU, host memory or a GPU model, in node order, with what their slots hold. */
function nodeEntries(state: Pick<ClusterState, 'toJSON'>): NodeEntry[] {
  const out: NodeEntry[] = [];
  for (const n of state.toJSON().nodes) {
    if (n.cpu === undefined && n.hostMemory === undefined && n.gpuModel === undefined) continue;
    const e: NodeEntry = { id: n.id };
    if (n.cpu !== undefined) {
      e.cpu = n.cpu;
      e.cpuHeld = n.slots.reduce((sum, s) => sum + (s.cpu ?? 0), 0);
    }
    if (n.hostMemory !== undefined) {
      e.hostMemory = n.hostMemory;
      e.hostMemoryHeld = n.slots.reduce((sum, s) => sum + (s.hostMemory ?? 0), 0);
    }
    if (n.gpuModel !== undefined) e.gpuModel = n.gpuModel;
    out.push(e);
  }
  return out;
}

/** Milli-CPU as CPUs: whole ones as a number (`4`), others in milli (`2500m`), as Kubernetes writes them. */
function formatCpu(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** A share of each GPU in milli as a fraction of the GPU (`0.25`). */
function formatShare(milli: number): string {
  return String(milli / 1000);
}

/** One line per node that tracks pod resources: `node a100: 4 of 16 CPUs held, 8 GiB of 64 GiB host memory held, GPU model A100`. */
function renderNodes(nodes: NodeEntry[]): string {
  return nodes.map((n) => `node ${n.id}: ${nodeSummary(n)}\n`).join('');
}

/** What a node tracks for pods: `4 of 16 CPUs held, 8 GiB of 64 GiB host memory held, GPU model A100`. */
function nodeSummary(n: NodeEntry): string {
  const parts: string[] = [];
  // In CPUs on both sides (`6.5 of 16`): `6500m of 16` would make the reader convert.
  if (n.cpu !== undefined) parts.push(`${n.cpuHeld! / 1000} of ${n.cpu / 1000} CPUs held`);
  if (n.hostMemory !== undefined) parts.push(`${formatBytes(n.hostMemoryHeld!)} of ${formatBytes(n.hostMemory)} host memory held`);
  if (n.gpuModel !== undefined) parts.push(`GPU model ${n.gpuModel}`);
  return parts.join(', ');
}

/** `state list --json`: the slots, and the nodes that track pod resources when there are any. */
function listJson(list: SlotEntry[], nodes: NodeEntry[]): { slots: SlotEntry[]; nodes?: NodeEntry[] } {
  return nodes.length === 0 ? { slots: list } : { slots: list, nodes };
}

/** `state show --json`: the slot, and its node's pod resources when it tracks any. */
function showJson(e: SlotEntry, nodes: NodeEntry[]): { slot: SlotEntry; node?: NodeEntry } {
  const node = nodes.find((n) => n.id === e.node);
  return node === undefined ? { slot: e } : { slot: e, node };
}

/** The slot with this ID, or UNKNOWN_SLOT naming the ID and the file (exit 2). */
function find(state: Pick<ClusterState, 'nodes' | 'listSlots'>, id: string, name: string): SlotEntry {
  const hit = entries(state).find((e) => e.id === id);
  if (hit === undefined) {
    const ids = entries(state).map((e) => e.id);
    const known = ids.length === 0 ? 'it has no slots' : `its slots: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? `, … (${ids.length} in all)` : ''}`;
    throw new AllocationError('UNKNOWN_SLOT', `slot ${JSON.stringify(id)} is not in ${name} (${known}); nothing was changed`, { field: 'SLOT', details: { slot: id } });
  }
  return hit;
}

/** What `state release` prints for a released slot. */
function renderReleased(e: SlotEntry): string {
  if (e.gpus.length === 0) return `released slot ${e.id} (${podHeld(e)} on ${e.node})\n`;
  const where = e.gpus.length === 1 ? `on GPU ${e.gpus[0]}` : `on each of GPUs ${e.gpus.join(',')}`;
  return `released slot ${e.id} (${formatBytes(e.memoryPerGpu)} ${where} of ${e.node})\n`;
}

/** What a slot without GPUs holds: `2 CPUs, 4 GiB host memory` or `2500m CPU`. */
function podHeld(e: SlotEntry): string {
  const parts: string[] = [];
  if (e.cpu !== undefined) parts.push(`${formatCpu(e.cpu)} ${e.cpu % 1000 === 0 && e.cpu !== 1000 ? 'CPUs' : 'CPU'}`);
  if (e.hostMemory !== undefined) parts.push(`${formatBytes(e.hostMemory)} host memory`);
  return parts.join(', ');
}

/** What `state stale [--clear]` prints once the slot's mark is `stale`. */
function renderStale(e: SlotEntry, stale: boolean): string {
  return stale ? `slot ${e.id} is stale: other models may evict it\n` : `slot ${e.id} is no longer stale\n`;
}

/** What `state gc --older-than TEXT` prints: the `removed` slots out of `all`. */
function renderGc(removed: SlotEntry[], all: SlotEntry[], olderThanText: string, name: string, now: number): string {
  const unknown = all.filter((e) => e.lastActivity === null).length;
  const lines = removed.length === 0
    ? [`no slot idle for more than ${olderThanText} in ${name}`]
    : [`removed ${removed.length} slot${removed.length === 1 ? '' : 's'} idle for more than ${olderThanText}: ${removed.map((e) => `${e.id} (${age(e, now)})`).join(', ')}`];
  lines.push(`kept ${all.length - removed.length}${unknown > 0 ? ` (${unknown} with no recorded activity)` : ''}`);
  return lines.join('\n') + '\n';
}

function age(e: SlotEntry, now: number): string {
  return e.lastActivity === null ? '?' : formatAge(now - e.lastActivity);
}

function renderList(list: SlotEntry[], name: string, now: number): string {
  if (list.length === 0) return `no slots in ${name}\n`;
  const multiNode = new Set(list.map((e) => e.node)).size > 1;
  // Pod columns only when some slot is a pod, so a state of models prints as it always did.
  const pods = list.some((e) => e.milli !== undefined || e.cpu !== undefined || e.hostMemory !== undefined);
  const rows = list.map((e) => {
    // A slot without GPUs (a CPU-only pod) holds no GPU memory: '-', like its GPUS.
    const row = [e.id, e.node, e.gpus.length === 0 ? '-' : e.gpus.join(','), e.gpus.length === 0 ? '-' : formatBytes(e.memoryPerGpu), e.model ?? '-', age(e, now), e.stale ? 'yes' : '-'];
    if (pods) row.push(e.milli === undefined ? '-' : formatShare(e.milli), e.cpu === undefined ? '-' : formatCpu(e.cpu), e.hostMemory === undefined ? '-' : formatBytes(e.hostMemory));
    return row;
  });
  const header = ['ID', 'NODE', 'GPUS', 'MEMORY/GPU', 'MODEL', 'AGE', 'STALE', ...(pods ? ['SHARE', 'CPU', 'HOST MEMORY'] : [])];
  return `${list.length} slot${list.length === 1 ? '' : 's'} in ${name}${multiNode ? '' : ` on ${list[0].node}`}:\n` + table(header, rows);
}

function renderSlot(e: SlotEntry, now: number, node?: NodeEntry): string {
  const rows: Array<[string, string]> = [
    ['node', e.node],
    ['gpus', e.gpus.length === 0 ? 'none' : e.gpus.join(',')],
    ['memory/gpu', e.gpus.length === 0 ? '-' : `${formatBytes(e.memoryPerGpu)} (${formatBytes(e.memoryPerGpu * e.gpus.length)} in all)`],
    ['model', e.model ?? '-'],
    ['last activity', e.lastActivity === null ? 'unknown' : `${new Date(e.lastActivity).toISOString()} (${age(e, now)} ago)`],
    ['stale', e.stale ? 'yes (other models may evict it)' : 'no'],
  ];
  if (e.milli !== undefined) rows.push(['share', `${formatShare(e.milli)} of each GPU (${e.milli} milli)`]);
  if (e.cpu !== undefined) rows.push(['cpu', `${formatCpu(e.cpu)} (${e.cpu} milli-CPU)`]);
  if (e.hostMemory !== undefined) rows.push(['host memory', formatBytes(e.hostMemory)]);
  if (node !== undefined) rows.push(['on node', nodeSummary(node)]);
  return `slot ${e.id}\n` + rows.map(([k, v]) => `  ${k.padEnd(14)}${v}`).join('\n') + '\n';
}

/** Reads the state that must exist (exit 2 naming the file when it does not). */
async function mustRead(engine: Engine, path: string, name: string): Promise<ClusterState> {
  const state = await readState(engine, path, name);
  if (state === undefined) throw new UsageError(`--state ${name}: no such file (gpualloc plan --state ${name} --commit creates one)`);
  return state;
}

/** The `state` subcommand. */
export const command: Command = {
  name: 'state',
  summary: 'list, show, release, mark stale or garbage-collect the slots of a saved cluster state',
  help: HELP,
  async run(argv: string[], io: Io): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { state: { type: 'string' }, 'older-than': { type: 'string' }, clear: { type: 'boolean' }, backend: { type: 'string' }, json: { type: 'boolean' }, ...STORE_OPTION, replace: { type: 'boolean' }, ...SOURCE_OPTIONS },
      strict: true,
      allowPositionals: true,
    });
    const [actionText, slotId, ...extra] = positionals;
    if (actionText === undefined) throw new UsageError(`state: expected an action: ${ACTIONS.join(', ')}`);
    if (!(ACTIONS as readonly string[]).includes(actionText)) throw new UsageError(`state: unknown action ${JSON.stringify(actionText)} (expected ${ACTIONS.join(', ')})`);
    const action = actionText as Action;
    const needsSlot = action === 'show' || action === 'release' || action === 'stale';
    if (needsSlot && slotId === undefined) throw new UsageError(`state ${action}: expected a slot ID (see gpualloc state list)`);
    const surplus = needsSlot ? extra : [slotId, ...extra].filter((p) => p !== undefined);
    if (surplus.length > 0) throw new UsageError(`state ${action}: unexpected argument ${JSON.stringify(surplus[0])}`);
    if (values.state !== undefined && values.store !== undefined) throw new UsageError(`state ${action}: give --state FILE or --store URL, not both`);
    if (action === 'init' && values.store === undefined) throw new UsageError('state init: --store URL is required (a state file is created by gpualloc plan --state FILE --commit)');
    if (action !== 'init' && (values.replace || values.preset !== undefined || values.inventory !== undefined)) throw new UsageError(`--preset, --inventory and --replace are for state init, not state ${action}`);
    if (values.state === undefined && values.store === undefined) throw new UsageError(`state ${action}: --state FILE is required (or --store URL)`);
    if (values['older-than'] !== undefined && action !== 'gc') throw new UsageError(`--older-than is for state gc, not state ${action}`);
    if (values.clear && action !== 'stale') throw new UsageError(`--clear is for state stale, not state ${action}`);
    const olderThan = action === 'gc' ? (values['older-than'] === undefined ? undefined : parseDuration(values['older-than'], '--older-than')) : undefined;
    if (action === 'gc' && olderThan === undefined) throw new UsageError('state gc: --older-than DURATION is required (such as 7d or 12h)');

    const engine = await createEngine({ backend: parseBackend(values.backend) });
    if (values.store !== undefined) {
      const view: StateView = { entries, nodeEntries, find, renderList, renderSlot, renderNodes, listJson, showJson, renderReleased, renderStale, renderGc, busyLine };
      return runStateOnStore(engine, {
        action, slotId, url: values.store, json: values.json === true, clear: values.clear === true, olderThan, olderThanText: values['older-than'],
        replace: values.replace === true, inventory: values.inventory, preset: values.preset,
      }, view, io);
    }
    const name = values.state!;
    const path = resolve(io.cwd, name);
    const print = (json: unknown, text: string) => io.out(values.json ? JSON.stringify(json, null, 2) + '\n' : text);

    if (action === 'list' || action === 'show') {
      // Reads need no lock: writers replace the file atomically, so this is one whole version.
      const state = await mustRead(engine, path, name);
      const now = Date.now();
      if (action === 'list') {
        const busy = busyLine(state);
        const list = entries(state);
        const nodes = nodeEntries(state);
        print(listJson(list, nodes), renderList(list, name, now) + (busy === undefined ? '' : `${busy}\n`) + renderNodes(nodes));
      }
      else {
        const e = find(state, slotId!, name);
        const nodes = nodeEntries(state);
        print(showJson(e, nodes), renderSlot(e, now, nodes.find((n) => n.id === e.node)));
      }
      return EXIT.OK;
    }

    // A change: fail on a missing file before creating FILE.lock beside it.
    await access(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new UsageError(`--state ${name}: no such file (gpualloc plan --state ${name} --commit creates one)`);
      throw error;
    });
    return withFileLock(path, async () => {
      const state = await mustRead(engine, path, name);
      const now = Date.now();
      if (action === 'release') {
        const e = find(state, slotId!, name);
        state.release(e.id);
        await writeState(state, path);
        print({ released: e }, renderReleased(e));
      } else if (action === 'stale') {
        const e = find(state, slotId!, name);
        const stale = values.clear !== true;
        if (e.stale !== stale) {
          state.markStale(e.id, stale);
          await writeState(state, path);
        }
        print({ slot: { ...e, stale } }, renderStale(e, stale));
      } else {
        const all = entries(state);
        const removed = all.filter((e) => e.lastActivity !== null && now - e.lastActivity > olderThan!);
        for (const e of removed) state.release(e.id);
        if (removed.length > 0) await writeState(state, path);
        print({ removed, kept: all.length - removed.length }, renderGc(removed, all, values['older-than']!, name, now));
      }
      return EXIT.OK;
    });
  },
};
