// What a consumer sees at run time, installed without the optional peer dependencies: strict
// inputs, lazy optional packages with an error naming them, a shared compiled core, cancellation.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AllocationError, createEngine, openEngine } from 'gpualloc';
import { readClusterDump, readDocuments } from 'gpualloc/dra';
import { simulateFleetAsync } from 'gpualloc/fleet';
import { discoverDevices } from 'gpualloc/nvml';
import { multiNodePlanner, openPlacementEngine } from 'gpualloc/placement';
import { PostgresStore } from 'gpualloc/store';

const G = 2 ** 30;
const gpus = [
  { index: 0, memoryTotal: 80 * G },
  { index: 1, memoryTotal: 80 * G },
];
const checks = [];
const check = async (name, fn) => {
  await fn();
  checks.push(name);
};

await check('the optional peer dependencies are not installed', () => {
  for (const name of ['pg', 'koffi', 'yaml', 'smol-toml']) assert.equal(existsSync(`node_modules/${name}`), false, `${name} was installed`);
});

await check('a misspelt key is an error naming the field and the key meant', async () => {
  const engine = await openPlacementEngine();
  assert.throws(
    () => engine.planPlacement({ gpus, memory: G, alowEviction: true }),
    (e) => e instanceof AllocationError && e.code === 'INVALID_ARGUMENT' && /alowEviction: unknown field \(did you mean allowEviction\?/.test(e.message),
  );
  await assert.rejects(openEngine({ bakend: 'ts' }), /options\.bakend: unknown field \(did you mean backend\?/);
});

await check('a compiled WebAssembly.Module is taken as it is', async () => {
  const require = createRequire(import.meta.url);
  const wasmPath = require.resolve('gpualloc/package.json').replace(/package\.json$/, 'dist/build/release.wasm');
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const a = await openEngine({ wasm: module });
  const b = await openPlacementEngine({ wasm: module });
  assert.deepEqual(a.planPlacement({ gpus, memory: 100 * G }), b.planPlacement({ gpus, memory: 100 * G }));
});

await check('a placement-only engine plans across nodes with multiNodePlanner, as openEngine does; without it, says why not', async () => {
  const nodes = ['a', 'b'].map((id) => ({ id, gpus }));
  const request = { memory: 240 * G };
  const full = (await openEngine()).createClusterState({ nodes }).plan(request);
  assert.ok(full.options.length > 0 && full.options[0].parts?.length === 2, 'openEngine plans 240 GiB across the two nodes');
  assert.deepEqual((await openPlacementEngine({ multiNode: multiNodePlanner })).createClusterState({ nodes }).plan(request), full);
  const oneNode = (await openPlacementEngine()).createClusterState({ nodes });
  const plan = oneNode.plan(request);
  assert.equal(plan.options.length, 0);
  assert.equal(plan.reason?.code, 'NO_VIABLE_OPTION');
  assert.match(plan.reason.message, /plans on one node at a time \(openPlacementEngine\(\{ multiNode: multiNodePlanner \}\)/);
  assert.throws(
    () => oneNode.plan({ ...request, maxNodes: 2 }),
    (e) => e instanceof AllocationError && e.code === 'INVALID_ARGUMENT' && e.field === 'maxNodes',
  );
});

await check('PostgresStore without pg says to install pg', async () => {
  await assert.rejects(PostgresStore.open('postgres://127.0.0.1:1/gpualloc'), (e) => e instanceof AllocationError && e.code === 'MISSING_DEPENDENCY' && /npm install pg/.test(e.message));
});

await check('a YAML cluster dump without yaml says to install yaml; a JSON dump needs nothing more', async () => {
  await assert.rejects(readDocuments('kind: Node\nmetadata: {name: n}\n', 'dump.yaml'), (e) => e instanceof AllocationError && e.code === 'MISSING_DEPENDENCY' && /npm install yaml/.test(e.message));
  const dump = readClusterDump(await readDocuments('{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"}}', 'dump.json'), 'dump.json');
  assert.equal(dump.nodes.length, 1);
});

await check('the deprecated names still answer (createEngine, PostgresStore.connect)', async () => {
  assert.equal((await createEngine({ backend: 'ts' })).backend, 'ts');
  assert.equal(typeof PostgresStore.connect, 'function');
});

await check('NVML discovery without koffi says to install koffi', async () => {
  await assert.rejects(discoverDevices(), /npm install koffi/);
});

await check('the async simulation stops with an AbortError', async () => {
  const engine = await openPlacementEngine();
  const nodes = Array.from({ length: 300 }, (_, i) => ({ id: `n${i}`, cpu: 64000, memoryMiB: 262144, gpus: 8, model: 'V100' }));
  const pods = Array.from({ length: 3000 }, (_, i) => ({ id: `p${i}`, cpu: 4000, memoryMiB: 8192, gpus: 1, milli: [250, 500, 1000][i % 3] }));
  const controller = new AbortController();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const run = simulateFleetAsync(engine, { nodes, pods, policy: 'fgd' }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 5);
  await assert.rejects(run, (e) => e.name === 'AbortError');
  clearInterval(timer);
  assert.ok(ticks > 0, 'a timer fired while the simulation ran');
});

await check('require() of the package works (Node >= 20.19)', () => {
  const require = createRequire(import.meta.url);
  assert.equal(typeof require('gpualloc').openEngine, 'function');
  assert.equal(typeof require('gpualloc/placement').openPlacementEngine, 'function');
});

process.stdout.write(JSON.stringify({ checks }) + '\n');
