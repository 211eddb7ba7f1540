// validateInventory: errors name the path of the bad field; duplicates, unknown indices, asymmetric links, absurd sizes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Inventory, inventoryTopology, validateInventory } from '../../src/hardware/inventory.js';
import { AllocationError } from '../../src/shared/errors.js';

const DGX1 = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'inventory-dgx1-volta.json'), 'utf8')) as Inventory;

function base(): Record<string, unknown> & { gpus: Array<Record<string, unknown>>; links: Array<Record<string, unknown>> } {
  return structuredClone(DGX1) as never;
}

function rejection(value: unknown, origin?: string): AllocationError {
  try {
    validateInventory(value, origin);
  } catch (error) {
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).code).toBe('INVALID_INVENTORY');
    return error as AllocationError;
  }
  throw new Error('expected validateInventory to throw');
}

describe('validateInventory', () => {
  it('accepts a discovered inventory and returns an equal copy that does not alias it', () => {
    const input = base();
    const out = validateInventory(input, 'dgx1.json');
    expect(out).toEqual(DGX1);
    expect(out).not.toBe(input);
    expect(out.gpus[0]).not.toBe(input.gpus[0]);
    expect(out.links).not.toBe(input.links);
  });

  it('names the path of a negative memoryTotal', () => {
    const inv = base();
    inv.gpus[3].memoryTotal = -1;
    const e = rejection(inv, 'dgx1.json');
    expect(e.message).toBe('dgx1.json: gpus[3].memoryTotal: expected a non-negative integer, got -1');
    expect(e.field).toBe('gpus[3].memoryTotal');
  });

  it.each([
    ['version missing', (i: ReturnType<typeof base>) => delete i.version, 'version'],
    ['version 2', (i: ReturnType<typeof base>) => void (i.version = 2), 'version'],
    ['unknown top-level field', (i: ReturnType<typeof base>) => void (i.gpu = []), 'gpu'],
    ['unknown GPU field', (i: ReturnType<typeof base>) => void (i.gpus[1].memorytotal = 1), 'gpus[1].memorytotal'],
    ['gpus not an array', (i: ReturnType<typeof base>) => void (i.gpus = {} as never), 'gpus'],
    ['string memory', (i: ReturnType<typeof base>) => void (i.gpus[3].memoryTotal = '80GB'), 'gpus[3].memoryTotal'],
    ['fractional memory', (i: ReturnType<typeof base>) => void (i.gpus[2].memoryUsed = 1.5), 'gpus[2].memoryUsed'],
    ['used above total', (i: ReturnType<typeof base>) => void (i.gpus[2].memoryUsed = 2 ** 40), 'gpus[2].memoryUsed'],
    ['absurd GPU memory (1 PiB)', (i: ReturnType<typeof base>) => void (i.gpus[0].memoryTotal = 2 ** 50), 'gpus[0].memoryTotal'],
    ['absurd host memory', (i: ReturnType<typeof base>) => void (i.memory = 2 ** 52), 'memory'],
    ['index past 63', (i: ReturnType<typeof base>) => void (i.gpus[7].index = 64), 'gpus[7].index'],
    ['duplicate index', (i: ReturnType<typeof base>) => void (i.gpus[5].index = 2), 'gpus[5].index'],
    ['duplicate UUID', (i: ReturnType<typeof base>) => void (i.gpus[6].uuid = i.gpus[1].uuid), 'gpus[6].uuid'],
    ['duplicate id', (i: ReturnType<typeof base>) => void (i.gpus[6].id = 'cuda1'), 'gpus[6].id'],
    ['same bus ID in both forms', (i: ReturnType<typeof base>) => void (i.gpus[4].pciBusId = '00000000:06:00.0'), 'gpus[4].pciBusId'],
    ['malformed bus ID', (i: ReturnType<typeof base>) => void (i.gpus[4].pciBusId = '6:00.0'), 'gpus[4].pciBusId'],
    ['MIG UUID equal to a GPU UUID', (i: ReturnType<typeof base>) => void (i.gpus[0].mig = [{ uuid: i.gpus[3].uuid, profile: '1g.5gb', memoryTotal: 1 }]), 'gpus[3].uuid'],
    ['MIG larger than its GPU', (i: ReturnType<typeof base>) => void (i.gpus[0].mig = [{ uuid: 'MIG-x', profile: '1g.5gb', memoryTotal: 2 ** 40 }]), 'gpus[0].mig[0].memoryTotal'],
    ['MIG without profile', (i: ReturnType<typeof base>) => void (i.gpus[0].mig = [{ uuid: 'MIG-x', memoryTotal: 1 }]), 'gpus[0].mig[0].profile'],
    ['negative pid', (i: ReturnType<typeof base>) => void (i.gpus[0].processes = [{ pid: -4, usedMemory: 0 }]), 'gpus[0].processes[0].pid'],
    ['lost not a boolean', (i: ReturnType<typeof base>) => void (i.gpus[0].lost = 'yes'), 'gpus[0].lost'],
    ['NUMA node absurd', (i: ReturnType<typeof base>) => void (i.gpus[0].numaNode = 1e6), 'gpus[0].numaNode'],
    ['link to an unknown GPU', (i: ReturnType<typeof base>) => void i.links.push({ a: 3, b: 12, pcie: 'SYS' }), 'links[28].b'],
    ['self link', (i: ReturnType<typeof base>) => void (i.links[0] = { a: 2, b: 2 }), 'links[0]'],
    ['unknown PCIe level', (i: ReturnType<typeof base>) => void (i.links[4].pcie = 'QPI'), 'links[4].pcie'],
    ['too many NVLinks', (i: ReturnType<typeof base>) => void (i.links[4].nvlink = 65), 'links[4].nvlink'],
    ['asymmetric duplicate', (i: ReturnType<typeof base>) => void i.links.push({ a: 1, b: 0, pcie: 'PIX', nvlink: 2 }), 'links[28]'],
    ['cpus entry empty', (i: ReturnType<typeof base>) => void (i.cpus = ['0', '']), 'cpus[1]'],
    ['host not a string', (i: ReturnType<typeof base>) => void (i.host = 7), 'host'],
  ])('rejects %s, naming %s', (_name, mutate, field) => {
    const inv = base();
    mutate(inv);
    const e = rejection(inv);
    expect(e.field).toBe(field);
    expect(e.message.startsWith(`inventory: ${field}`)).toBe(true);
  });

  it('rejects non-objects', () => {
    for (const v of [null, 3, 'x', [], undefined]) expect(rejection(v).message).toContain('expected an object');
  });

  it('merges a pair listed in both directions when they agree, and normalises order', () => {
    const inv = base();
    inv.links = [
      { b: 0, a: 1, pcie: 'PIX', nvlink: 1 },
      { a: 0, b: 1, pcie: 'PIX', nvlink: 1 },
      { a: 3, b: 2, pcie: 'PIX' },
    ];
    inv.gpus.reverse();
    const out = validateInventory(inv);
    expect(out.links).toEqual([
      { a: 0, b: 1, pcie: 'PIX', nvlink: 1 },
      { a: 2, b: 3, pcie: 'PIX' },
    ]);
    expect(out.gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(inv.gpus[0].index).toBe(7);
  });

  it('accepts a minimal inventory and sparse indices; the topology spans up to the highest index', () => {
    const out = validateInventory({
      version: 1,
      gpus: [
        { index: 0, memoryTotal: 0 },
        { index: 3, memoryTotal: 1 },
      ],
      links: [{ a: 3, b: 0, pcie: 'SYS' }],
    });
    expect(out).toEqual({
      version: 1,
      gpus: [
        { index: 0, memoryTotal: 0 },
        { index: 3, memoryTotal: 1 },
      ],
      links: [{ a: 0, b: 3, pcie: 'SYS' }],
    });
    expect(inventoryTopology(out)).toEqual({ gpus: 4, links: [{ a: 0, b: 3, pcie: 'SYS' }] });
    expect(validateInventory({ version: 1, gpus: [] })).toEqual({ version: 1, gpus: [], links: [] });
  });

  it('treats __proto__ as an unknown field, never as a prototype', () => {
    const inv = JSON.parse('{"version":1,"gpus":[],"__proto__":{"polluted":true}}');
    expect(rejection(inv).field).toBe('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
