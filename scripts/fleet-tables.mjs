// One table for the numbers both fleet kernels share: the flat layout's fields and the policy
// registry (number, name, colour). It writes the TypeScript side (src/fleet/layout-fields.ts,
// src/fleet/policies/registry.ts) and the AssemblyScript side (assembly/fleet-fields.ts), so a
// number is written once, here, and never copied by hand.
//   node scripts/fleet-tables.mjs          writes the three files
//   node scripts/fleet-tables.mjs --check  exits 1 when a file differs from what this table makes
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The fleet policies, in kernel-number order (a policy's number is its row). `constant` names the
 * number in both kernels, `name` is the CLI's and the API's, `color` is the line the pages draw.
 * Adding a policy: a row here, then `npm run generate`.
 */
const POLICIES = [
  { constant: 'P_RANDOM', name: 'random', color: '#999999' },
  { constant: 'P_DOTPROD', name: 'dotprod', color: '#8c564b' },
  { constant: 'P_CLUSTERING', name: 'clustering', color: '#9467bd' },
  { constant: 'P_PACKING', name: 'packing', color: '#2ca02c' },
  { constant: 'P_BESTFIT', name: 'bestfit', color: '#ff7f0e' },
  { constant: 'P_FGD', name: 'fgd', color: '#1f77b4' },
  { constant: 'P_OURS', name: 'fgd-close', color: '#d62728' },
  { constant: 'P_LP', name: 'fgd-lp', color: '#17becf' },
  { constant: 'P_NODE', name: 'fgd-node', color: '#e377c2' },
];

/** The layout's fields: [name, value, doc] (doc may be empty); `f64` marks a float constant. */
const LAYOUT = [
  ['Header fields of `s`.'],
  ['H_NODES', 0],
  ['H_MAXG', 1],
  ['H_STRIDE', 2],
  ['H_TYPICAL', 3],
  ['H_CLASSES', 4],
  ['H_NODE_AT', 5],
  ['H_TYP_AT', 6],
  ['H_OUT_AT', 7],
  ['H_CACHE_AT', 8, "Offset in `s` of the score cache's GPU choices (classes × N, class c's node n at c·N + n: STALE, ABSENT, -1 or a GPU)."],
  ['H_SCRATCH_AT', 9],
  [
    'H_F_WEIGHT',
    10,
    "f64 offsets: weights, thresholds, scores (the scan: classes × N, class c's node n at c·N + n; the index: the leaves, classes × 2N, class c's leaf i at c·2N + 2i); fragmentation starts at 0.",
  ],
  ['H_F_THR', 11],
  ['H_F_CACHE', 12],
  ['H_DEAD', 13, "The default policy's dead-hole size in milli (see policies/ours.ts; the kernels read it through the clean-remainder table)."],
  ['H_CLEAN_AT', 14, "Offset in `s` of the default policy's clean-remainder table (CLEAN_SIZE ints; see policies/ours.ts cleanRemainders)."],
  ['H_INDEX', 15, "1: picks through the pod index where the policy and the pod's shape allow it; 0: the scan."],
  ['H_TREES', 16, 'Number of trees.'],
  ['H_TREE_AT', 17, "Offset in `s` of the tree table (trees × TREE_FIELDS: class, memory floor in MiB, built 0/1; a class's trees in a row, by floor)."],
  ['H_F_TREE', 18, "Offset in `f` of the trees' inner entries (trees × 2I f64, I = H_INNER: tree k's entry t at 2(k·I + t))."],
  ['H_STALE_AT', 19, 'Offset in `s` of the per-class stale lists (classes × N).'],
  ['H_CLASS_AT', 20, 'Offset in `s` of the per-class state (classes × 2: leaves built 0/1, stale list length).'],
  ['H_LEAF_AT', 21, "Offset in `s` of the leaf order: the node at each leaf (N), then each node's leaf (N), then the node of each rank (N)."],
  ['H_MODELS_AT', 22, 'Offset in `s` of the per-position OR of the model bits of the leaves below it (I + 3I + 1 positions: inner entries, then leaves; the same for every tree).'],
  ['H_STACK_AT', 23, "Offset in `s` of the descent's stack (STACK entries)."],
  [
    'H_F_FRAG',
    24,
    "Offset in `f` of Σ over nodes of Frag(node), kept up to date on every refresh (the node's change added) and summed afresh, in node order, every N refreshes: O(1) a refresh, and the rounding of the additions never builds up over more than N of them.",
  ],
  ['H_FRAG_SINCE', 25, 'Refreshes since the fragmentation sum was last summed afresh (the kernels count).'],
  ['H_INNER', 26, 'Inner entries of each tree: ⌈(N − 1)/3⌉.'],
  [
    'H_F_PLAN',
    27,
    "Offset in `f` of the fgd-lp policy's plan tables (see policies/share-values.ts planTables): PLAN_SIZE values (the worth of the best fill of r milli, r = 0..1000), then PLAN_SIZE prices (the worth of a share of m milli).",
  ],
  [
    'H_F_VALUE',
    28,
    "Offset in `f` of the fgd-node policy's node values (see policies/fgd-node.ts): each node's value V of its state now (N), then per value entry (node type × λ, H_VALUE_ENTRIES of them) the price per core, then the price per GiB, then VALUE_SIZE values (the best fill of r milli free on one GPU at λ, r = 0..1000).",
  ],
  ['H_LAMBDAS', 29, 'The λ of each node type in the node values (0: no node values; every node type has as many).'],
  ['H_VALUE_ENTRIES', 30, 'Value entries: node types × H_LAMBDAS (entry type·H_LAMBDAS + l).'],
  ['H_IDLE8', 31, 'Nodes of 8 GPUs wholly free (the kernels count, on every refresh).'],
  [
    'H_RESERVE',
    32,
    "fgd-node's reserve (-1: none): while at most this many 8-GPU nodes are wholly free, a wholly free node of 4 GPUs or more is held for pods of 4 GPUs or more (every held node's scores go stale when the count crosses it).",
  ],
  ['H_LOOK_AT', 33, 'Offset in `s` of the lookahead block (LK_FIELDS, then its tables; see src/fleet/lookahead.ts), 0 when the policy has no lookahead.'],
  ['H_F_LOOK', 34, "Offset in `f` of the lookahead's floats: δ, then the candidates' scores."],
  ['H_VALUE_NONNEG', 35, "1 when every entry of fgd-node's value tables is 0 or more (a λ's sum over the GPUs then stops once it reaches the least so far), else 0."],
  ['HEADER', 36, 'Ints in the header.'],
  ['TREE_FIELDS', 3, 'Fields of a tree in the tree table.'],
  ['STACK', 64, "Entries of the descent's stack: a descent keeps at most three pending siblings per level (nine levels hold 4^9 > LIMITS.maxFleetNodes leaves)."],
  ['RANK_UNIT', 2147483648, "2^31: the packed rank's unit in a tree entry (memory left, in MiB, is below it).", 'f64'],
  ['STALE', -2, 'Score-cache GPU choice of a node whose score for the class is stale (not computed since it changed).'],
  ['ABSENT', -3, "Score-cache GPU choice of a node that does not fit the class's CPU and GPUs (no score; its leaf is empty)."],
  ['PLAN_SIZE', 1001, 'Entries of each plan table: one per milli 0..1000.'],
  ['VALUE_SIZE', 1001, 'Entries of each node-value table: one per milli 0..1000.'],
  ['CLEAN_SIZE', 1000, 'Entries of the clean-remainder table: one per free milli 0..999 that a share can leave on its GPU.'],
  ["Node fields (a node's record is `stride` ints: these, then maxGpus+1 tag counts, then the GPUs' free milli)."],
  ['N_CPU', 0],
  ['N_MEM', 1],
  ['N_MODEL', 2],
  ['N_GPUS', 3],
  ['N_RANK', 4],
  ['N_FREE', 5],
  ['N_FULL', 6],
  ['N_MAXFREE', 7],
  ['N_WANTED', 8, "1 when some model-constrained typical pod accepts the node's GPU model (the default policy's rule for whole GPUs)."],
  ['N_TYPE', 9, "The node's type in fgd-node's node values (0 without them)."],
  ['N_TAGS', 10],
  ['T_FIELDS', 4, 'Typical pod fields (4 ints each: cpu milli, GPU milli per GPU, GPU count, model mask).'],
  ['THRESHOLDS', 99, 'Number of FGD score thresholds (scores 1..99).'],
  ["Lookahead block fields (at H_LOOK_AT; src/fleet/lookahead.ts writes them, the kernels' fleet-rollout files read them)."],
  ['LK_CANDIDATES', 0, 'n: the best n candidates the pick keeps (2 or more).'],
  ['LK_CONTINUATIONS', 1, 'M: continuations rolled out per candidate.'],
  ['LK_DEPTH', 2, 'K: pods per continuation.'],
  ['LK_SCOPE', 3, 'Which pods are looked ahead on: 0 shares, 1 every GPU pod, 2 every pod.'],
  ['LK_SEED', 4, "The decision's seed (the scheduler writes it before each pick)."],
  ['LK_SHAPES', 5, "S: the workload's pod shapes in the sampling table."],
  ['LK_ROWS', 6, 'Rows of cumulative counts: row 0 for nodes without shareable GPUs, row b + 1 for model bit b.'],
  ['LK_LOOKUPS', 7, 'Decisions looked ahead on so far (the kernels count).'],
  ['LK_SHAPE_AT', 8, 'Offset in `s` of the shapes (S × SHAPE_FIELDS).'],
  ['LK_CUM_AT', 9, "Offset in `s` of the cumulative counts (rows × S: row r's entry i counts the workload's pods of shapes 0..i that nodes of row r can draw)."],
  ['LK_CAND_AT', 10, 'Offset in `s` of the candidates (n × CAND_FIELDS: node, GPU, rank), best first.'],
  ['LK_SEQ_AT', 11, 'Offset in `s` of the drawn continuations (M × K shape indices).'],
  ['LK_GPU_AT', 12, "Offset in `s` of the rollout's GPU scratch (4 × maxGpus: the start states without and with the pod, the continuations')."],
  [
    'LK_GUIDE_AT',
    13,
    "Offset in `s` of the guide tables (rows × 2^LK_GUIDE_BITS: entry b of row r is the first shape whose cumulative count exceeds b << the row's shift; src/fleet/lookahead.ts guideShift).",
  ],
  ['LK_GUIDE_BITS', 14, "log2 of the guide table's buckets per row (2^bits ≥ S)."],
  ['LK_MIN_CPU', 15, "The least CPU milli of the workload's GPU pod shapes (2^31 − 1 without any): a continuation's node with less left takes no more GPU milli."],
  ['LK_MIN_MEM', 16, "The least host memory MiB of the workload's GPU pod shapes (2^31 − 1 without any)."],
  ['LK_FIELDS', 17, 'Ints of the lookahead block before its tables.'],
  ['SHAPE_FIELDS', 4, 'Sampling-table shape fields (cpu milli, host memory MiB, GPU count, GPU milli per GPU).'],
  ['CAND_FIELDS', 3, 'Candidate fields (node, GPU choice, rank).'],
];

function check() {
  const names = new Set();
  const seen = (what, v) => {
    if (names.has(v)) throw new Error(`fleet-tables: ${what} ${v} appears twice`);
    names.add(v);
  };
  for (const row of LAYOUT) if (row.length > 1) seen('constant', row[0]);
  for (const p of POLICIES) {
    seen('constant', p.constant);
    seen('policy name', p.name);
    seen('colour', p.color);
    if (!/^P_[A-Z0-9_]+$/.test(p.constant)) throw new Error(`fleet-tables: constant ${p.constant} must be P_ and capitals`);
    if (!/^#[0-9a-f]{6}$/.test(p.color)) throw new Error(`fleet-tables: colour ${p.color} of ${p.name} must be #rrggbb`);
  }
}

const HEAD = (what) => `// ${what}: generated by scripts/fleet-tables.mjs from its table. Do not edit: change the
// table and run \`npm run generate\` (test/fleet/fleet-tables.test.ts fails when the two differ).`;
const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);

function tsLayout() {
  const out = [HEAD("The fleet layout's fields")];
  for (const [name, value, doc] of LAYOUT) {
    if (value === undefined) {
      out.push(`\n/** ${name} */`);
      continue;
    }
    if (doc) out.push(`/** ${doc} */`);
    out.push(`export const ${name} = ${value};`);
  }
  return `${out.join('\n')}\n`;
}

function asLayout() {
  const out = [HEAD("The fleet layout's fields and the policy numbers")];
  for (const [name, value, doc, type] of LAYOUT) {
    if (value === undefined) {
      out.push(`\n// ${name}`);
      continue;
    }
    if (doc) out.push(`// ${doc}`);
    out.push(type === 'f64' ? `export const ${name}: f64 = ${value}.0;` : `export const ${name}: i32 = ${value};`);
  }
  out.push('\n// Policy numbers (src/fleet/policies/registry.ts has their names).');
  POLICIES.forEach((p, id) => out.push(`export const ${p.constant}: i32 = ${id};`));
  out.push(`// The number of policies: a policy number is 0..POLICY_COUNT-1, anything else traps.\nexport const POLICY_COUNT: i32 = ${POLICIES.length};`);
  return `${out.join('\n')}\n`;
}

function tsRegistry() {
  const out = [HEAD('The fleet policy registry')];
  out.push('\n/** Policy numbers in the kernels. */');
  POLICIES.forEach((p, id) => out.push(`export const ${p.constant} = ${id};`));
  out.push('\n/** The number of policies: a policy number is 0..POLICY_COUNT-1; the kernels throw on any other. */');
  out.push(`export const POLICY_COUNT = ${POLICIES.length};`);
  out.push('\n/** A registered policy: its kernel number, its name (CLI and API) and the colour pages draw it in. */');
  out.push('export type RegisteredPolicy = { readonly id: number; readonly name: string; readonly color: string };');
  out.push('\n/** Every policy, by name. */');
  out.push('export const POLICY_REGISTRY = {');
  for (const p of POLICIES) out.push(`  ${key(p.name)}: { id: ${p.constant}, name: '${p.name}', color: '${p.color}' },`);
  out.push('} as const satisfies Record<string, RegisteredPolicy>;');
  return `${out.join('\n')}\n`;
}

export function render() {
  check();
  return {
    'src/fleet/layout-fields.ts': tsLayout(),
    'src/fleet/policies/registry.ts': tsRegistry(),
    'assembly/fleet-fields.ts': asLayout(),
  };
}

const files = render();
const stale = [];
for (const [path, text] of Object.entries(files)) {
  const full = join(ROOT, path);
  let now = null;
  try {
    now = readFileSync(full, 'utf8');
  } catch {}
  if (now === text) continue;
  if (process.argv.includes('--check')) stale.push(path);
  else {
    writeFileSync(full, text);
    console.log(`wrote ${path}`);
  }
}
if (stale.length > 0) {
  console.error(`out of date with scripts/fleet-tables.mjs: ${stale.join(', ')} (run npm run generate)`);
  process.exit(1);
}
