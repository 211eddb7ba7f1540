// Draws one node as SVG: GPU cards on a ring (memory bar, MIG slices, replicas), NVLinks as chords.
// PCIe is drawn as a tree by switch level (pcie-tree.ts), not as a line per pair.
import { formatBytes, type Inventory, type InventoryGpu, type Link } from '../../src/index.ts';
import { h, s } from '../shared/dom.ts';
import type { Workload } from './types.ts';

/** Workload colours (colour-blind friendly, muted); index -1 is inventory "in use" memory. */
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#edc948', '#76b7b2', '#ff9da7', '#9c755f', '#e15759', '#bab0ac'];
const IN_USE_COLOR = '#9aa5b1';

/** The colour of a workload. */
export function workloadColor(color: number): string {
  return color < 0 ? IN_USE_COLOR : PALETTE[color % PALETTE.length];
}

/** What to draw on top of the node. */
export type Overlay = {
  workloads: Workload[];
  /** GPUs of the selected decision. */
  chosen: number[];
  /** Memory per chosen GPU of a planned (not yet committed) model, in bytes. */
  plannedPerGpu?: number;
  /** Per-GPU rejections of the last plan. */
  rejected: Map<number, { code: string; message: string }>;
  /** Replica view: per GPU, the devices (MIG slices or replicas) and which workload holds each. */
  replicas?: { perGpu: Map<number, string[]>; holder: Map<string, Workload>; chosen: Set<string> };
  /** Memory used by other processes on each GPU (never evicted), in bytes. */
  others: Map<number, number>;
  /** Slots the selected option evicts. */
  evict: Set<string>;
};

/** The label of memory held outside gpualloc's slots. */
export const OTHERS_LABEL = 'in use by other processes';

type Card = { gpu: InventoryGpu; x: number; y: number };

function text(parent: Element, x: number, y: number, content: string, attrs: Record<string, string | number> = {}): SVGTextElement {
  const t = s('text', { x, y, ...attrs }, parent);
  t.textContent = content;
  return t;
}

function title(parent: Element, content: string): void {
  s('title', {}, parent).textContent = content;
}

/** The NVLink count of an NVSwitch-like node (more than 4 GPUs, every pair linked with the same count), else undefined. */
export function switchFabric(inventory: Inventory): number | undefined {
  const n = inventory.gpus.length;
  if (n <= 4 || inventory.links.length !== (n * (n - 1)) / 2) return undefined;
  const first = inventory.links[0]?.nvlink ?? 0;
  if (first <= 0) return undefined;
  return inventory.links.every((l) => (l.nvlink ?? 0) === first) ? first : undefined;
}

/** Card size by GPU count, and each card's centre: a ring up to 8 GPUs, the perimeter of a rectangle above. */
function layout(n: number): { w: number; h: number; width: number; height: number; centres: Array<{ x: number; y: number }> } {
  const w = n <= 16 ? 170 : 104;
  const h = n <= 16 ? 108 : 70;
  const margin = 20;
  const centres: Array<{ x: number; y: number }> = [];
  if (n <= 2) {
    const width = 900;
    const height = h + 2 * margin + 40;
    for (let k = 0; k < n; k++) centres.push({ x: n === 1 ? width / 2 : width / 2 + (k === 0 ? -200 : 200), y: height / 2 });
    return { w, h, width, height, centres };
  }
  if (n <= 8) {
    const rx = n <= 4 ? 250 : 325;
    const ry = n <= 4 ? 130 : 210;
    const width = 900;
    const height = 2 * ry + h + 2 * margin;
    for (let k = 0; k < n; k++) {
      const angle = -Math.PI / 2 + (2 * Math.PI * k) / n + Math.PI / n;
      centres.push({ x: width / 2 + rx * Math.cos(angle), y: height / 2 + ry * Math.sin(angle) });
    }
    return { w, h, width, height, centres };
  }
  // Clockwise from the top-left: top row, right column, bottom row, left column.
  const top = Math.ceil(n / 4) + 1;
  const bottom = Math.min(top, n - top);
  const sides = n - top - bottom;
  const right = Math.ceil(sides / 2);
  const left = sides - right;
  const gapX = n <= 16 ? 34 : 14;
  const gapY = n <= 16 ? 28 : 14;
  const rows = Math.max(right, left) + 2;
  const width = top * (w + gapX) - gapX + 2 * margin;
  const height = rows * (h + gapY) - gapY + 2 * margin;
  const colX = (c: number): number => margin + w / 2 + c * (w + gapX);
  const rowY = (r: number): number => margin + h / 2 + r * (h + gapY);
  const sideY = (k: number, count: number): number => rowY(0) + ((k + 1) * (rowY(rows - 1) - rowY(0))) / (count + 1);
  for (let c = 0; c < top; c++) centres.push({ x: colX(c), y: rowY(0) });
  for (let k = 0; k < right; k++) centres.push({ x: colX(top - 1), y: sideY(k, right) });
  for (let c = 0; c < bottom; c++) centres.push({ x: colX(top - 1) - (c * (colX(top - 1) - colX(0))) / Math.max(bottom - 1, 1), y: rowY(rows - 1) });
  for (let k = left - 1; k >= 0; k--) centres.push({ x: colX(0), y: sideY(k, left) });
  return { w, h, width, height, centres };
}

