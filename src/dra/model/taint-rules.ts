// DeviceTaintRules applied as upstream's ResourceSlice tracker applies them
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker, applyPatches): a rule selects the devices
// of its driver and pool, of its device name, that satisfy every selector of its DeviceClass and
// every CEL selector of its own. A class the dump lacks selects nothing; a CEL runtime error leaves
// that device unselected; a selector that does not compile makes the rule select nothing. Each
// such case is one warning of the dump.
import { applyTaintRules as applyBy, type ClusterDump, type ClusterDumpOptions, type Device, type DraDocuments, readDevice, readClusterDump as readDump, type TaintRule } from '../objects/index.js';
import { DEFAULT_DRA_FEATURES, type ResolvedFeatures } from './features.js';
import { celDevice, Selectors } from './selectors.js';

/** The CEL selectors of each DeviceClass of the dump, by class name (unreadable classes left out: their reader reports them). */
function classSelectors(dump: ClusterDump): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of dump.classes) {
    const object = raw as { metadata?: { name?: unknown }; spec?: { selectors?: unknown } };
    const name = object.metadata?.name;
    if (typeof name !== 'string') continue;
    const selectors = Array.isArray(object.spec?.selectors) ? (object.spec.selectors as Array<{ cel?: { expression?: unknown } }>) : [];
    out.set(
      name,
      selectors.map((s) => s?.cel?.expression).filter((e): e is string => typeof e === 'string'),
    );
  }
  return out;
}

/**
 * Puts each DeviceTaintRule's taint on the devices it selects, class and CEL selectors included,
 * with the CEL environment of `features` (default: Kubernetes 1.36's). Warnings go to the dump's.
 */
export function applyTaintRules(dump: ClusterDump, features: ResolvedFeatures = DEFAULT_DRA_FEATURES): void {
  if (dump.taintRules.length === 0) return;
  const classes = classSelectors(dump);
  const selectors = new Selectors(features);
  const warned = new Set<string>();
  const warn = (rule: TaintRule, message: string): void => {
    if (warned.has(rule.name)) return;
    warned.add(rule.name);
    dump.warnings.push(`DeviceTaintRule/${rule.name}: ${message}`);
  };
  applyBy(dump, (rule, driver, raw) => {
    let device: Device;
    try {
      device = readDevice({ origin: `DeviceTaintRule/${rule.name}`, path: 'device' }, raw);
    } catch {
      return false; // the slice's reader reports the device
    }
    const view = celDevice(driver, device, features.consumableCapacity, features.listTypeAttributes);
    // The tracker hands CEL the driver, attributes and capacity only.
    if (features.consumableCapacity) view.allowMultipleAllocations = false;
    const check = (owner: string, expressions: readonly string[]): boolean => {
      try {
        return selectors.matchAll(owner, expressions, () => view, device.name);
      } catch (error) {
        warn(rule, `${(error as Error).message}; the device is not selected`);
        return false;
      }
    };
    if (rule.deviceClassName !== undefined) {
      const expressions = classes.get(rule.deviceClassName);
      if (expressions === undefined) {
        warn(rule, `spec.deviceSelector.deviceClassName: DeviceClass ${rule.deviceClassName} is not in the dump; the rule selects no device`);
        return false;
      }
      if (!check(`DeviceTaintRule ${rule.name}: class ${rule.deviceClassName}`, expressions)) return false;
    }
    return check(`DeviceTaintRule ${rule.name}`, rule.selectors);
  });
}

/**
 * Reads a dump (objects/readClusterDump) and, unless `options.applyTaintRules` is false, applies
 * its DeviceTaintRules with their class and CEL selectors.
 */
export function readClusterDump(documents: DraDocuments, origin: string, options: ClusterDumpOptions = {}): ClusterDump {
  const dump = readDump(documents, origin, { ...options, applyTaintRules: false });
  if (options.applyTaintRules !== false) applyTaintRules(dump);
  return dump;
}
