// The PCIe tree of a node: GPUs grouped by the switch level that joins them (PIX: one switch, PXB:
// several switches, PHB: one host bridge, NODE: one NUMA node, SYS: across sockets), drawn as a tree
// instead of a line per GPU pair (which tangles on 8-GPU PCIe machines).
import { type Link, PCIE_LEVELS, type PcieLevel } from '../../src/index.ts';
import { s } from '../shared/dom.ts';

/** What each level's joint is, for labels. */
const JOINT: Record<PcieLevel, string> = { INTERNAL: 'board', PIX: 'PCIe switch', PXB: 'PCIe switches', PHB: 'host bridge', NODE: 'NUMA node', SYS: 'system' };

/** A tree node: a GPU (leaf) or a joint of a level over its children. */
export type PcieTreeNode = { kind: 'gpu'; gpu: number } | { kind: 'joint'; level: PcieLevel; children: PcieTreeNode[] };

/**
 * Builds the tree by single linkage, level by level (PCIE_LEVELS, nearest first; a pair with no
 * level counts as SYS): GPUs whose pair level is at most L end up under one joint of level L. A
 * level that joins nothing new adds no joint. Children keep the order of their smallest GPU index.
 */
export function pcieTree(gpus: number[], links: Link[]): PcieTreeNode {
  const levelOf = new Map<string, number>();
  for (const l of links) levelOf.set(`${Math.min(l.a, l.b)},${Math.max(l.a, l.b)}`, PCIE_LEVELS.indexOf(l.pcie ?? 'SYS'));
  const pair = (a: number, b: number): number => levelOf.get(`${Math.min(a, b)},${Math.max(a, b)}`) ?? PCIE_LEVELS.length - 1;
  type Group = { node: PcieTreeNode; members: number[] };
  let groups: Group[] = [...gpus].sort((a, b) => a - b).map((gpu) => ({ node: { kind: 'gpu', gpu }, members: [gpu] }));
  for (let level = 0; level < PCIE_LEVELS.length && groups.length > 1; level++) {
    // Union-find over the current groups: two groups join when any pair between them is at this level or nearer.
    const parent = groups.map((_, k) => k);
    const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k])));
    for (let i = 0; i < groups.length; i++) {
      for (let j = i + 1; j < groups.length; j++) {
        if (find(i) === find(j)) continue;
        const near = level === PCIE_LEVELS.length - 1 || groups[i].members.some((a) => groups[j].members.some((b) => pair(a, b) <= level));
        if (near) parent[find(j)] = find(i);
      }
    }
    const merged = new Map<number, Group[]>();
    groups.forEach((g, k) => merged.set(find(k), [...(merged.get(find(k)) ?? []), g]));
    const next: Group[] = [];
    for (const parts of merged.values()) {
      if (parts.length === 1) next.push(parts[0]);
      else next.push({ node: { kind: 'joint', level: PCIE_LEVELS[level], children: parts.map((p) => p.node) }, members: parts.flatMap((p) => p.members).sort((a, b) => a - b) });
    }
    groups = next.sort((a, b) => a.members[0] - b.members[0]);
  }
  return groups[0]?.node ?? { kind: 'joint', level: 'SYS', children: [] };
}

/** The level of the lowest joint above two GPUs (what the tree says about the pair). */
export function jointLevel(tree: PcieTreeNode, a: number, b: number): PcieLevel | undefined {
  const has = (n: PcieTreeNode, g: number): boolean => (n.kind === 'gpu' ? n.gpu === g : n.children.some((c) => has(c, g)));
  let node = tree;
  for (;;) {
    if (node.kind === 'gpu') return undefined;
    const child = node.children.find((c) => has(c, a) && has(c, b));
    if (child === undefined) return node.level;
    node = child;
  }
}

/**
 * Draws the tree top-down: the root at the top, GPUs as leaves along the bottom in tree order, each
 * joint centred over its children, one elbow edge per child (so edges of different joints never cross). Edges carry
 * data-testid="pcie-edge"; joints data-testid="pcie-joint" with data-level; leaves "pcie-gpu".
 */
