// A text picture of plain data, for comparing readInput's copies exactly (Object.is, key order, prototypes).

/** A text picture of plain data: key order, prototypes, -0, NaN, undefined, typed arrays by identity. */
export function canon(value: unknown, ids = new Map<object, number>()): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    if (!ids.has(value)) ids.set(value, ids.size);
    return `opaque#${ids.get(value)}`;
  }
  if (Array.isArray(value)) return `[${Array.from({ length: value.length }, (_, k) => canon(value[k], ids)).join(',')}]`;
  const proto = Object.getPrototypeOf(value);
  const tag = proto === Object.prototype ? '' : proto === null ? 'null:' : 'other:';
  return `${tag}{${Object.keys(value)
    .map((k) => `${JSON.stringify(k)}:${canon((value as Record<string, unknown>)[k], ids)}`)
    .join(',')}}`;
}
