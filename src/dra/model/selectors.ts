// CEL selectors of classes and requests, compiled once per expression per call and evaluated on a
// device's CEL view. CEL failures become AllocationError (objects/errors.ts fromLibrary) with
// upstream's framing ("class X: selector #0: CEL compile error: …", "claim X: selector #0 on device
// D: CEL runtime error: …").
import type { AllocationError } from '../../shared/errors.js';
import { type CelDevice, type CompiledSelector, compileSelector, type PreparedDevice, type SelectorCache } from '../cel/index.js';
import { type AttributeValue, type Device, fromLibrary, type Quantity } from '../objects/index.js';
import type { ResolvedFeatures } from './features.js';

/** The CEL view of a device: attributes and capacities by domain (bare names belong to the driver). */
export function celDevice(driver: string, device: Device, consumableCapacity: boolean, listTypeAttributes: boolean): CelDevice {
  const attributes: Record<string, Record<string, AttributeValue>> = Object.create(null) as Record<string, Record<string, AttributeValue>>;
  const capacity: Record<string, Record<string, Quantity>> = Object.create(null) as Record<string, Record<string, Quantity>>;
  const split = (key: string): [string, string] => {
    const slash = key.indexOf('/');
    return slash < 0 ? [driver, key] : [key.slice(0, slash), key.slice(slash + 1)];
  };
  for (const [key, value] of Object.entries(device.attributes)) {
    // Without DRAListTypeAttributes a list value is not part of the device as CEL sees it (upstream
    // allocates such devices by their other fields; the cel/ sub-room would reject the whole device).
    if (!listTypeAttributes && isList(value)) continue;
    const [domain, name] = split(key);
    (attributes[domain] ??= Object.create(null) as Record<string, AttributeValue>)[name] = value;
  }
  for (const [key, amount] of Object.entries(device.capacity)) {
    const [domain, name] = split(key);
    (capacity[domain] ??= Object.create(null) as Record<string, Quantity>)[name] = amount.value;
  }
  const view: CelDevice = { driver, attributes, capacity };
  if (consumableCapacity) view.allowMultipleAllocations = device.allowMultipleAllocations === true;
  return view;
}

function isList(value: AttributeValue): boolean {
  return 'ints' in value || 'bools' in value || 'strings' in value || 'versions' in value;
}

/** The AllocationError for selector #i of `owner` that does not compile. */
function compileFailure(owner: string, i: number, error: Error): AllocationError {
  return fromLibrary(error, 'DRA_REJECTED', (why) => ({ detail: `${owner}: selector #${i}: CEL compile error: ${why}` }));
}

/** Compiled selectors, one entry per expression (compile errors are kept and reported where used). */
export class Selectors {
  private readonly compiled = new Map<string, CompiledSelector | Error>();

  /** `cache`: a caller's SelectorCache, to compile each expression once across calls (a scheduler). */
  constructor(
    private readonly features: ResolvedFeatures,
    private readonly cache?: SelectorCache,
  ) {}

  /**
   * Whether every selector accepts the device. `owner` frames errors the way upstream does:
   * `class NAME` or `claim NAME`.
   */
  matchAll(owner: string, expressions: readonly string[], device: () => CelDevice | PreparedDevice, deviceId: string): boolean {
    for (let i = 0; i < expressions.length; i++) {
      const selector = this.get(expressions[i]!);
      if (selector instanceof Error) throw compileFailure(owner, i, selector);
      let matches: boolean;
      try {
        matches = selector.evaluate(device());
      } catch (error) {
        throw fromLibrary(error, 'DRA_REJECTED', (why) => ({ detail: `${owner}: selector #${i} on device ${deviceId}: CEL runtime error: ${why}` }));
      }
      if (!matches) return false;
    }
    return true;
  }

  /** Compiles every expression (absent ones skipped), throwing the first that does not compile as matchAll would. */
  compileAll(owner: string, expressions: ReadonlyArray<string | undefined>): void {
    expressions.forEach((expression, i) => {
      const selector = expression === undefined ? undefined : this.get(expression);
      if (selector instanceof Error) throw compileFailure(owner, i, selector);
    });
  }

  private get(expression: string): CompiledSelector | Error {
    let entry = this.compiled.get(expression);
    if (entry === undefined) {
      try {
        const celFeatures = { consumableCapacity: this.features.consumableCapacity, listTypeAttributes: this.features.listTypeAttributes };
        entry = this.cache !== undefined ? this.cache.get(expression, celFeatures) : compileSelector(expression, celFeatures);
      } catch (error) {
        entry = error instanceof Error ? error : new Error(String(error));
      }
      this.compiled.set(expression, entry);
    }
    return entry;
  }
}
