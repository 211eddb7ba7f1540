// gpualloc state: look at and change a saved cluster state (the --state FILE of `gpualloc plan`):
// list its slots, show one, release one, mark one stale, drop the ones idle for longer than a duration.
// Every change reads, changes and writes the file under the same lock and atomic write as `plan --commit`.

import type { ClusterState } from '../../cluster/state.js';
import { openEngine } from '../../engine.js';
import { type Command, EXIT, type Io, UsageError } from '../lib/common.js';
import { backendOption, integerIn, inventoryOption, jsonOption, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { type ChangeRequest, runChange } from '../lib/state-actions.js';
import { stateFile } from '../lib/state-file.js';
import { initFile, parseLabelFlags, renderFileInit } from '../lib/state-init.js';
import { runStateOnStore } from '../lib/state-store.js';
import { listOutput, showOutput } from '../lib/state-view.js';
import { storeUrlOf } from '../lib/store.js';

const OPTIONS = {
  state: option({ type: 'string', value: 'FILE', help: 'the state file (written by gpualloc plan --state FILE --commit, or state init)' }),
  store: option({
    type: 'string',
    value: 'URL',
    help: 'a cluster state in PostgreSQL (postgres://user@host/db?schema=NAME; the password\nfrom PGPASSWORD, ~/.pgpass or PGSERVICE, not the URL, which others can see)',
  }),
  'request-id': option({ type: 'string', value: 'ID', field: 'options.requestId', help: "for release --store: the change's identity; repeating it after it landed succeeds" }),
  grant: option({
    type: 'string',
    value: 'ROLE',
    help: 'for init --store: let that run-time role plan, commit and release, but not\nchange the schema or the nodes (run init as the role that owns the schema)',
  }),
  preset: { ...presetOption('for init: the nodes to create (--inventory is repeatable:\na node per file); start over'), label: '--preset NAME, --inventory FILE, --replace' },
  inventory: { ...inventoryOption(''), help: undefined, multiple: true },
  nodes: option({ type: 'string', value: 'N', help: 'for init --preset: N nodes of the preset, named <host>-1 … <host>-N', parse: integerIn(1, 10_000) }),
  label: option({ type: 'string', value: 'KEY=VALUE', multiple: true, help: 'for init: a label on every node created (repeatable), such as\nnvidia.com/gpu.clique=c1: what plan --topology names' }),
  replace: option({ type: 'boolean' }),
  'older-than': option({ type: 'string', value: 'D', help: 'for gc: a duration such as 90s, 30m, 12h, 7d, 1h30m', parse: (text, flag) => ({ ms: parseDuration(text, flag), text }) }),
  'dry-run': option({ type: 'boolean', help: 'for gc: list what it would remove, change nothing' }),
  clear: option({ type: 'boolean', help: 'for stale: mark the slot not stale' }),
  backend: backendOption(),
  json: jsonOption(`list: { "slots": [ { "id", "node", "gpus", "memoryPerGpu", "model",
"lastActivity", "stale" } ] } (model and lastActivity null when unknown,
lastActivity in ms since the epoch); show and stale: { "slot": {…} };
release: { "released": {…} }; touch: { "touched": [ {…} ] };
gc: { "removed": [ {…} ], "kept": N } (--dry-run: { "wouldRemove":
[ {…} ], "kept": N, "dryRun": true })
Pods: a slot also has "milli" (its share of each GPU, 1..1000), "cpu"
(milli-CPU) and "hostMemory" (bytes) when it holds them; list adds
"nodes": [ { "id", "cpu", "cpuHeld", "hostMemory", "hostMemoryHeld",
"gpuModel" } ] for the nodes that track any of them (show: "node")`),
};

const HELP = `gpualloc state: list and change the slots of a saved cluster state (see gpualloc plan --state)

Usage: gpualloc state list --state FILE [--json]
       gpualloc state show SLOT --state FILE [--json]
       gpualloc state release SLOT --state FILE [--json]
       gpualloc state stale SLOT [--clear] --state FILE [--json]
       gpualloc state touch SLOT... --state FILE [--json]
       gpualloc state gc --older-than DURATION [--dry-run] --state FILE [--json]
       gpualloc state init --state FILE (--preset NAME | --inventory FILE) [--replace] [--json]
       gpualloc state init --store URL (--preset NAME | --inventory FILE) [--replace] [--grant ROLE]
       (every action takes --store URL, a PostgreSQL state, in place of --state FILE; without
       either, GPUALLOC_STORE is used when set)

Actions:
  list               every slot: ID, node, GPUs, memory per GPU, model, idle time (since its
                     last activity: its commit or latest touch), stale; and the
                     memory that processes outside gpualloc hold (in use by other processes);
                     with pods, their share, CPU and host memory, and a line per node that
                     tracks CPU, host memory or a GPU model
  show SLOT          one slot in full
  release SLOT       remove the slot, freeing its memory on every GPU it spans (and a pod's
                     CPU and host memory on its node)
  stale SLOT         mark the slot stale: other models may evict it (--clear: not stale again,
                     and its activity is recorded, as by touch)
  touch SLOT...      record activity of the slots now: a serving process touches its slot now
                     and then, so that gc knows it is alive
  gc                 remove the slots idle for longer than --older-than (no commit or touch
                     since), listing them; --dry-run lists them and removes nothing. Slots with
                     no recorded activity are kept (release them by ID); a slot touched while
                     gc runs is kept
  init               create the state with the node of the preset or inventory: a new FILE,
                     or the PostgreSQL schema (migrations) of --store URL (exit 2 if FILE
                     exists or the store holds nodes already, unless --replace)

Options:
${optionsHelp(OPTIONS, 21)}
Changes take FILE.lock (flock; waiting up to 10 s, then STATE_LOCKED) and replace FILE atomically,
like plan --commit; with --store each change is one transaction in the database.
Exit codes: 0 done, 2 bad input (an unknown slot ID, a missing or corrupt FILE, a store that holds
no nodes or, for init, an existing FILE or a store that holds nodes; a store or file that failed
with nothing changed), 4 the store became unreachable while a release was in flight (repeat it
with the --request-id named).
`;

const ACTIONS = ['list', 'show', 'release', 'stale', 'touch', 'gc', 'init'] as const;
type Action = (typeof ACTIONS)[number];

export type { NodeEntry, SlotEntry } from '../lib/state-view.js';
export { formatAge } from '../lib/state-view.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses a duration such as `90s`, `30m`, `12h`, `7d`, `1h30m` into milliseconds. */
export function parseDuration(text: string, option: string): number {
  const t = text.trim();
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) throw new UsageError(`${option}: ${JSON.stringify(text)} has no unit; write it as ${t}s, ${t}m, ${t}h or ${t}d`);
  if (t === '' || !/^([0-9]+(\.[0-9]+)?(ms|s|m|h|d|w))+$/.test(t)) throw new UsageError(`${option}: expected a duration such as 90s, 30m, 12h, 7d or 1h30m, got ${JSON.stringify(text)}`);
  let ms = 0;
  for (const m of t.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d|w)/g)) ms += Number(m[1]) * DURATION_UNITS[m[2]!]!; // the pattern names only its units
  return Math.round(ms);
}

