// Marshaling for the natural-order kernel: IDs go in as UTF-16 units plus offsets, a permutation comes back.
import type { SortKernels } from '../devices/natural-sort.js';
import type { WasmCore } from './core.js';

type SortExports = { naturalOrder(units: number, offsets: number, count: number, out: number, scratch: number, keys: number): void };

/** The sort kernels over the WebAssembly core. */
export function sortWasmKernels(core: WasmCore): SortKernels {
  return {
    naturalOrder(ids: readonly string[]): Int32Array {
      const count = ids.length;
      let total = 0;
      for (let k = 0; k < count; k++) total += ids[k]!.length;
      const [pUnits, pOffsets, pOut, pScratch, pKeys] = core.reserve([total * 2, (count + 1) * 4, count * 4, count * 4, count * 8]);
      const units = core.u16(pUnits, total);
      const heap = core.heap32();
      const o = pOffsets >> 2;
      let p = 0;
      for (let k = 0; k < count; k++) {
        heap[o + k] = p;
        const id = ids[k]!;
        for (let c = 0; c < id.length; c++) units[p++] = id.charCodeAt(c);
      }
      heap[o + count] = p;
      const exports = core.exports as unknown as SortExports;
      core.call(() => exports.naturalOrder(pUnits, pOffsets, count, pOut, pScratch, pKeys));
      return core.heap32().slice(pOut >> 2, (pOut >> 2) + count);
    },
  };
}