function linkStyle(link: Link): { stroke: string; width: number; dash: string; kind: 'nvlink' | 'pcie' } {
  const nv = link.nvlink ?? 0;
  if (nv > 0) return { stroke: '#76b900', width: Math.min(1.2 + nv * 0.55, 11), dash: '', kind: 'nvlink' };
  const level = link.pcie ?? 'SYS';
  const dash = level === 'INTERNAL' || level === 'PIX' || level === 'PXB' ? '' : level === 'PHB' ? '6 4' : '2 4';
  const width = level === 'INTERNAL' || level === 'PIX' ? 3 : level === 'PXB' ? 2.2 : 1.3;
  return { stroke: '#7b8a9e', width, dash, kind: 'pcie' };
}

/** Renders the node; every GPU card carries data-testid="gpu-card" and data-gpu, data-chosen, data-rejected. */
export function drawNode(inventory: Inventory, overlay: Overlay): SVGSVGElement {
  const gpus = [...inventory.gpus].sort((a, b) => a.index - b.index);
  const n = gpus.length;
  const L = layout(n);
  const svg = s('svg', { viewBox: `0 0 ${L.width} ${L.height}`, width: '100%', role: 'img', 'aria-label': `node with ${n} GPUs`, 'data-testid': 'node-svg', class: 'node-svg' });
  const defs = s('defs', {}, svg);
  const hatch = s('pattern', { id: 'planned-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
  s('rect', { width: 6, height: 6, fill: '#dbe7ff' }, hatch);
  s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#2563eb', 'stroke-width': 3 }, hatch);
  const others = s('pattern', { id: 'others-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' }, defs);
  s('rect', { width: 6, height: 6, fill: '#e5e9ef' }, others);
  s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#7d8896', 'stroke-width': 3 }, others);
  const evicted = s('pattern', { id: 'evict-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse' }, defs);
  s('rect', { width: 6, height: 6, fill: '#fdecec' }, evicted);
  s('path', { d: 'M0 0 L6 6 M6 0 L0 6', stroke: '#d64545', 'stroke-width': 1.2 }, evicted);

  const cx = L.width / 2;
  const cy = L.height / 2;
  const cards = new Map<number, Card>();
  gpus.forEach((gpu, k) => cards.set(gpu.index, { gpu, x: L.centres[k].x, y: L.centres[k].y }));

  const chosen = new Set(overlay.chosen);
  const linkLayer = s('g', { class: 'links', 'data-testid': 'links' }, svg);
  const hotLayer = s('g', { class: 'links-chosen' }, svg);
  const fabric = switchFabric(inventory);
  if (fabric !== undefined) {
    // NVSwitch: every pair has the same NVLink count, so draw one switch and a spoke per GPU, not n(n-1)/2 chords.
    const style = linkStyle({ a: 0, b: 1, nvlink: fabric });
    for (const card of cards.values()) {
      const hot = chosen.has(card.gpu.index) && chosen.size > 1;
      const spoke = s(
        'line',
        {
          x1: cx,
          y1: cy,
          x2: card.x,
          y2: card.y,
          stroke: hot ? '#2563eb' : style.stroke,
          'stroke-width': style.width,
          'stroke-linecap': 'round',
          opacity: hot ? 0.95 : 0.55,
          'data-testid': 'switch-spoke',
          'data-gpu': card.gpu.index,
          'data-nvlink': fabric,
        },
        hot ? hotLayer : linkLayer,
      );
      title(spoke, `GPU ${card.gpu.index} ↔ NVSwitch: NV${fabric} to every other GPU`);
    }
    const hub = s('g', { 'data-testid': 'nvswitch', 'data-nvlink': fabric }, svg);
    s('rect', { x: cx - 78, y: cy - 24, width: 156, height: 48, rx: 8, fill: '#f3f9e6', stroke: '#76b900', 'stroke-width': 1.5 }, hub);
    text(hub, cx, cy - 3, 'NVSwitch', { 'font-size': 13, 'font-weight': 600, 'text-anchor': 'middle', fill: '#3d6600' });
    text(hub, cx, cy + 13, `NV${fabric} between every pair`, { 'font-size': 10, 'text-anchor': 'middle', fill: '#4b5a6b' });
  }
  for (const link of inventory.links) {
    const a = cards.get(link.a);
    const b = cards.get(link.b);
    if (a === undefined || b === undefined) continue;
    const style = linkStyle(link);
    if (fabric !== undefined && style.kind === 'nvlink') continue;
    const hot = chosen.has(link.a) && chosen.has(link.b) && fabric === undefined;
    if (style.kind === 'pcie') continue;
    const line = s(
      'line',
      {
        x1: a.x,
        y1: a.y,
        x2: b.x,
        y2: b.y,
        stroke: hot ? '#2563eb' : style.stroke,
        'stroke-width': style.width,
        'stroke-dasharray': style.dash,
        'stroke-linecap': 'round',
        opacity: hot ? 0.95 : style.kind === 'nvlink' ? 0.55 : 0.7,
        'data-testid': 'link',
        'data-a': link.a,
        'data-b': link.b,
        'data-nvlink': link.nvlink ?? 0,
        'data-pcie': link.pcie ?? '',
      },
      hot ? hotLayer : linkLayer,
    );
    title(line, `GPU ${link.a} ↔ GPU ${link.b}: ${(link.nvlink ?? 0) > 0 ? `${link.nvlink} NVLink${link.nvlink === 1 ? '' : 's'}, ` : ''}PCIe ${link.pcie ?? 'unknown'}`);
  }

  const used = new Map<number, Array<{ w: Workload; bytes: number }>>();
  for (const w of overlay.workloads) {
    if (w.slotId === undefined) continue;
    for (const g of w.gpus) {
      const list = used.get(g) ?? [];
      list.push({ w, bytes: w.memoryPerGpu });
      used.set(g, list);
    }
  }

  const small = n > 16;
  // Evicted slots are drawn last, so what stays is one run from the left and the planned share sits on it.
  const evictedLast = (x: { w: Workload }): number => (x.w.slotId !== undefined && overlay.evict.has(x.w.slotId) ? 1 : 0);
  for (const card of cards.values())
    drawCard(
      svg,
      card,
      L.w,
      L.h,
      small,
      [...(used.get(card.gpu.index) ?? [])].sort((a, b) => evictedLast(a) - evictedLast(b)),
      overlay,
      chosen,
    );
  return svg;
}

function drawCard(svg: SVGSVGElement, card: Card, w: number, h: number, small: boolean, segments: Array<{ w: Workload; bytes: number }>, overlay: Overlay, chosen: Set<number>): void {
  const { gpu } = card;
  const isChosen = chosen.has(gpu.index);
  const rejection = overlay.rejected.get(gpu.index);
  const x0 = card.x - w / 2;
  const y0 = card.y - h / 2;
  const g = s(
    'g',
    {
      class: `gpu-card${isChosen ? ' chosen' : ''}${gpu.lost === true ? ' lost' : ''}`,
      'data-testid': 'gpu-card',
      'data-gpu': gpu.index,
      'data-chosen': String(isChosen),
      'data-rejected': rejection?.code ?? '',
    },
    svg,
  );
  title(
    g,
    `GPU ${gpu.index}: ${gpu.name ?? ''}${gpu.uuid ? `\n${gpu.uuid}` : ''}${gpu.pciBusId ? `\nPCI ${gpu.pciBusId}` : ''}${gpu.numaNode !== undefined ? `, NUMA ${gpu.numaNode}` : ''}${rejection ? `\n${rejection.code}: ${rejection.message}` : ''}`,
  );
  if (isChosen) s('rect', { x: x0 - 5, y: y0 - 5, width: w + 10, height: h + 10, rx: 12, fill: 'none', stroke: '#2563eb', 'stroke-opacity': 0.25, 'stroke-width': 8 }, g);
  s(
    'rect',
    {
      x: x0,
      y: y0,
      width: w,
      height: h,
      rx: 9,
      fill: gpu.lost === true ? '#fbeaea' : '#ffffff',
      stroke: isChosen ? '#2563eb' : rejection ? '#d64545' : '#c9d2dd',
      'stroke-width': isChosen ? 2.5 : 1.2,
    },
    g,
  );
  const pad = small ? 6 : 10;
  const fs = small ? 10 : 13;
  text(g, x0 + pad, y0 + pad + fs - 2, `GPU ${gpu.index}`, { class: 'gpu-title', 'font-size': fs, 'font-weight': 600 });
  // Memory bar: committed work, then the planned share (hatched), then free.
  const total = gpu.memoryTotal;
  const barX = x0 + pad;
  const barY = y0 + (small ? 22 : 30);
  const barW = w - 2 * pad;
  const barH = small ? 9 : 13;
  const bar = s('g', { 'data-testid': 'memory-bar' }, g);
  s('rect', { x: barX, y: barY, width: barW, height: barH, rx: 3, fill: '#eef2f6', stroke: '#d5dce5' }, bar);
  let usedBytes = 0;
  const othersAt = overlay.others.get(gpu.index) ?? 0;
  if (othersAt > 0) {
    const seg = s(
      'rect',
      {
        x: barX,
        y: barY,
        width: total > 0 ? (barW * Math.min(othersAt, total)) / total : 0,
        height: barH,
        fill: 'url(#others-hatch)',
        stroke: '#ffffff',
        'stroke-width': 0.75,
        'data-testid': 'memory-others',
        'data-bytes': othersAt,
      },
      bar,
    );
    title(seg, `${OTHERS_LABEL}: ${formatBytes(othersAt)} (never evicted)`);
    usedBytes += othersAt;
  }
  for (const part of segments) {
    const sw = total > 0 ? (barW * part.bytes) / total : 0;
    const xs = barX + (total > 0 ? (barW * usedBytes) / total : 0);
    const evicted = part.w.slotId !== undefined && overlay.evict.has(part.w.slotId);
    const seg = s(
      'rect',
      {
        x: xs,
        y: barY,
        width: Math.max(sw, 0),
        height: barH,
        fill: evicted ? 'url(#evict-hatch)' : workloadColor(part.w.color),
        opacity: part.w.stale === true && !evicted ? 0.4 : 1,
        stroke: evicted ? '#d64545' : '#ffffff',
        'stroke-width': evicted ? 1.2 : 0.75,
        'data-testid': 'memory-segment',
        'data-slot': part.w.slotId ?? '',
        'data-evicted': String(evicted),
        'data-stale': String(part.w.stale === true),
      },
      bar,
    );
    title(seg, `${part.w.label} (${part.w.slotId ?? part.w.id})${evicted ? ' · evicted by the selected option' : part.w.stale === true ? ' (stale: may be evicted)' : ''}: ${formatBytes(part.bytes)}`);
    usedBytes += part.bytes;
  }
  if (isChosen && overlay.plannedPerGpu !== undefined && overlay.plannedPerGpu > 0) {
    const sw = total > 0 ? Math.min((barW * overlay.plannedPerGpu) / total, barW) : 0;
    // On what stays (used memory and the slots not evicted): over the evicted slots it replaces.
    const kept = (overlay.others.get(gpu.index) ?? 0) + segments.filter((x) => x.w.slotId === undefined || !overlay.evict.has(x.w.slotId)).reduce((t, x) => t + x.bytes, 0);
    const xs = barX + Math.min((barW * kept) / total, barW - sw);
    s('rect', { x: xs, y: barY, width: sw, height: barH, fill: 'url(#planned-hatch)', stroke: '#2563eb', 'stroke-width': 1, 'data-testid': 'memory-planned' }, bar);
  }
  const free = total - usedBytes;
  // Free memory sits on the title row; used / total under the bar (the model name is in the tooltip and the node title).
  text(g, x0 + w - pad, y0 + pad + fs - 2, `${formatBytes(Math.max(free, 0))} free`, {
    'font-size': small ? 8 : 11,
    fill: free <= 0 ? '#d64545' : '#4b5a6b',
    'text-anchor': 'end',
    'font-weight': 500,
    'data-testid': 'memory-free',
    'data-free': free,
  });
  text(g, barX, barY + barH + (small ? 10 : 14), `${formatBytes(usedBytes)} / ${formatBytes(total)} used`, {
    'font-size': small ? 8 : 11,
    fill: '#5b6776',
    'data-testid': 'memory-text',
    'data-used': usedBytes,
    'data-total': total,
  });

  // MIG slices (always), or time-sliced replicas (when the replica view is on).
  const rowY = barY + barH + (small ? 16 : 24);
  const rowH = small ? 10 : 16;
  const replicaIds = overlay.replicas?.perGpu.get(gpu.index);
  if (gpu.mig !== undefined && gpu.mig.length > 0) {
    const mig = s('g', { 'data-testid': 'mig-slices' }, g);
    const sum = gpu.mig.reduce((s, m) => s + m.memoryTotal, 0);
    const scale = Math.max(sum, total);
    let xs = barX;
    for (const m of gpu.mig) {
      const sw = Math.max((barW * m.memoryTotal) / scale - 2, 3);
      const holder = overlay.replicas?.holder.get(m.uuid);
      const picked = overlay.replicas?.chosen.has(m.uuid) ?? false;
      const r = s(
        'rect',
        {
          x: xs,
          y: rowY,
          width: sw,
          height: rowH,
          rx: 2,
          fill: holder ? workloadColor(holder.color) : picked ? '#dbe7ff' : '#f4f7fa',
          stroke: picked ? '#2563eb' : '#9fb0c3',
          'stroke-width': picked ? 2 : 1,
          'data-testid': 'mig-slice',
          'data-uuid': m.uuid,
          'data-chosen': String(picked),
        },
        mig,
      );
      title(r, `${m.profile} (${formatBytes(m.memoryTotal)})${holder ? ` · ${holder.label}` : ''}\n${m.uuid}`);
      if (!small && sw > 26) text(mig, xs + sw / 2, rowY + rowH - 4, m.profile.replace(/\.\d+gb$/, ''), { 'font-size': 9, 'text-anchor': 'middle', fill: '#334155' });
      xs += sw + 2;
    }
  } else if (replicaIds !== undefined && replicaIds.length > 0) {
    const row = s('g', { 'data-testid': 'replicas' }, g);
    const size = Math.min(rowH, (barW - 2 * (replicaIds.length - 1)) / replicaIds.length);
    replicaIds.forEach((id, k) => {
      const holder = overlay.replicas?.holder.get(id);
      const picked = overlay.replicas?.chosen.has(id) ?? false;
      const r = s(
        'rect',
        {
          x: barX + k * (size + 2),
          y: rowY,
          width: size,
          height: size,
          rx: 2,
          fill: holder ? workloadColor(holder.color) : picked ? '#dbe7ff' : '#f4f7fa',
          stroke: picked ? '#2563eb' : '#9fb0c3',
          'stroke-width': picked ? 2 : 1,
          'data-testid': 'replica',
          'data-id': id,
          'data-chosen': String(picked),
        },
        row,
      );
      title(r, `${id}${holder ? ` · ${holder.label}` : ''}`);
    });
  }

  if (rejection !== undefined) {
    const tagY = y0 + h - (small ? 12 : 16);
    const label = rejection.code.replace(/_/g, ' ').toLowerCase();
    const tw = Math.min(label.length * (small ? 4.6 : 5.6) + 10, w - 2 * pad);
    s('rect', { x: barX, y: tagY - 1, width: tw, height: small ? 11 : 14, rx: 3, fill: '#fdecec', stroke: '#e3a1a1' }, g);
    text(g, barX + 5, tagY + (small ? 7 : 9.5), label, { 'font-size': small ? 7 : 9, fill: '#b42318', 'data-testid': 'gpu-rejection' });
  } else if (isChosen) {
    const tagY = y0 + h - 16;
    s('rect', { x: barX, y: tagY - 1, width: 54, height: 14, rx: 3, fill: '#2563eb' }, g);
    text(g, barX + 27, tagY + 9.5, 'chosen', { 'font-size': 9, fill: '#ffffff', 'text-anchor': 'middle', 'font-weight': 600 });
  }
}

/** The legend under the drawing: NVLink widths, planned, chosen, and the slot states. */
export function legendKeys(inventory: Inventory): HTMLElement[] {
  const nv = [...new Set(inventory.links.map((l) => l.nvlink ?? 0).filter((x) => x > 0))].sort((a, b) => a - b);
  const keys = nv.map((count) => {
    const icon = s('svg', { width: 34, height: 12 });
    s('line', { x1: 2, y1: 6, x2: 32, y2: 6, stroke: '#76b900', 'stroke-width': Math.min(1.2 + count * 0.55, 11), 'stroke-linecap': 'round' }, icon);
    return h('span', { class: 'key' }, icon, `NV${count}`);
  });
  const planned = s('svg', { width: 18, height: 12 });
  s('rect', { x: 1, y: 1, width: 16, height: 10, fill: 'url(#legend-hatch)', stroke: '#2563eb' }, planned);
  const pattern = s('pattern', { id: 'legend-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, s('defs', {}, planned));
  s('rect', { width: 6, height: 6, fill: '#dbe7ff' }, pattern);
  s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#2563eb', 'stroke-width': 3 }, pattern);
  const chosen = s('svg', { width: 18, height: 12 });
  s('rect', { x: 1, y: 1, width: 16, height: 10, rx: 2, fill: '#fff', stroke: '#2563eb', 'stroke-width': 2 }, chosen);
  return [...keys, h('span', { class: 'key' }, planned, 'planned'), h('span', { class: 'key' }, chosen, 'chosen GPU'), ...slotStateKeys()];
}

/** Legend keys for memory other processes hold, evicted slots and stale slots (node and cluster legends). */
export function slotStateKeys(): HTMLElement[] {
  return [
    h('span', { class: 'key', 'data-testid': 'legend-others' }, h('span', { class: 'hatch-others swatch-box' }), OTHERS_LABEL),
    h('span', { class: 'key' }, h('span', { class: 'hatch-evict swatch-box' }), 'evicted by the selected option'),
    h('span', { class: 'key' }, h('span', { class: 'swatch-box stale-box' }), 'stale (may be evicted)'),
  ];
}
