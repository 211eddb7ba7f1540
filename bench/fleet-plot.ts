// Draws docs/fleet-allocation.svg: unallocated GPU % against arrived load (75..120 %) on the openb
// default trace, median over seeds 42..51, one line per policy (the paper's Fig. 9(a) layout), and
// prints the table at 100 % arrived (mean ± sd). Plain SVG, no dependencies.
//   npx tsc -p tsconfig.json && node dist/bench/fleet-plot.js
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEngine } from '../src/engine.js';
import { POLICIES } from '../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { openbRoot } from './openb-root.js';

const root = openbRoot(import.meta.url);
const trace = process.argv[2] ?? 'default';
const nodes = parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8'));
const pods = parsePodCsv('pods', readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8'));
const engine = await openEngine();
const seeds = Array.from({ length: 10 }, (_, i) => 42 + i);
const X0 = 75;
const X1 = 120;
const curves = new Map<string, number[]>();
/** A run's allocation at x % arrived load (a bin no arrival reached has none). */
const allocationAt = (curve: Record<string, number>, x: number): number => {
  const v = curve[x];
  if (v === undefined) throw new Error(`${trace}: no allocation at ${x} % arrived load`);
  return v;
};
for (const p of POLICIES) {
  const runs = seeds.map((seed) => engine.simulateFleet({ nodes, pods, policy: p.name, seed }).allocation);
  const at100 = runs.map((r) => allocationAt(r, 100));
  const mean = at100.reduce((a, b) => a + b, 0) / at100.length;
  const sd = Math.sqrt(at100.reduce((a, b) => a + (b - mean) ** 2, 0) / (at100.length - 1));
  process.stdout.write(`${trace} ${p.name.padEnd(11)} ${mean.toFixed(2)} (${sd.toFixed(2)}) [${Math.min(...at100).toFixed(2)}-${Math.max(...at100).toFixed(2)}]\n`);
  const median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return (s[4]! + s[5]!) / 2; // ten seeds
  };
  curves.set(
    p.name,
    Array.from({ length: X1 - X0 + 1 }, (_, k) => 100 - median(runs.map((r) => allocationAt(r, X0 + k)))),
  );
}
if (trace === 'default') {
  const W = 640;
  const H = 400;
  const L = 60;
  const B = 50;
  const Y1 = 28;
  const px = (x: number) => L + ((x - X0) / (X1 - X0)) * (W - L - 150);
  const py = (y: number) => H - B - (y / Y1) * (H - B - 20);
  const colors = ['#999999', '#8c564b', '#9467bd', '#2ca02c', '#ff7f0e', '#1f77b4', '#d62728'];
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">\n<rect width="${W}" height="${H}" fill="white"/>\n`;
  for (let y = 0; y <= Y1; y += 4) svg += `<line x1="${L}" x2="${px(X1)}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/><text x="${L - 8}" y="${py(y) + 4}" text-anchor="end">${y}</text>\n`;
  for (let x = X0; x <= X1; x += 5) svg += `<text x="${px(x)}" y="${H - B + 18}" text-anchor="middle">${x}</text>\n`;
  svg += `<text x="${(L + px(X1)) / 2}" y="${H - 12}" text-anchor="middle">arrived workload (% of GPU capacity)</text>\n`;
  svg += `<text transform="translate(16 ${(H - B) / 2}) rotate(-90)" text-anchor="middle">unallocated GPU (%)</text>\n`;
  [...curves].forEach(([name, ys], i) => {
    const d = ys.map((y, k) => `${k === 0 ? 'M' : 'L'}${px(X0 + k).toFixed(1)},${py(Math.min(y, Y1)).toFixed(1)}`).join(' ');
    svg += `<path d="${d}" fill="none" stroke="${colors[i % colors.length]}" stroke-width="2"/>\n`;
    svg += `<line x1="${px(X1) + 15}" x2="${px(X1) + 35}" y1="${30 + i * 18}" y2="${30 + i * 18}" stroke="${colors[i % colors.length]}" stroke-width="2"/><text x="${px(X1) + 40}" y="${34 + i * 18}">${name}</text>\n`;
  });
  svg += `<text x="${L}" y="14">openb default trace, median over seeds 42..51 (gpualloc simulate)</text>\n</svg>\n`;
  writeFileSync(join(root, 'docs', 'fleet-allocation.svg'), svg);
  process.stderr.write('wrote docs/fleet-allocation.svg\n');
}
