// The fleet's numbers come from one table (scripts/fleet-tables.mjs): the generated files match it,
// every registered policy is a policy with a score, and a policy number the kernels do not know is an
// error in both kernels rather than a silent packing score.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetTsKernels } from '../../src/baseline/fleet.js';
import type { FleetKernels } from '../../src/fleet/kernels.js';
import * as L from '../../src/fleet/layout.js';
import { POLICIES } from '../../src/fleet/policies/index.js';
import { POLICY_COUNT, POLICY_REGISTRY } from '../../src/fleet/policies/registry.js';
import { AllocationError } from '../../src/shared/errors.js';
import { compiledCore, WasmCore } from '../../src/wasm/core.js';
import { fleetWasmKernels } from '../../src/wasm/fleet.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the fleet tables', async () => {
  const backends: Array<[string, FleetKernels]> = [
    ['wasm', fleetWasmKernels(new WasmCore(await compiledCore()))],
    ['ts', fleetTsKernels()],
  ];

  it('the generated files are what the table makes (npm run generate leaves them as they are)', () => {
    expect(() => execFileSync(process.execPath, [join(ROOT, 'scripts', 'fleet-tables.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('every registered policy is a policy, in number order, with its own name and colour', () => {
    const rows = Object.values(POLICY_REGISTRY);
    expect(rows.map((r) => r.id)).toEqual([...Array(POLICY_COUNT).keys()]);
    expect(POLICIES.map((p) => [p.id, p.name, p.color])).toEqual(rows.map((r) => [r.id, r.name, r.color]));
    expect(new Set(POLICIES.map((p) => p.color)).size).toBe(POLICIES.length);
    for (const p of POLICIES) expect(p.color).toMatch(/^#[0-9a-f]{6}$/);
  });

  // One node of two whole GPUs, the scan (no index): every registered policy picks it; any other number throws.
  function pickWith(kernels: FleetKernels, policy: number): number {
    const { ints, floats, header } = L.fleetLayout(1, 2, 0, 0);
    const memory = kernels.fleetAlloc(ints, floats);
    try {
      const s = memory.ints();
      s.set(header);
      const base = header[L.H_NODE_AT];
      s[base + L.N_CPU] = 8000;
      s[base + L.N_MEM] = 1024;
      s[base + L.N_MODEL] = 1;
      s[base + L.N_GPUS] = 2;
      const gAt = base + L.N_TAGS + 2 + 1;
      s[gAt] = 1000;
      s[gAt + 1] = 1000;
      memory.floats().set(L.fgdThresholds(), header[L.H_F_THR]);
      kernels.fleetInit(memory);
      return kernels.fleetPick(memory, policy, -1, -1, 1000, 1, 1, 500, 1, 0.5, 0.5);
    } finally {
      memory.free();
    }
  }

  for (const [name, k] of backends) {
    it(`${name}: every registered policy number scores the node; an unknown number is an error, not a packing score`, () => {
      for (let id = 0; id < POLICY_COUNT; id++) expect(pickWith(k, id)).toBe(0);
      for (const bad of [POLICY_COUNT, POLICY_COUNT + 5, -1]) {
        let error: unknown;
        try {
          pickWith(k, bad);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(AllocationError);
        expect((error as AllocationError).code).toBe('INTERNAL');
      }
    });
  }
});
