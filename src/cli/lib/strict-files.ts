// The JSON files the CLI reads (--inventory, --state), read strictly: a syntax error names the file,
// line and column; an unknown key names itself, its line and the closest known key; a bad value names
// its line too. Nothing is written when a file is refused.
import type { Engine } from '../../engine.js';
import { AllocationError, type AllocationErrorCode } from '../../shared/errors.js';
import { findUnknownKey, formatPath, formatPlace, jsonPosition, parseJsonText, unknownKeyMessage, withFieldPlace, type KeyShape } from '../../shared/config-keys.js';
import type { ClusterState, ClusterStateJSON } from '../../cluster/state.js';
import type { NodeGpu, Slot } from '../../placement/index.js';
import type { Link, Topology } from '../../hardware/topology.js';
import { validateInventory, type Inventory } from '../../hardware/inventory.js';

type _StateNode = ClusterStateJSON['nodes'][number];
type _Exactly<T> = Record<keyof Required<T>, KeyShape>;

// Each list is typed with every key of its ClusterStateJSON part (src/cluster/state.ts), and only
// those: a field added to the state file's type and not here, or removed, fails the build.
const _GPU_KEYS: _Exactly<NodeGpu> = { index: null, memoryTotal: null, memoryUsed: null };
const _LINK_KEYS: _Exactly<Link> = { a: null, b: null, pcie: null, nvlink: null };
const _TOPOLOGY_KEYS: _Exactly<Topology> = { gpus: null, links: _LINK_KEYS };
const _SLOT_KEYS: _Exactly<Slot> = { id: null, model: null, gpus: null, memoryPerGpu: null, lastActivity: null, stale: null, milli: null, cpu: null, hostMemory: null };
const _NODE_KEYS: _Exactly<_StateNode> = { id: null, gpus: _GPU_KEYS, topology: _TOPOLOGY_KEYS, slots: _SLOT_KEYS, cpu: null, hostMemory: null, gpuModel: null };

/** The keys of a state file: ClusterStateJSON as toJSON writes it (checked against its type at build time). */
export const STATE_FILE_KEYS: KeyShape = { version: null, nextSlot: null, nodes: _NODE_KEYS } satisfies _Exactly<ClusterStateJSON>;

/** Parses a JSON file's text; INVALID code with FILE:LINE:COLUMN on a syntax error. */
function _parse(text: string, label: string, code: AllocationErrorCode, field: string): unknown {
  return parseJsonText(text, label, (message, cause) => {
    throw new AllocationError(code, message, { field, cause });
  });
}

/** An inventory file's text, validated (validateInventory); errors carry `--inventory FILE:LINE:COL`. */
export function inventoryFromText(text: string, file: string): Inventory {
  const label = `--inventory ${file}`;
  const json = _parse(text, label, 'INVALID_INVENTORY', 'inventory');
  return withFieldPlace(text, label, `${file}: `, jsonPosition, () => validateInventory(json, file));
}

/**
 * A state file's text as a ClusterState: unknown keys (STATE_FILE_KEYS) and bad values are
 * INVALID_STATE naming `--state FILE:LINE:COL`, and the file is left untouched.
 */
export function stateFromText(engine: Engine, text: string, file: string): ClusterState {
  const label = `--state ${file}`;
  const json = parseJsonText(text, label, (message, cause) => {
    throw new AllocationError('INVALID_STATE', `${message} (the file was left untouched)`, { field: 'state', cause });
  });
  const isInventory = json !== null && typeof json === 'object' && !Array.isArray(json) && !('nodes' in json) && 'gpus' in json;
  if (isInventory) {
    // A state file may start as an inventory (restoreClusterState accepts one): check it as one.
    return engine.restoreClusterState(inventoryFromText(text, file));
  }
  const unknown = findUnknownKey(json, STATE_FILE_KEYS);
  if (unknown !== undefined) {
    throw new AllocationError('INVALID_STATE', `${formatPlace(label, jsonPosition(text, unknown.path))}: ${unknownKeyMessage(unknown)} (the file was left untouched)`, { field: formatPath(unknown.path) });
  }
  try {
    return withFieldPlace(text, label, 'state: ', jsonPosition, () => engine.restoreClusterState(json), 'state');
  } catch (error) {
    if (!(error instanceof AllocationError)) throw error;
    const message = error.message.startsWith(label) ? error.message : `${label}: ${error.message.replace(/^state: /, '')}`;
    throw new AllocationError('INVALID_STATE', `${message} (the file was left untouched)`, { field: 'state', cause: error });
  }
}
