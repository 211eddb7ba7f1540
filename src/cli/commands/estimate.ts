// gpualloc estimate: Ollama's memory estimate of a GGUF model, optionally placed on GPUs.
import { resolve } from 'node:path';
import { DEFAULT_CONTEXT_LENGTH, type EstimateOptions, estimateMemory, type MemoryEstimate } from '../../models/estimate.js';
import { type ByteUnits, formatBytes, parseBytes, unitsOf } from '../../shared/units.js';
import { type Command, EXIT, parsePositiveInt, table, UsageError } from '../lib/common.js';
import { sayWithFlags } from '../lib/error-words.js';
import { jsonOption, oneOf, option, optionsHelp, readOptions } from '../lib/options.js';

/** --gpus: comma-separated sizes (each in its own units; the report prints in those of the first). */
function parseGpus(text: string, flag: string): { sizes: number[]; units: ByteUnits } {
  if (text.trim() === '') throw new UsageError(`${flag}: expected comma-separated sizes such as 80GiB,80GiB, got ""`);
  return { sizes: text.split(',').map((s, i) => parseBytes(s.trim(), `${flag}[${i}]`)), units: unitsOf(text.split(',')[0]!) };
}

const KV_CACHE_TYPES = ['f16', 'q8_0', 'q4_0'] as const;

const parseKvCache: (text: string, flag: string) => NonNullable<EstimateOptions['kvCacheType']> = oneOf(KV_CACHE_TYPES);

const OPTIONS = {
  gpus: option({
    type: 'string',
    value: 'SIZES',
    field: 'options.gpus',
    parse: parseGpus,
    help: "free memory of each GPU, comma-separated (e.g. 80GiB,80GiB or 80GB,80GB,\nor Kubernetes' 80Gi or 80G; the report prints sizes in the same units);\nplaces the layers as Ollama does and says whether the model fits",
  }),
  context: option({
    type: 'string',
    value: 'N',
    help: `context length per sequence (default ${DEFAULT_CONTEXT_LENGTH}, capped at the model's)`,
    field: 'options.contextLength',
    parse: parsePositiveInt,
  }),
  parallel: option({ type: 'string', value: 'N', help: 'sequences served at once (default 1)', field: 'options.parallel', parse: parsePositiveInt }),
  batch: option({ type: 'string', value: 'N', help: 'batch size in tokens (default 512)', field: 'options.batch', parse: parsePositiveInt }),
  'kv-cache': option({ type: 'string', value: 'TYPE', help: 'KV cache type: f16 (default), q8_0 or q4_0 (needs --flash-attention)', field: 'options.kvCacheType', parse: parseKvCache }),
  'flash-attention': option({ type: 'boolean', help: 'flash attention on' }),
  json: jsonOption('print the estimate as JSON'),
};

const HELP = `gpualloc estimate: memory a GGUF model needs, as Ollama v0.11.4 estimates it

Usage: gpualloc estimate MODEL.gguf [options]

Reads only the file's header (metadata and tensor infos), never the weights.

Options:
${optionsHelp(OPTIONS, 23)}
Exit codes: 0 estimated (and fits, with --gpus), 1 does not fit on --gpus, 2 bad input.
`;

function _bytes(n: number, units: ByteUnits): string {
  return `${formatBytes(n, units)} (${n} B)`;
}

/** Renders an estimate; sizes in the units --gpus was typed in (GB or GiB), else GiB. */
function _report(file: string, e: MemoryEstimate, opts: EstimateOptions, units: ByteUnits): string {
  const lines = [`model     ${file}`, `weights   ${_bytes(e.weights, units)}`, `kv cache  ${_bytes(e.kvCache, units)}`, `graph     ${_bytes(e.graph, units)}`, `total     ${_bytes(e.total, units)}`];
  let text = lines.join('\n') + '\n';
  if (e.perGpu !== undefined && opts.gpus !== undefined) {
    const gpus = opts.gpus;
    text +=
      '\n' +
      table(
        ['gpu', 'free', 'allocated', 'layers'],
        gpus.map((free, i) => [i, formatBytes(free, units), formatBytes(e.perGpu![i]!, units), e.layersPerGpu?.[i] ?? 0]),
      );
    text += `\nlayers on GPUs  ${e.layers}\nvram            ${_bytes(e.vram ?? 0, units)}\nfits            ${e.fits ? 'yes' : 'no'}\n`;
  }
  for (const w of e.warnings ?? []) text += `warning: ${w}\n`;
  return text;
}

/** The `estimate` subcommand. */
export const command: Command = {
  name: 'estimate',
  summary: 'memory a GGUF model needs (weights, KV cache, graph), per GPU with --gpus',
  help: HELP,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = readOptions(OPTIONS, argv, { positionals: true });
    if (positionals.length !== 1) throw new UsageError(`estimate: expected one GGUF file, got ${positionals.length === 0 ? 'none' : positionals.length} (see gpualloc estimate --help)`);
    const opts: EstimateOptions = {
      contextLength: values.context ?? DEFAULT_CONTEXT_LENGTH,
      parallel: values.parallel ?? 1,
      batch: values.batch ?? 512,
      kvCacheType: values['kv-cache'] ?? 'f16',
      flashAttention: values['flash-attention'] === true,
    };
    if (values.gpus !== undefined) opts.gpus = values.gpus.sizes;
    const file = positionals[0]!; // exactly one, checked above
    // The file's errors name it as typed, not as the API's `source` field.
    const estimate = await estimateMemory(resolve(io.cwd, file), opts).catch((error: unknown) => {
      throw sayWithFlags(error, { source: file });
    });
    if (values.json === true) io.out(JSON.stringify({ file, ...estimate }, null, 2) + '\n');
    else io.out(_report(file, estimate, opts, values.gpus?.units ?? 'binary'));
    return estimate.fits === false ? EXIT.INFEASIBLE : EXIT.OK;
  },
};