/** The `state` subcommand. */
export const command: Command = {
  name: 'state',
  summary: 'list, show, release, mark stale, touch or garbage-collect the slots of a saved cluster state',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values, positionals } = readOptions(OPTIONS, argv, { positionals: true });
    const [actionText, ...args] = positionals;
    if (actionText === undefined) throw new UsageError(`state: expected an action: ${ACTIONS.join(', ')}`);
    if (!(ACTIONS as readonly string[]).includes(actionText)) throw new UsageError(`state: unknown action ${JSON.stringify(actionText)} (expected ${ACTIONS.join(', ')})`);
    const action = actionText as Action;
    const needsSlot = action === 'show' || action === 'release' || action === 'stale' || action === 'touch';
    if (needsSlot && args.length === 0) throw new UsageError(`state ${action}: expected a slot ID (see gpualloc state list)`);
    // touch takes several slots; show, release and stale one.
    const slotIds = action === 'touch' ? args : args.slice(0, needsSlot ? 1 : 0);
    const surplus = args.slice(slotIds.length);
    if (surplus.length > 0) throw new UsageError(`state ${action}: unexpected argument ${JSON.stringify(surplus[0])}`);
    const slotId = slotIds[0];
    if (values.state !== undefined && values.store !== undefined) throw new UsageError(`state ${action}: give --state FILE or --store URL, not both`);
    const storeUrl = storeUrlOf(values, io);
    if (action !== 'init' && (values.replace || values.preset !== undefined || values.inventory !== undefined || values.nodes !== undefined || values.label !== undefined))
      throw new UsageError(`--preset, --inventory, --nodes, --label and --replace are for state init, not state ${action}`);
    if (values.grant !== undefined && (action !== 'init' || storeUrl === undefined)) throw new UsageError('--grant is for state init --store URL');
    if (values['request-id'] !== undefined && (action !== 'release' || storeUrl === undefined)) throw new UsageError('--request-id is for state release --store URL');
    if (values.state === undefined && storeUrl === undefined) throw new UsageError(`state ${action}: --state FILE is required (or --store URL)`);
    if (values['older-than'] !== undefined && action !== 'gc') throw new UsageError(`--older-than is for state gc, not state ${action}`);
    if (values['dry-run'] && action !== 'gc') throw new UsageError(`--dry-run is for state gc, not state ${action}`);
    if (values.clear && action !== 'stale') throw new UsageError(`--clear is for state stale, not state ${action}`);
    const olderThan = values['older-than']?.ms;
    const olderThanText = values['older-than']?.text;
    if (action === 'gc' && olderThan === undefined) throw new UsageError('state gc: --older-than DURATION is required (such as 7d or 12h)');
    const change: ChangeRequest | undefined =
      action === 'release' || action === 'stale' || action === 'touch' || action === 'gc'
        ? { action, slotIds, clear: values.clear === true, olderThan, olderThanText, dryRun: values['dry-run'] === true }
        : undefined;

    const engine = await openEngine({ backend: values.backend ?? 'wasm' });
    if (storeUrl !== undefined) {
      return runStateOnStore(
        engine,
        {
          action,
          slotId,
          change,
          url: storeUrl,
          json: values.json === true,
          replace: values.replace === true,
          inventory: listOf(values.inventory),
          preset: values.preset,
          nodes: values.nodes,
          labels: labelsOf(values.label),
          grant: values.grant,
          requestId: values['request-id'],
        },
        io,
      );
    }
    const name = values.state!;
    const print = (json: unknown, text: string) => io.out(values.json ? JSON.stringify(json, null, 2) + '\n' : text);
    const file = stateFile(engine, io, name);

    if (action === 'init') {
      const report = await initFile(
        engine,
        file,
        name,
        { inventory: listOf(values.inventory), preset: values.preset, nodes: values.nodes, labels: labelsOf(values.label), quiet: values.json === true },
        values.replace === true,
        io,
      );
      print(report, renderFileInit(report));
      return EXIT.OK;
    }
    if (action === 'list' || action === 'show') {
      // Reads need no lock: writers replace the file atomically, so this is one whole version.
      const state = await file.current();
      if (state === undefined) throw new UsageError(`--state ${name}: no such file (gpualloc plan --state ${name} --commit, or gpualloc state init --state ${name}, creates one)`);
      const now = Date.now();
      const { json, text } = action === 'list' ? listOutput(state, name, now) : showOutput(state, slotId!, name, now);
      print(json, text);
      return EXIT.OK;
    }
    // A change: read, change and write under the file's lock (a missing file fails before FILE.lock is made).
    const said = await file.update(
      async (saved): Promise<{ value: { json: unknown; text: string }; write?: ClusterState }> => {
        const state = saved!;
        const { json, text, changed } = await runChange(state, change!, name, Date.now());
        return changed ? { value: { json, text }, write: state } : { value: { json, text } };
      },
      { mustExist: true },
    );
    print(said.json, said.text);
    return EXIT.OK;
  },
};

/** A repeatable flag's values (parseArgs gives a list for a `multiple` option). */
function listOf(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

/** `--label KEY=VALUE` flags as labels. */
function labelsOf(value: string | string[] | undefined): Record<string, string> | undefined {
  const list = listOf(value);
  return list === undefined ? undefined : parseLabelFlags(list);
}
