// The pages' DOM helpers: elements are built as nodes, never from strings, so text and attribute
// values are escaped by construction (textContent and setAttribute never parse markup).

/** An attribute value: a string or number is set as is, `true` sets the attribute empty, `false`, null and undefined leave it off. */
export type AttrValue = string | number | boolean | null | undefined;
/** Attributes by name (`class`, `style`, `data-testid`, `aria-label`, …). */
export type Attrs = Readonly<Record<string, AttrValue>>;
/** What an element holds: nodes, text (numbers become text), and nothing for null, undefined and false; lists are flattened. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttrs(node: Element, attrs: Attrs | null | undefined): void {
  if (attrs === null || attrs === undefined) return;
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(node: ParentNode, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else if (typeof c === 'string' || typeof c === 'number') node.append(String(c));
    else node.append(c as Node);
  }
}

/** An HTML element with attributes and children: `h('td', { class: 'num' }, formatBytes(n))`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element with attributes and children, appended to `parent` when one is given. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs | null, parent?: Element, ...children: Child[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  parent?.appendChild(node);
  return node;
}

/** A fragment of several nodes (for `replaceChildren(...)` callers that build lists). */
export function fragment(...children: Child[]): DocumentFragment {
  const f = document.createDocumentFragment();
  append(f, children);
  return f;
}

/** The element with `data-testid="<testid>"`; a page missing it is a bug, so this throws. */
export function byTestId<T extends HTMLElement = HTMLElement>(testid: string): T {
  const node = document.querySelector<T>(`[data-testid="${testid}"]`);
  if (node === null) throw new Error(`page is missing [data-testid="${testid}"]`);
  return node;
}

/** `n thing` or `n things`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
