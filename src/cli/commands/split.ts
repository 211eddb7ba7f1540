// gpualloc split: a Backend.AI-style agent config (TOML) in, the multi-agent device split out.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SPLIT_MODES, type SplitDevice, type SplitMode, type SplitRequest, type SplitResult } from '../../devices/split.js';
import { openEngine } from '../../engine.js';
import type { Inventory } from '../../hardware/inventory.js';
import { AllocationError } from '../../shared/errors.js';
import { tomlPosition } from '../../shared/file-positions.js';
import { importOptional } from '../../shared/optional.js';
import { formatBytes, parseBytes } from '../../shared/units.js';
import { findUnknownKey, type KeyShape, unknownKeyError } from '../../shared/validate.js';
import { type Command, EXIT, type Io, table, UsageError } from '../lib/common.js';
import { sayInFile } from '../lib/error-words.js';
import { backendOption, helpOption, inventoryOption, jsonOption, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { resolveInventory } from '../lib/source.js';

const OPTIONS = {
  config: option({ type: 'string', value: 'FILE', help: 'agent config in TOML (required), see below' }),
  inventory: inventoryOption("take the host's GPUs, CPUs and memory from an inventory file"),
  preset: presetOption('take them from a built-in preset (see `gpualloc presets`)'),
  backend: backendOption(),
  json: jsonOption('print the split as JSON'),
  help: helpOption(),
};

const HELP = `gpualloc split: split one host's devices between several agents (Backend.AI multi-agent device split)

Usage: gpualloc split --config agents.toml [--inventory FILE | --preset NAME] [--backend wasm|ts] [--json]

Options:
${optionsHelp(OPTIONS, 21)}
Config (TOML):
  [resource]
  allocation-mode = "auto-split"   # shared | auto-split | manual
  reserved-mem = "4GiB"            # kept back from memory before splitting (bytes or a size:
                                   # GB, GiB, or Kubernetes' G = GB and Gi = GiB)
  memory = "512GiB"                # host memory; default: the inventory's

  [devices]                        # the host's devices; without it they come from the
  cuda = ["cuda0", "cuda1"]        # inventory (--inventory, NVML, else a preset)
  cpu = ["0", "1", "2", "3"]

  [[agents]]
  id = "agent-1"
  [agents.allocations]             # manual mode only: device IDs, and an amount for mem
  cuda = ["cuda0"]
  cpu = ["0", "1"]
  mem = "64GiB"

Modes:
  shared      every agent gets every device and all of the memory
  auto-split  devices in natural order, dealt fill-from-front: N over M agents gives the
              first N mod M agents one more; memory split the same way by amount
  manual      each agent gets what [agents.allocations] lists; validated before anything
              is assigned (unknown names or IDs, a device given twice, over-allocated memory)
`;

type Config = { mode: SplitMode; reserved: number; memory?: number; devices?: Record<string, SplitDevice[]>; agents: string[]; manual: Record<string, Record<string, string[] | number>> };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

function configError(path: string, message: string): never {
  throw AllocationError.at('INVALID_CONFIG', path, message);
}

function sizeValue(path: string, v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  if (typeof v === 'string') return parseBytes(v, path);
  return configError(path, `expected a size such as "64GiB" or a byte count, got ${JSON.stringify(v)}`);
}

/** Every key an agent config may have (device names under [devices] and allocations are free). */
export const AGENT_CONFIG_KEYS: KeyShape = {
  resource: { 'allocation-mode': null, 'reserved-mem': null, memory: null },
  devices: { '*': null },
  agents: { id: null, agent: { id: null }, allocations: { '*': null } },
};

/**
 * Reads the agent config's TOML text into a split configuration. Strict: a syntax error keeps the
 * parser's line and column, an unknown key is named with its line and the closest known key
 * (`agents.toml:2:1: unknown key resource.allocation_mode (did you mean allocation-mode?)`).
 */
export async function parseAgentConfig(text: string, file: string): Promise<Config> {
  // smol-toml is an optional peer dependency (only this file format needs it).
  const { parse: parseToml } = await importOptional('smol-toml', 'split --config (a TOML file)', () => import('smol-toml'));
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const e = error as Error & { line?: number; column?: number };
    const position = typeof e.line === 'number' && typeof e.column === 'number' ? { line: e.line, column: e.column } : undefined;
    const said = e.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    throw AllocationError.of('INVALID_CONFIG', { origin: file, ...(position === undefined ? {} : { position }), detail: `not valid TOML: ${said}`, cause: error });
  }
  // An unknown key or a bad value is said at its line and column.
  const place = { label: file, text, position: tomlPosition };
  const unknown = findUnknownKey(doc, AGENT_CONFIG_KEYS);
  if (unknown !== undefined) throw sayInFile(unknownKeyError('INVALID_CONFIG', unknown), place);
  try {
    return _configOf(doc);
  } catch (error) {
    throw sayInFile(error, place);
  }
}

