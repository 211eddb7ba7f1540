// The OpenB trace files (Alibaba cluster-trace-gpu-v2023, published with "Beware of Fragmentation",
// USENIX ATC '23) as published: a node list `sn,cpu_milli,memory_mib,gpu,model` and a pod list
// `name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]` (columns found by the header; other
// columns are ignored). A malformed row is an INVALID_TRACE error naming the file, line and column.
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { DEFAULT_GPU_MEMORY, type FleetNode, type FleetPod } from './types.js';

const MAX_INT = 0x7fffffff;

function bad(file: string, line: number, column: string, message: string): never {
  throw new AllocationError('INVALID_TRACE', `${file}:${line}: column ${column}: ${message}`, { field: file, details: { file, line, column } });
}

type Table = { header: string[]; rows: { line: number; cells: string[] }[] };

function readTable(file: string, text: string, required: string[], limit: number): Table {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new AllocationError('INVALID_TRACE', `${file}:1: the file is empty (expected the header ${required.join(',')})`, { field: file });
  const strip = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);
  const header = strip(lines[0]!).split(',');
  for (const name of required) {
    if (!header.includes(name)) throw new AllocationError('INVALID_TRACE', `${file}:1: the header lacks the column ${name} (expected ${required.join(',')})`, { field: file });
  }
  if (lines.length - 1 > limit) throw AllocationError.at('LIMIT_EXCEEDED', file, `more than ${limit} rows`);
  const rows = [];
  for (let i = 1; i < lines.length; i++) {
    const cells = strip(lines[i]!).split(',');
    if (cells.length !== header.length) bad(file, i + 1, String(Math.min(cells.length, header.length) + 1), `expected ${header.length} columns, got ${cells.length}`);
    rows.push({ line: i + 1, cells });
  }
  return { header, rows };
}

function int(file: string, line: number, column: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) bad(file, line, column, `expected an integer, got ${JSON.stringify(text)}`);
  const v = Number(text);
  if (v < min || v > max) bad(file, line, column, `expected ${min}..${max}, got ${text}`);
  return v;
}

/** Parses a node list CSV (GPUs of DEFAULT_GPU_MEMORY bytes: the trace gives none, and shares are milli). */
export function parseNodeCsv(file: string, text: string): Array<FleetNode & { model: string; gpuMemory: number }> {
  const { header, rows } = readTable(file, text, ['sn', 'cpu_milli', 'memory_mib', 'gpu', 'model'], LIMITS.maxFleetNodes);
  const col = (n: string): number => header.indexOf(n);
  const [sn, cpu, mem, gpu, model] = [col('sn'), col('cpu_milli'), col('memory_mib'), col('gpu'), col('model')];
  const seen = new Set<string>();
  return rows.map(({ line, cells }) => {
    // readTable checked that the header has every column read here and each row the header's length.
    const id = cells[sn]!;
    if (id === '') bad(file, line, 'sn', 'empty node name');
    if (seen.has(id)) bad(file, line, 'sn', `node ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    const gpus = int(file, line, 'gpu', cells[gpu]!, 0, LIMITS.maxGpus);
    let m = cells[model]!;
    if (gpus === 0 && m === 'NaN') m = '';
    if (gpus > 0 && m === '') bad(file, line, 'model', 'empty GPU model on a node with GPUs');
    return { id, cpu: int(file, line, 'cpu_milli', cells[cpu]!, 0, MAX_INT), memoryMiB: int(file, line, 'memory_mib', cells[mem]!, 0, MAX_INT), gpus, model: m, gpuMemory: DEFAULT_GPU_MEMORY };
  });
}

/** Parses a pod list CSV (creation order). */
export function parsePodCsv(file: string, text: string): Array<FleetPod & { milli: number; models: string[] }> {
  const { header, rows } = readTable(file, text, ['name', 'cpu_milli', 'memory_mib', 'num_gpu', 'gpu_milli'], LIMITS.maxFleetPods);
  const col = (n: string): number => header.indexOf(n);
  const [name, cpu, mem, num, milliCol, spec] = [col('name'), col('cpu_milli'), col('memory_mib'), col('num_gpu'), col('gpu_milli'), col('gpu_spec')];
  const seen = new Set<string>();
  return rows.map(({ line, cells }) => {
    // readTable checked that the header has every required column and each row the header's length;
    // gpu_spec is optional (-1 when absent).
    const id = cells[name]!;
    if (id === '') bad(file, line, 'name', 'empty pod name');
    if (seen.has(id)) bad(file, line, 'name', `pod ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    const gpus = int(file, line, 'num_gpu', cells[num]!, 0, LIMITS.maxGpus);
    let milli = int(file, line, 'gpu_milli', cells[milliCol]!, 0, 1000);
    if (gpus === 0) milli = 0;
    else if (milli === 0) bad(file, line, 'gpu_milli', 'expected 1..1000 for a GPU pod, got 0');
    else if (gpus > 1 && milli !== 1000) bad(file, line, 'gpu_milli', `expected 1000 for a pod of ${gpus} GPUs, got ${milli}`);
    const specText = spec < 0 ? '' : cells[spec]!;
    const models = specText === '' || gpus === 0 ? [] : specText.split('|');
    if (models.some((m) => m === '')) bad(file, line, 'gpu_spec', `empty model name in ${JSON.stringify(specText)}`);
    return { id, cpu: int(file, line, 'cpu_milli', cells[cpu]!, 0, MAX_INT), memoryMiB: int(file, line, 'memory_mib', cells[mem]!, 0, MAX_INT), gpus, milli, models };
  });
}
