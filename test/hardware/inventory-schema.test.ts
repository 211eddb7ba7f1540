// schema/inventory.v1.json and validateInventory agree: same fields, same bounds, same verdict on shape errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { INVENTORY_LIMITS, validateInventory } from '../../src/hardware/inventory.js';
import { getPreset, listPresets } from '../../src/hardware/presets.js';

type Schema = Record<string, unknown>;
const SCHEMA = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'schema', 'inventory.v1.json'), 'utf8')) as Schema;

/** A small evaluator for the JSON Schema keywords the inventory schema uses (no dependency needed). */
function schemaErrors(schema: Schema, value: unknown, path = ''): string[] {
  if (typeof schema.$ref === 'string') {
    const target = (SCHEMA.$defs as Record<string, Schema>)[schema.$ref.replace('#/$defs/', '')];
    const { $ref: _ref, ...rest } = schema;
    return [...schemaErrors(target, value, path), ...schemaErrors(rest, value, path)];
  }
  const errors: string[] = [];
  const t = schema.type;
  if (t === 'object' && (value === null || typeof value !== 'object' || Array.isArray(value))) return [`${path}: type`];
  if (t === 'array' && !Array.isArray(value)) return [`${path}: type`];
  if (t === 'string' && typeof value !== 'string') return [`${path}: type`];
  if (t === 'integer' && !Number.isInteger(value)) return [`${path}: type`];
  if (t === 'boolean' && typeof value !== 'boolean') return [`${path}: type`];
  if ('const' in schema && value !== schema.const) errors.push(`${path}: const`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: enum`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: maximum`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${path}: minLength`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${path}: maxLength`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) errors.push(`${path}: pattern`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(`${path}: maxItems`);
    if (schema.items !== undefined) value.forEach((v, i) => errors.push(...schemaErrors(schema.items as Schema, v, `${path}[${i}]`)));
  }
  if (t === 'object' && value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in record)) errors.push(`${path}.${key}: required`);
    for (const [key, v] of Object.entries(record)) {
      if (key in props) errors.push(...schemaErrors(props[key], v, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${key}: additional`);
    }
  }
  return errors;
}

const DGX1 = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'inventory-dgx1-volta.json'), 'utf8'));

it('accepts every preset and the discovered fixture, as the validator does', () => {
  const inventories = [DGX1, ...listPresets().map((p) => getPreset(p.name))];
  for (const inv of inventories) {
    expect(schemaErrors(SCHEMA, inv)).toEqual([]);
    expect(() => validateInventory(inv)).not.toThrow();
  }
});

it('rejects the same shape errors as the validator', () => {
  // biome-ignore lint/suspicious/noExplicitAny: each mutation reaches into a different shape of inventory
  const mutations: Array<(i: any) => void> = [
    (i) => (i.version = 2),
    (i) => delete i.gpus,
    (i) => (i.extra = 1),
    (i) => (i.gpus[0].memoryTotal = -1),
    (i) => (i.gpus[0].memoryTotal = INVENTORY_LIMITS.maxGpuMemory + 1),
    (i) => (i.gpus[0].memoryTotal = 0.5),
    (i) => delete i.gpus[0].memoryTotal,
    (i) => (i.gpus[0].pciBusId = '07:00.0'),
    (i) => (i.gpus[0].index = 64),
    (i) => (i.gpus[0].numaNode = INVENTORY_LIMITS.maxNumaNode + 1),
    (i) => (i.gpus[0].minorNumber = INVENTORY_LIMITS.maxMinorNumber + 1),
    (i) => (i.gpus[0].mig = [{ uuid: 'MIG-1', profile: '', memoryTotal: 1 }]),
    (i) => (i.gpus[0].processes = [{ pid: 2 ** 32, usedMemory: 0 }]),
    (i) => (i.gpus[0].lost = 1),
    (i) => (i.links[0].pcie = 'QPI'),
    (i) => (i.links[0].nvlink = 65),
    (i) => (i.links[0].c = 1),
    (i) => (i.memory = INVENTORY_LIMITS.maxHostMemory + 1),
    (i) => (i.host = ''),
    (i) => (i.cpus = [1]),
  ];
  mutations.forEach((mutate, n) => {
    const inv = structuredClone(DGX1);
    mutate(inv);
    expect(schemaErrors(SCHEMA, inv), `mutation ${n}`).not.toEqual([]);
    expect(() => validateInventory(inv), `mutation ${n}`).toThrow(expect.objectContaining({ code: 'INVALID_INVENTORY' }));
  });
});