function _configOf(doc: Record<string, unknown>): Config {
  const resource = doc.resource === undefined ? {} : doc.resource;
  if (!isRecord(resource)) configError('resource', 'expected a table');
  const modeRaw = resource['allocation-mode'] ?? 'shared';
  if (typeof modeRaw !== 'string' || !(SPLIT_MODES as readonly string[]).includes(modeRaw.replace('_', '-').toLowerCase())) {
    configError('resource.allocation-mode', `expected one of ${SPLIT_MODES.join(', ')}, got ${JSON.stringify(modeRaw)}`);
  }
  const mode = modeRaw.replace('_', '-').toLowerCase() as SplitMode;
  const reserved = resource['reserved-mem'] === undefined ? 0 : sizeValue('resource.reserved-mem', resource['reserved-mem']);
  const memory = resource.memory === undefined ? undefined : sizeValue('resource.memory', resource.memory);
  let devices: Record<string, SplitDevice[]> | undefined;
  if (doc.devices !== undefined) {
    if (!isRecord(doc.devices)) configError('devices', 'expected a table of device name → list of IDs');
    devices = {};
    for (const [name, ids] of Object.entries(doc.devices)) {
      if (!Array.isArray(ids)) configError(`devices.${name}`, `expected a list of device IDs, got ${JSON.stringify(ids)}`);
      Object.defineProperty(devices, name, { value: ids.map((id) => String(id)), enumerable: true });
    }
  }
  const rawAgents = doc.agents;
  if (!Array.isArray(rawAgents) || rawAgents.length === 0) configError('agents', 'expected at least one [[agents]] table');
  const agents: string[] = [];
  const manual: Config['manual'] = {};
  rawAgents.forEach((a, k) => {
    if (!isRecord(a)) configError(`agents[${k}]`, 'expected a table');
    const nested = isRecord(a.agent) ? a.agent.id : undefined;
    const id = a.id ?? nested;
    if (typeof id !== 'string' || id === '') configError(`agents[${k}].id`, `expected a non-empty string, got ${JSON.stringify(id)}`);
    agents.push(id);
    let alloc = a.allocations ?? {};
    if (!isRecord(alloc)) configError(`agents[${k}].allocations`, 'expected a table');
    if (isRecord(alloc.devices)) alloc = { ...alloc.devices, ...Object.fromEntries(Object.entries(alloc).filter(([key]) => key !== 'devices')) };
    const entry: Record<string, string[] | number> = {};
    for (const [name, v] of Object.entries(alloc as Record<string, unknown>)) {
      const value = Array.isArray(v) ? v.map((x) => String(x)) : sizeValue(`agents[${k}].allocations.${name}`, v);
      Object.defineProperty(entry, name, { value, enumerable: true });
    }
    Object.defineProperty(manual, id, { value: entry, enumerable: true, configurable: true });
  });
  return { mode, reserved, memory, devices, agents, manual };
}

/** The host's devices from an inventory: GPUs as cuda devices with their memory as slots, CPUs, memory. */
export function inventoryDevices(inventory: Inventory): { devices: Record<string, SplitDevice[]>; memory: number } {
  const cuda: SplitDevice[] = inventory.gpus.filter((g) => !g.lost).map((g) => ({ id: g.id ?? `cuda${g.index}`, slots: { 'cuda.device': 1, 'cuda.mem': g.memoryTotal } }));
  const devices: Record<string, SplitDevice[]> = { cuda };
  if (inventory.cpus !== undefined && inventory.cpus.length > 0) devices.cpu = [...inventory.cpus];
  return { devices, memory: inventory.memory ?? 0 };
}

/** The split request for a config on a host. */
export function splitRequestFor(config: Config, host: { devices: Record<string, SplitDevice[]>; memory: number }): SplitRequest {
  const memory = config.memory ?? host.memory;
  return {
    agents: config.agents,
    mode: config.mode,
    devices: config.devices ?? host.devices,
    amounts: { mem: memory },
    reserved: { mem: config.reserved },
    ...(config.mode === 'manual' ? { manual: config.manual } : {}),
  };
}

function render(result: SplitResult, agents: string[]): string {
  const rows: string[][] = [];
  for (const agent of agents) {
    // splitDevices answers for every agent, with a scaling for every name it assigns.
    const assignment = result.assignments[agent]!;
    const amounts = result.amounts[agent]!;
    for (const [name, ids] of Object.entries(assignment)) {
      const amount = Object.prototype.hasOwnProperty.call(amounts, name) ? amounts[name] : undefined;
      const shown = amount !== undefined ? formatBytes(amount) : ids.length === 0 ? '-' : ids.length > 12 ? `${ids.slice(0, 12).join(',')},… (${ids.length})` : ids.join(',');
      rows.push([agent, name, amount !== undefined ? 'amount' : String(ids.length), shown, `${(result.scaling[agent]![name]! * 100).toFixed(1)}%`]);
    }
  }
  let text = table(['AGENT', 'DEVICE', 'COUNT', 'ASSIGNED', 'SHARE'], rows);
  for (const w of result.warnings) text += `warning: ${w.code}: ${w.message}\n`;
  return text;
}

/** The `split` subcommand. */
export const command: Command = {
  name: 'split',
  summary: "split one host's devices between agents (shared, auto-split, manual)",
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    if (values.config === undefined) throw new UsageError('split: --config FILE is required (see gpualloc split --help)');
    const backend = values.backend ?? 'wasm';
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, values.config), 'utf8');
    } catch (error) {
      throw new AllocationError('INVALID_CONFIG', `--config: cannot read ${values.config}: ${(error as Error).message}`, { cause: error });
    }
    const config = await parseAgentConfig(text, values.config);
    let host: { devices: Record<string, SplitDevice[]>; memory: number } = { devices: {}, memory: 0 };
    if (config.devices === undefined || config.memory === undefined || values.inventory !== undefined || values.preset !== undefined) {
      const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: values.json === true }, io);
      host = inventoryDevices(inventory);
    }
    const engine = await openEngine({ backend });
    const result = engine.splitDevices(splitRequestFor(config, host));
    io.out(values.json ? JSON.stringify(result, null, 2) + '\n' : render(result, config.agents));
    return EXIT.OK;
  },
};
