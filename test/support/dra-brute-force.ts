// Brute force over small DRA requests: every choice of alternative and every combination of devices
// for every request of every claim, each complete choice judged by the independent checker
// (dra-checker.ts). Gives the feasible answers (device sets per claim), or gives up past a limit.
import type { DeviceRequestBody, DraAllocateRequest } from '../../src/dra/index.js';
import type { Quantity } from '../../src/dra/testing.js';
import { buildWorld, checkUses, consumption, staticallyUsable, type Use, type World, type WorldDevice } from './dra-checker.js';

/** The answers found: each a canonical text of the devices per claim and request. */
export interface BruteForce {
  /** Distinct feasible answers (canonical keys), sorted. */
  answers: string[];
  /** False when the enumeration stopped at the limit (answers then incomplete). */
  complete: boolean;
  /** A selector failed (the request is an error case). */
  error?: string;
}

/** The canonical key of an allocation: per claim, sorted `request=device` pairs. */
export function answerKey(uses: readonly Pick<Use, 'claim' | 'request' | 'device'>[], claims: number): string {
  const parts: string[] = [];
  for (let c = 0; c < claims; c++)
    parts.push(
      uses
        .filter((u) => u.claim === c)
        .map((u) => `${u.request}=${u.device}`)
        .sort()
        .join(','),
    );
  return parts.join(' | ');
}

function* combinations(n: number, k: number, start = 0, prefix: number[] = []): Generator<number[]> {
  if (prefix.length === k) {
    yield [...prefix];
    return;
  }
  for (let i = start; i <= n - (k - prefix.length); i++) {
    prefix.push(i);
    yield* combinations(n, k, i + 1, prefix);
    prefix.pop();
  }
}

interface Choice {
  name: string;
  body: DeviceRequestBody & { adminAccess?: boolean };
  candidates: WorldDevice[];
  /** For allocationMode All: every device the request must get (in use or not). */
  all?: WorldDevice[];
}

/** Enumerates every allocation of `request` (at most `limit` leaves and partial steps). */
export function bruteForce(request: DraAllocateRequest, limit = 200_000): BruteForce {
  let world: World;
  const groups: Choice[][][] = [];
  try {
    world = buildWorld(request);
    for (const claim of world.claims) {
      const perRequest: Choice[][] = [];
      for (const r of claim.requests) {
        const bodies: Array<[string, DeviceRequestBody & { adminAccess?: boolean }]> =
          r.firstAvailable.length > 0 ? r.firstAvailable.map((s) => [`${r.name}/${s.name}`, s]) : r.exactly !== undefined ? [[r.name, r.exactly]] : [];
        perRequest.push(
          bodies.map(([name, body]) => {
            const candidates = world.devices.filter((d) => staticallyUsable(world, body, d) && (body.adminAccess === true || !world.allocated.has(d.id)));
            const all = (body.allocationMode ?? 'ExactCount') === 'All' ? world.devices.filter((d) => staticallyUsable(world, body, d)) : undefined;
            return { name, body, candidates, ...(all !== undefined ? { all } : {}) };
          }),
        );
      }
      groups.push(perRequest);
    }
  } catch (error) {
    return { answers: [], complete: true, error: error instanceof Error ? error.message : String(error) };
  }
  const answers = new Set<string>();
  const uses: Use[] = [];
  let steps = 0;
  let complete = true;
  const claims = world.claims.length;
  const exclusiveTaken = new Map<string, number>();

  const visit = (ci: number, ri: number): void => {
    if (!complete) return;
    if (++steps > limit) {
      complete = false;
      return;
    }
    if (ci >= claims) {
      if (checkUses(world, uses).length === 0) answers.add(answerKey(uses, claims));
      return;
    }
    if (ri >= groups[ci].length) return visit(ci + 1, 0);
    for (const choice of groups[ci][ri]) {
      const all = choice.all;
      if (all !== undefined && all.length === 0) continue;
      const picks = all !== undefined ? [all.map((_, i) => i)] : combinations(choice.candidates.length, choice.body.count ?? 1);
      const pool = all ?? choice.candidates;
      for (const combo of picks) {
        if (++steps > limit) {
          complete = false;
          return;
        }
        const devices = combo.map((i) => pool[i]);
        // Exclusive devices once per call (admin access may reuse them across claims).
        if (devices.some((d) => !d.shared && !choice.body.adminAccess && exclusiveTaken.has(d.id))) continue;
        for (const d of devices) {
          const use: Use = { claim: ci, request: choice.name, device: d.id, adminAccess: choice.body.adminAccess === true };
          if (d.shared) {
            use.shareID = `share-${uses.length}`;
            const consumed = consumption(choice.body, d.device) ?? {};
            const nonZero = Object.entries(consumed).filter(([, q]) => !q.isZero());
            if (nonZero.length > 0) use.consumed = Object.fromEntries(Object.entries(consumed)) as Record<string, Quantity>;
          }
          uses.push(use);
          if (!d.shared) exclusiveTaken.set(d.id, (exclusiveTaken.get(d.id) ?? 0) + 1);
        }
        visit(ci, ri + 1);
        for (const d of devices) {
          uses.pop();
          if (!d.shared) {
            const n = (exclusiveTaken.get(d.id) as number) - 1;
            if (n === 0) exclusiveTaken.delete(d.id);
            else exclusiveTaken.set(d.id, n);
          }
        }
        if (!complete) return;
      }
    }
  };
  try {
    visit(0, 0);
  } catch (error) {
    return { answers: [], complete: true, error: error instanceof Error ? error.message : String(error) };
  }
  return { answers: [...answers].sort(), complete };
}
