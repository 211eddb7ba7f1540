/**
 * CEL device selectors for Kubernetes DRA, with upstream's environment
 * (k8s.io/dynamic-resource-allocation/cel): compile an expression once, evaluate it per device.
 * Parsing, type checking and evaluation are done by @marcbachmann/cel-js; this module declares the
 * environment, converts devices into CEL values and words errors as upstream does.
 * Reference: docs/api/dra-cel.md.
 */
import type { ParseResult } from '@marcbachmann/cel-js';
import { checkCost, DEFAULT_COST_LIMIT } from './cost.js';
import { type CelAttributeValue, type CelDevice, type CelFeatures, DeviceValueError, environmentFor, featureKey, PreparedDevice, prepare } from './environment.js';
import { compileMessage, runtimeMessage, runtimeTypeName } from './messages.js';
import { pointMatchesAtRe2 } from './re2.js';
import { COST_LIMIT_EXCEEDED, CostTracker, trackCost } from './runtime-cost.js';

export type { CelAttributeValue, CelDevice, CelFeatures };
export { COST_LIMIT_EXCEEDED, DEFAULT_COST_LIMIT, PreparedDevice };

/**
 * Converts a device into its CEL value once, for evaluating many selectors compiled with the same
 * features (`selector.evaluate(prepared)`); evaluating a CelDevice converts it on every call. A
 * device upstream cannot convert (an unsupported attribute value) fails each evaluation.
 */
export function prepareDevice(device: CelDevice, features: CelFeatures = {}): PreparedDevice {
  return prepare(device, features);
}

/** An expression that does not compile: a syntax error, an undeclared reference, a non-bool result, too costly. */
export class CelCompileError extends Error {
  /** The expression as given. */
  readonly expression: string;
  constructor(expression: string, message: string) {
    super(message);
    this.name = 'CelCompileError';
    this.expression = expression;
  }
}

/** An evaluation that fails for one device: a missing key, a failing function, an unusable attribute. */
export class CelRuntimeError extends Error {
  /** The expression being evaluated. */
  readonly expression: string;
  constructor(expression: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CelRuntimeError';
    this.expression = expression;
  }
}

/** A compiled selector: type-checked once, evaluated per device. */
export interface CompiledSelector {
  /** The expression as given. */
  readonly expression: string;
  /**
   * Whether the device matches; throws CelRuntimeError where upstream's evaluation fails. A
   * PreparedDevice must come from prepareDevice with the same features.
   */
  evaluate(device: CelDevice | PreparedDevice): boolean;
  /** The cost of the last evaluation, in cel-go's units (one per evaluated step, a tenth per element of values built). */
  readonly lastCost: number;
}

/** Options of compileSelector beyond the feature gates (upstream's dracel.Options). */
export interface CompileOptions {
  /**
   * The most one evaluation may cost, and the bound on the estimated worst case (upstream
   * CELSelectorExpressionMaxCost, 1,000,000). An evaluation past it fails with "operation
   * cancelled: actual cost limit exceeded".
   */
  costLimit?: number;
  /** Skips the compile-time estimate (upstream DisableCostEstimation); the runtime limit still holds. */
  disableCostEstimation?: boolean;
}

class Selector implements CompiledSelector {
  constructor(
    readonly expression: string,
    private readonly program: ParseResult,
    private readonly features: CelFeatures,
    private readonly cost: CostTracker,
  ) {}

  /** The cost of the last evaluation, in cel-go's units (see runtime-cost.ts). */
  get lastCost(): number {
    return this.cost.cost;
  }

  evaluate(device: CelDevice | PreparedDevice): boolean {
    const prepared = device instanceof PreparedDevice ? device : prepare(device, this.features);
    if (prepared.features !== featureKey(this.features)) {
      throw new Error(`a device prepared for features ${prepared.features} evaluated by a selector compiled for ${featureKey(this.features)}`);
    }
    if (prepared.error !== undefined) throw new CelRuntimeError(this.expression, prepared.error.message, { cause: prepared.error });
    let result: unknown;
    this.cost.reset();
    try {
      result = this.program({ device: prepared.value });
    } catch (error) {
      const message = this.cost.exceeded ? COST_LIMIT_EXCEEDED : error instanceof DeviceValueError ? error.message : runtimeMessage(error);
      throw new CelRuntimeError(this.expression, message, { cause: error });
    }
    // A quantifier keeps going past a failing step; a run past the limit fails however it ended.
    if (this.cost.exceeded) throw new CelRuntimeError(this.expression, COST_LIMIT_EXCEEDED);
    if (typeof result !== 'boolean') {
      throw new CelRuntimeError(this.expression, `CEL result of type ${runtimeTypeName(result)} could not be converted to bool`);
    }
    return result;
  }
}

/**
 * Compiles a DRA device selector for the given feature gates. Throws CelCompileError with
 * upstream's wording ("undeclared reference to 'x'", "must evaluate to bool or the unknown type",
 * "found no matching overload for '_>=_' applied to '(int, string)'"). Every evaluation of the
 * result is held to the runtime cost limit.
 */
export function compileSelector(expression: string, features: CelFeatures = {}, options: CompileOptions = {}): CompiledSelector {
  if (typeof expression !== 'string') throw new CelCompileError(String(expression), 'expression must be a string');
  const env = environmentFor(features);
  const declared = (name: string): boolean => env.getDefinitions().functions.some((f) => f.name === name);
  let program: ParseResult;
  try {
    program = env.parse(expression);
    // `s.matches(re)` with RE2 semantics, as cel-go has it (the library's own is JavaScript's backtracking RegExp).
    pointMatchesAtRe2(program.ast, env);
  } catch (error) {
    throw new CelCompileError(expression, compileMessage(expression, error, declared));
  }
  const checked = program.check();
  if (!checked.valid) throw new CelCompileError(expression, compileMessage(expression, checked.error, declared));
  // Upstream accepts bool and the unknown type (an attribute's value); the evaluator calls both dyn.
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    throw new CelCompileError(expression, `must evaluate to bool or the unknown type, not ${checked.type}`);
  }
  const limit = options.costLimit ?? DEFAULT_COST_LIMIT;
  if (options.disableCostEstimation !== true) {
    const costError = checkCost(program.ast, limit);
    if (costError !== undefined) throw new CelCompileError(expression, costError);
  }
  const tracker = new CostTracker(limit);
  trackCost(program.ast, tracker);
  return new Selector(expression, program, { ...features }, tracker);
}

/**
 * Compiled selectors by expression and feature gates: the caller's explicit handle for compiling
 * each expression once. Compile errors are kept too (the same expression fails the same way).
 * Holds at most `maxEntries` expressions; past that the oldest entry is dropped.
 */
export class SelectorCache {
  private readonly entries = new Map<string, CompiledSelector | CelCompileError>();
  private readonly maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** The compiled selector for `expression` under `features`; throws its CelCompileError. */
  get(expression: string, features: CelFeatures = {}): CompiledSelector {
    const key = `${featureKey(features)}:${expression}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      try {
        entry = compileSelector(expression, features);
      } catch (error) {
        if (!(error instanceof CelCompileError)) throw error;
        entry = error;
      }
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, entry);
    }
    if (entry instanceof CelCompileError) throw entry;
    return entry;
  }

  /** How many expressions are held. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
  }
}

export { MAX_COMPILED_PATTERNS, pointMatchesAtRe2, RegexSyntaxError, regexFind, regexFindAll, regexMatches, registerRe2 } from './re2.js';
