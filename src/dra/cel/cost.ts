/**
 * A worst-case cost estimate of a selector, checked at compile time so that no evaluation can run
 * away (nested comprehensions over long lists). Upstream limits a selector's cost to
 * CELSelectorExpressionMaxCost (1,000,000 units) with cel-go's cost tracking; this estimate walks the
 * parsed expression instead: one unit per node, and a comprehension (all, exists, exists_one, map,
 * filter) costs its range's size times its body. Sizes are bounded by literals and by the API's
 * limits on device data (no attribute list, map or string is longer than DEVICE_DATA_BOUND).
 */
import type { ASTNode } from '@marcbachmann/cel-js';

/** Upstream's resourceapi.CELSelectorExpressionMaxCost. */
export const DEFAULT_COST_LIMIT = 1_000_000;

/** No string, list or map read from a device is longer than this (API: 64 characters, 64 list items, 32 attributes). */
const DEVICE_DATA_BOUND = 64;

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

interface Estimate {
  /** Worst-case number of steps. */
  cost: number;
  /** Upper bound on the length of any string, list or map this node yields (or holds inside). */
  size: number;
}

type Scope = ReadonlyMap<string, number>;

const isNode = (x: unknown): x is ASTNode => typeof x === 'object' && x !== null && 'op' in x && 'args' in x;

function children(node: ASTNode): ASTNode[] {
  const out: ASTNode[] = [];
  const visit = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) x.forEach(visit);
  };
  visit(node.args);
  return out;
}

function estimate(node: ASTNode, scope: Scope): Estimate {
  switch (node.op) {
    case 'value': {
      const v = node.args;
      return { cost: 1, size: typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.length : 1 };
    }
    case 'id':
      return { cost: 1, size: scope.get(node.args) ?? (node.args === 'device' ? DEVICE_DATA_BOUND : 1) };
    case 'list':
    case 'map': {
      const parts = children(node).map((c) => estimate(c, scope));
      const count = node.op === 'list' ? node.args.length : node.args.length;
      return { cost: 1 + sum(parts.map((p) => p.cost)), size: Math.max(count, ...parts.map((p) => p.size)) };
    }
    case 'rcall': {
      const [method, receiver, args] = node.args;
      if (COMPREHENSIONS.has(method) && (args.length === 2 || args.length === 3) && args[0]!.op === 'id') {
        const range = estimate(receiver, scope);
        const inner = new Map(scope).set(args[0]!.args as string, range.size);
        const body = args.slice(1).map((a) => estimate(a, inner));
        return {
          cost: range.cost + range.size * (1 + sum(body.map((b) => b.cost))),
          size: Math.max(range.size, ...body.map((b) => b.size)),
        };
      }
      if (method === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && args.length === 3 && args[0]!.op === 'id') {
        const init = estimate(args[1]!, scope);
        const body = estimate(args[2]!, new Map(scope).set(args[0]!.args as string, init.size));
        return { cost: 1 + init.cost + body.cost, size: body.size };
      }
      const parts = [receiver, ...args].map((c) => estimate(c, scope));
      // replace can grow a string by the replacement's length per character.
      const size = method === 'replace' && parts.length >= 3 ? parts[0]!.size * (parts[2]!.size + 1) : sum(parts.map((p) => p.size)) + 1;
      return { cost: 1 + sum(parts.map((p) => p.cost)) + Math.max(...parts.map((p) => p.size)), size };
    }
    case '.':
    case '.?':
    case '[]':
    case '[?]': {
      const parts = children(node).map((c) => estimate(c, scope));
      return { cost: 1 + sum(parts.map((p) => p.cost)), size: parts[0]!.size };
    }
    case '?:': {
      const parts = children(node).map((c) => estimate(c, scope));
      return { cost: 1 + sum(parts.map((p) => p.cost)), size: Math.max(parts[1]!.size, parts[2]!.size) };
    }
    default: {
      // operators and global calls: the sum of the operands (string and list + adds lengths)
      const parts = children(node).map((c) => estimate(c, scope));
      const size = sum(parts.map((p) => p.size));
      return { cost: 1 + sum(parts.map((p) => p.cost)) + (node.op === 'in' ? size : 0), size: Math.max(size, 1) };
    }
  }
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/** The worst-case cost of an expression, in steps. */
export function estimateCost(ast: ASTNode): number {
  return estimate(ast, new Map()).cost;
}

/** undefined when the expression's worst case fits the limit, otherwise the error text. */
export function checkCost(ast: ASTNode, limit: number): string | undefined {
  const cost = estimateCost(ast);
  if (cost <= limit) return undefined;
  // The API server's words for a selector over the limit (validateCELSelector).
  return `too complex, exceeds cost limit (estimated worst-case cost ${cost.toExponential(2)}, limit ${limit})`;
}
