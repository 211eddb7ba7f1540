/**
 * The runtime cost limit of one evaluation, as cel-go's CostTracker applies `cel.CostLimit`
 * (interpreter/runtimecost.go): every evaluated step adds to the cost, and a step that takes it past
 * the limit stops the evaluation with "operation cancelled: actual cost limit exceeded". Upstream's
 * DRA compiler sets the limit to CELSelectorExpressionMaxCost (1,000,000) for every selector.
 *
 * Units follow cel-go's in spirit: one per evaluated node (a constant, a variable, a field or index,
 * an operator, a call, each comprehension step), plus a tenth of the length of every string, list
 * or map a step yields (cel-go charges traversals at 0.1 per element or character), so a program
 * that builds ever longer values pays for them. The counting is installed once per compiled
 * program: each node's evaluator is wrapped by one that charges the program's tracker.
 */

/** cel-go's message when the runtime cost limit is exceeded. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** cel-go's per-element and per-character cost of traversing a value. */
const TRAVERSAL_COST_FACTOR = 0.1;

/** Thrown inside an evaluation that went past its limit (the caller words it). */
export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
    this.name = 'CostLimitExceeded';
  }
}

/** The cost of the evaluation in progress of one compiled program. */
export class CostTracker {
  /** Cost so far of the current evaluation. */
  cost = 0;
  /** Whether the current evaluation went past the limit (the evaluator may have swallowed the error inside a quantifier). */
  exceeded = false;

  constructor(
    /** The most cost one evaluation may take. */
    readonly limit: number,
  ) {}

  /** Starts a new evaluation. */
  reset(): void {
    this.cost = 0;
    this.exceeded = false;
  }

  /** Adds `units`; throws CostLimitExceeded past the limit. */
  charge(units: number): void {
    this.cost += units;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

type Evaluate = (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown;

interface TrackedNode {
  op: string;
  args: unknown;
  readonly meta: { evaluate?: Evaluate; alternate?: unknown; macro?: { args?: unknown } };
  setMeta(key: string, value: unknown): unknown;
}

function isNode(value: unknown): value is TrackedNode {
  return value !== null && typeof value === 'object' && typeof (value as { op?: unknown }).op === 'string' && typeof (value as { setMeta?: unknown }).setMeta === 'function';
}

/** The traversal cost of a value a step yields: a tenth of its length (strings, bytes, lists, maps). */
function sizeCost(value: unknown): number {
  let size = 0;
  if (typeof value === 'string' || Array.isArray(value) || value instanceof Uint8Array) size = value.length;
  else if (value instanceof Map) size = value.size;
  return size > 10 ? Math.floor(size * TRAVERSAL_COST_FACTOR) : 0;
}

/**
 * Wraps the evaluator of every node of a checked expression (alternates and comprehension steps
 * included) so that each evaluation charges `tracker`. Call once, after type checking and before the
 * first evaluation. Returns how many nodes are counted.
 */
export function trackCost(ast: unknown, tracker: CostTracker): number {
  const seen = new Set<unknown>();
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (!isNode(value)) {
      // Comprehension arguments are a record of nodes.
      for (const key of Object.keys(value)) stack.push((value as Record<string, unknown>)[key]);
      continue;
    }
    const meta = value.meta;
    const inner = meta.evaluate;
    if (typeof inner === 'function') {
      value.setMeta('evaluate', function counted(this: unknown, ev: unknown, node: unknown, ctx: unknown): unknown {
        tracker.charge(1);
        const result = inner.call(this, ev, node, ctx);
        const extra = sizeCost(result);
        if (extra > 0) tracker.charge(extra);
        return result;
      });
    }
    stack.push(value.args, meta.alternate, meta.macro?.args);
  }
  return seen.size;
}