export function drawPcieTree(tree: PcieTreeNode, chosen: Set<number>): SVGSVGElement {
  const leaves = collect(tree);
  const depthOf = (n: PcieTreeNode): number => (n.kind === 'gpu' ? 0 : 1 + Math.max(0, ...n.children.map(depthOf)));
  const depth = depthOf(tree);
  const leafW = 78;
  const rowH = 56;
  const width = Math.max(leaves.length * leafW, 200);
  const height = (depth + 1) * rowH + 10;
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': 'PCIe tree', 'data-testid': 'pcie-tree', class: 'pcie-svg' });
  const edges = s('g', { class: 'pcie-edges' }, svg);
  const boxes = s('g', { class: 'pcie-boxes' }, svg);
  const yOf = (level: number): number => 22 + (depth - level) * rowH;
  let leafNo = 0;
  // Returns the node's anchor (x, y) after drawing its subtree.
  const place = (n: PcieTreeNode): { x: number; y: number } => {
    if (n.kind === 'gpu') {
      const x = leafW / 2 + leafNo++ * leafW;
      const y = yOf(0);
      const hot = chosen.has(n.gpu);
      const g = s('g', { 'data-testid': 'pcie-gpu', 'data-gpu': n.gpu }, boxes);
      s('rect', { x: x - 30, y: y - 12, width: 60, height: 24, rx: 5, fill: hot ? '#dbe7ff' : '#ffffff', stroke: hot ? '#2563eb' : '#9fb0c3', 'stroke-width': hot ? 2 : 1 }, g);
      const t = s('text', { x, y: y + 4, 'text-anchor': 'middle', 'font-size': 11, 'font-weight': 600, fill: '#1f2933' }, g);
      t.textContent = `GPU ${n.gpu}`;
      return { x, y };
    }
    const kids = n.children.map(place);
    const x = kids.reduce((s, k) => s + k.x, 0) / Math.max(kids.length, 1);
    const level = depthOf(n);
    const y = yOf(level);
    // Elbow edges: down from the joint to a bus just under it, across to the child, down to the child.
    // Each subtree keeps to its own columns below its bus, so edges of different joints never cross.
    const bus = y + 11 + (rowH - 23) / 2;
    for (const k of kids)
      s(
        'path',
        {
          d: `M ${x} ${y + 11} V ${bus} H ${k.x} V ${k.y - 12}`,
          fill: 'none',
          'data-parent': `${x},${y}`,
          stroke: '#7b8a9e',
          'stroke-width': n.level === 'PIX' || n.level === 'INTERNAL' ? 2.5 : n.level === 'PXB' ? 2 : 1.3,
          'stroke-dasharray': n.level === 'NODE' || n.level === 'SYS' ? '3 3' : '',
          'data-testid': 'pcie-edge',
          'data-level': n.level,
        },
        edges,
      );
    const g = s('g', { 'data-testid': 'pcie-joint', 'data-level': n.level }, boxes);
    const label = `${n.level} · ${JOINT[n.level]}`;
    const w = Math.min(label.length * 6.2 + 14, Math.max(kids.length * leafW - 8, 70));
    s('rect', { x: x - w / 2, y: y - 11, width: w, height: 22, rx: 11, fill: '#f4f7fa', stroke: '#7b8a9e' }, g);
    const t = s('text', { x, y: y + 4, 'text-anchor': 'middle', 'font-size': 10, fill: '#334155' }, g);
    t.textContent = w < label.length * 6.2 + 14 ? n.level : label;
    s('title', {}, g).textContent = `${n.level}: ${JOINT[n.level]} joining GPUs ${collect(n).join(', ')}`;
    return { x, y };
  };
  place(tree);
  return svg;
}

function collect(n: PcieTreeNode): number[] {
  return n.kind === 'gpu' ? [n.gpu] : n.children.flatMap(collect);
}
