// gpualloc replicas: expand an inventory's GPUs (and MIG slices) into a replicated resource, allocate
// with a device-plugin policy, and show which physical GPU each pick landed on.

import { POLICY_ENV_VAR, type PolicySettings, resolveAllocationPolicy } from '../../devices/policy-config.js';
import type { ReplicaRequest, ReplicaResult } from '../../devices/replicas.js';
import { openEngine } from '../../engine.js';
import type { Inventory } from '../../hardware/inventory.js';
import { AllocationError } from '../../shared/errors.js';
import { type Command, EXIT, type Io, parsePositiveInt, table, UsageError } from '../lib/common.js';
import { backendOption, helpOption, inventoryOption, jsonOption, option, optionsHelp, parseIdList, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';

const OPTIONS = {
  inventory: inventoryOption('take the GPUs from an inventory file'),
  preset: presetOption('take them from a built-in preset (see `gpualloc presets`)'),
  size: option({ type: 'string', value: 'N', help: 'how many devices the container gets, required ones included (required)', field: 'size', parse: parsePositiveInt }),
  replicas: option({ type: 'string', value: 'N', help: 'replicas per GPU or MIG slice (default 1)', parse: parsePositiveInt }),
  policy: option({ type: 'string', value: 'NAME', help: "the request's policy: distributed | pack | spread" }),
  'allocation-policy': option({ type: 'string', value: 'NAME', help: 'the device plugin flag; used when --policy is not given' }),
  config: option({ type: 'string', value: 'FILE', help: 'device plugin YAML config: flags.plugin.allocationPolicy' }),
  available: option({ type: 'string', value: 'IDS', help: 'comma-separated device IDs that are free (default: all)', field: 'available', parse: parseIdList }),
  required: option({ type: 'string', value: 'IDS', help: 'comma-separated device IDs the container must get (they come first)', field: 'required', parse: parseIdList }),
  backend: backendOption(),
  json: jsonOption('print the result as JSON'),
  help: helpOption(),
};

const HELP = `gpualloc replicas: pick replicas / MIG slices for a container (NVIDIA device plugin policies)

Usage: gpualloc replicas [--inventory FILE | --preset NAME] --size N [--replicas N] [--policy NAME]
                         [--allocation-policy NAME] [--config FILE] [--available IDS] [--required IDS]
                         [--backend wasm|ts] [--json]

Each GPU of the inventory becomes N replicas <GPU uuid>::0 .. ::N-1; a GPU with MIG slices becomes
N replicas of each slice, <MIG uuid>::k, grouped by their parent GPU (a MIG-enabled GPU without
slices has none). Lost GPUs are left out.

Options:
${optionsHelp(OPTIONS, 28)}
Policy: --policy, else --allocation-policy, else $${POLICY_ENV_VAR}, else the config file,
else distributed. Ties end in natural order of the physical GPU, then of the replica ID.
  distributed  least allocated GPU first, then fewest picks in this call
  pack         most allocated GPU first (fill a GPU before opening the next); the device
               plugin's spelling \`packed\` is accepted in --config files
  spread       fewest picks in this call first, then least allocated
`;

/** One device of the expanded resource and where it physically lives. */
export type ExpandedDevice = { id: string; gpu: number; physical: string; mig?: string; profile?: string };

/** A replicated resource built from an inventory: every device, its parents, and what each ID is. */
export type ReplicatedResource = { devices: string[]; parents: Record<string, string>; byId: Map<string, ExpandedDevice> };

/** The physical key of an inventory GPU: its UUID, else its ID, else gpu<index>. */
export function gpuKey(gpu: Inventory['gpus'][number]): string {
  return gpu.uuid ?? gpu.id ?? `gpu${gpu.index}`;
}

/** Expands an inventory into `replicas` replicas of each GPU (or of each MIG slice, parented to its GPU). */
export function expandInventory(inventory: Inventory, replicas: number): ReplicatedResource {
  const devices: string[] = [];
  const parents: Record<string, string> = Object.create(null) as Record<string, string>;
  const byId = new Map<string, ExpandedDevice>();
  const add = (entry: ExpandedDevice) => {
    if (byId.has(entry.id)) throw AllocationError.at('DUPLICATE_DEVICE', 'inventory', `device ID ${JSON.stringify(entry.id)} appears twice (two GPUs or MIG slices share a UUID)`);
    devices.push(entry.id);
    Object.defineProperty(parents, entry.id, { value: entry.physical, enumerable: true });
    byId.set(entry.id, entry);
  };
  for (const gpu of inventory.gpus) {
    if (gpu.lost) continue;
    const physical = gpuKey(gpu);
    // `mig` is present exactly when MIG mode is on: then only its slices (possibly none) are devices.
    for (let r = 0; r < replicas; r++) {
      if (gpu.mig === undefined) add({ id: `${physical}::${r}`, gpu: gpu.index, physical });
      else for (const s of gpu.mig) add({ id: `${s.uuid}::${r}`, gpu: gpu.index, physical, mig: s.uuid, profile: s.profile });
    }
  }
  return { devices, parents, byId };
}

type Pick = { device: string; gpu: number; physical: string; mig?: string; profile?: string; required: boolean };

function _render(policy: string, origin: string, picks: Pick[], resource: ReplicatedResource, request: ReplicaRequest): string {
  const rows = picks.map((p, k) => [k + 1, p.device, p.gpu, p.physical, p.mig === undefined ? '-' : `${p.profile ?? '?'} ${p.mig}`, p.required ? 'required' : 'picked']);
  let text = `policy: ${policy} (from ${origin})\n\n`;
  text += table(['#', 'DEVICE', 'GPU', 'PHYSICAL GPU', 'MIG', 'HOW'], rows);
  // Per physical GPU: this call's devices, and how many of its devices are now in use.
  const free = new Set(request.available);
  for (const p of picks) free.delete(p.device);
  const perGpu = new Map<string, { gpu: number; got: number; used: number; total: number }>();
  for (const id of resource.devices) {
    const d = resource.byId.get(id)!;
    const row = perGpu.get(d.physical) ?? { gpu: d.gpu, got: 0, used: 0, total: 0 };
    row.total++;
    if (!free.has(id)) row.used++;
    perGpu.set(d.physical, row);
  }
  for (const p of picks) perGpu.get(p.physical)!.got++;
  const touched = [...perGpu.entries()].filter(([, r]) => r.got > 0);
  text += `\n${table(
    ['GPU', 'PHYSICAL GPU', 'THIS CALL', 'IN USE'],
    touched.map(([key, r]) => [r.gpu, key, r.got, `${r.used}/${r.total}`]),
  )}`;
  return text;
}

/** The `replicas` subcommand. */
export const command: Command = {
  name: 'replicas',
  summary: 'pick replicas / MIG slices for a container (distributed, pack, spread)',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const json = values.json === true;
    const backend = values.backend ?? 'wasm';
    if (values.size === undefined) throw new UsageError('--size is required');
    const size = values.size;
    const replicas = values.replicas ?? 1;

    const settings: PolicySettings = { env: io.env };
    if (values.policy !== undefined) {
      settings.request = values.policy;
      settings.requestName = '--policy';
    }
    if (values['allocation-policy'] !== undefined) settings.flag = values['allocation-policy'];
    if (values.config !== undefined) {
      const { readFile } = await import('node:fs/promises');
      const { resolve } = await import('node:path');
      let text: string;
      try {
        text = await readFile(resolve(io.cwd, values.config), 'utf8');
      } catch (cause) {
        throw new AllocationError('INVALID_CONFIG', `--config: cannot read ${values.config}: ${(cause as Error).message}`, { field: 'config', cause });
      }
      settings.config = { text, origin: values.config };
    }
    const resolved = await resolveAllocationPolicy(settings);

    const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: json }, io);
    const resource = expandInventory(inventory, replicas);
    const request: ReplicaRequest = {
      devices: resource.devices,
      available: values.available ?? resource.devices.slice(),
      required: values.required ?? [],
      size,
      policy: resolved.policy,
      parents: resource.parents,
    };
    const engine = await openEngine({ backend });
    const result: ReplicaResult = engine.allocateReplicas(request);
    const requiredCount = request.required!.length;
    const picks: Pick[] = result.devices.map((device, k) => {
      const d = resource.byId.get(device)!;
      const pick: Pick = { device, gpu: d.gpu, physical: d.physical, required: k < requiredCount };
      if (d.mig !== undefined) {
        pick.mig = d.mig;
        if (d.profile !== undefined) pick.profile = d.profile;
      }
      return pick;
    });
    if (json) {
      const out: Record<string, unknown> = { policy: resolved.policy, policySource: resolved.source, size, replicas, devices: result.devices, picks };
      if (result.reason !== undefined) out.reason = result.reason;
      io.out(JSON.stringify(out, null, 2) + '\n');
    } else if (result.reason === undefined) {
      io.out(_render(resolved.policy, resolved.source === 'request' ? '--policy' : resolved.origin, picks, resource, request));
    }
    if (result.reason !== undefined) {
      io.err(`gpualloc: infeasible (${result.reason.code}): ${result.reason.message}\n`);
      return EXIT.INFEASIBLE;
    }
    return EXIT.OK;
  },
};
