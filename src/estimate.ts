// estimateMemory: Ollama's memory estimate from a GGUF header (issue 6; placeholder).

/** Memory a model needs, in bytes (see DESIGN.md). */
export type MemoryEstimate = {
  weights: number;
  kvCache: number;
  graph: number;
  total: number;
  layers?: number;
  perGpu?: number[];
  vram?: number;
  fits?: boolean;
  warnings?: string[];
};

/** Options of estimateMemory. */
export type EstimateOptions = { contextLength?: number; parallel?: number; kvCacheType?: 'f16' | 'q8_0' | 'q4_0'; flashAttention?: boolean; batch?: number; gpus?: number[] };

/** Estimates what a GGUF model needs. */
export async function estimateMemory(_source: string | Uint8Array | ArrayBuffer | object, _options: EstimateOptions = {}): Promise<MemoryEstimate> {
  throw new Error('estimateMemory: not built yet (issue 6)');
}
