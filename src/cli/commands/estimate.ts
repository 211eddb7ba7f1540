// gpualloc estimate: Ollama's memory estimate of a GGUF model, optionally placed on GPUs.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONTEXT_LENGTH, estimateMemory, type EstimateOptions, type MemoryEstimate } from '../../models/estimate.js';
import { formatBytes, parseBytes, unitsOf, type ByteUnits } from '../../shared/units.js';
import { EXIT, parsePositiveInt, table, UsageError, type Command } from '../lib/common.js';

const HELP = `gpualloc estimate: memory a GGUF model needs, as Ollama v0.11.4 estimates it

Usage: gpualloc estimate MODEL.gguf [options]

Reads only the file's header (metadata and tensor infos), never the weights.

Options:
  --gpus SIZES         free memory of each GPU, comma-separated (e.g. 80GiB,80GiB or 80GB,80GB;
                       the report prints sizes in the same units);
                       places the layers as Ollama does and says whether the model fits
  --context N          context length per sequence (default ${DEFAULT_CONTEXT_LENGTH}, capped at the model's)
  --parallel N         sequences served at once (default 1)
  --batch N            batch size in tokens (default 512)
  --kv-cache TYPE      KV cache type: f16 (default), q8_0 or q4_0 (needs --flash-attention)
  --flash-attention    flash attention on
  --json               print the estimate as JSON

Exit codes: 0 estimated (and fits, with --gpus), 1 does not fit on --gpus, 2 bad input.
`;

function _bytes(n: number, units: ByteUnits): string {
  return `${formatBytes(n, units)} (${n} B)`;
}

/** Renders an estimate; sizes in the units --gpus was typed in (GB or GiB), else GiB. */
function _report(file: string, e: MemoryEstimate, opts: EstimateOptions, units: ByteUnits): string {
  const lines = [
    `model     ${file}`,
    `weights   ${_bytes(e.weights, units)}`,
    `kv cache  ${_bytes(e.kvCache, units)}`,
    `graph     ${_bytes(e.graph, units)}`,
    `total     ${_bytes(e.total, units)}`,
  ];
  let text = lines.join('\n') + '\n';
  if (e.perGpu !== undefined && opts.gpus !== undefined) {
    const gpus = opts.gpus;
    text += '\n' + table(['gpu', 'free', 'allocated', 'layers'], gpus.map((free, i) => [i, formatBytes(free, units), formatBytes(e.perGpu![i], units), e.layersPerGpu?.[i] ?? 0]));
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
  flags: { 'options.contextLength': '--context', 'options.parallel': '--parallel', 'options.batch': '--batch', 'options.gpus': '--gpus', 'options.kvCacheType': '--kv-cache' },
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        gpus: { type: 'string' },
        context: { type: 'string' },
        parallel: { type: 'string' },
        batch: { type: 'string' },
        'kv-cache': { type: 'string' },
        'flash-attention': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`estimate: expected one GGUF file, got ${positionals.length === 0 ? 'none' : positionals.length} (see gpualloc estimate --help)`);
    const kvCache = values['kv-cache'];
    if (kvCache !== undefined && !['f16', 'q8_0', 'q4_0'].includes(kvCache)) throw new UsageError(`--kv-cache: expected f16, q8_0 or q4_0, got ${JSON.stringify(kvCache)}`);
    const opts: EstimateOptions = {
      contextLength: parsePositiveInt(values.context, '--context', DEFAULT_CONTEXT_LENGTH),
      parallel: parsePositiveInt(values.parallel, '--parallel', 1),
      batch: parsePositiveInt(values.batch, '--batch', 512),
      kvCacheType: (kvCache ?? 'f16') as EstimateOptions['kvCacheType'],
      flashAttention: values['flash-attention'] === true,
    };
    if (values.gpus !== undefined) {
      if (values.gpus.trim() === '') throw new UsageError('--gpus: expected comma-separated sizes such as 80GiB,80GiB, got ""');
      opts.gpus = values.gpus.split(',').map((s, i) => parseBytes(s.trim(), `--gpus[${i}]`));
    }
    const file = positionals[0];
    const estimate = await estimateMemory(resolve(io.cwd, file), opts);
    if (values.json === true) io.out(JSON.stringify({ file, ...estimate }, null, 2) + '\n');
    else io.out(_report(file, estimate, opts, values.gpus === undefined ? 'binary' : unitsOf(values.gpus.split(',')[0])));
    return estimate.fits === false ? EXIT.INFEASIBLE : EXIT.OK;
  },
};
