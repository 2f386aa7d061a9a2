#!/usr/bin/env node
// simdformer command line: inspect a model, encode inputs, decode greedily.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { init } from './node.mjs';

const HELP = `simdformer — Transformer attention in WebAssembly SIMD

Usage:
  simdformer info     --model <file.safetensors> [--config <config.json>]
  simdformer encode   --model <file.safetensors> [--config <config.json>] --input <input.json>
                      [--attention <out.json>] [--mean] [--causal] [--score scaled-dot|dot|additive]
                      [--normalize softmax|relu] [--truncation] [--output <out.json>]
  simdformer generate --model <file.safetensors> [--config <config.json>] --input <src.json>
                      [--max-length N] [--attention <out.json>] [--output <out.json>]

Options:
  --simd auto|on|off   pick the wasm build (default: auto-detect SIMD128)
  --progress           report loading and decoding progress on stderr
  -h, --help           show this help

Input JSON: token ids ([3, 4, 5] or a batch [[3, 4], [5, 6, 7]]), vectors (n rows of d_model
numbers, or a batch of those), or an object {"input": ..., "paddingMask": ..., "memory": ...}
with any encode option. In masks, true/1 means masked (ignored).`;

class UsageError extends Error {}

function parse(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      model: { type: 'string' }, config: { type: 'string' }, input: { type: 'string' }, attention: { type: 'string' },
      output: { type: 'string' }, mean: { type: 'boolean' }, causal: { type: 'boolean' }, score: { type: 'string' },
      normalize: { type: 'string' }, truncation: { type: 'boolean' }, 'max-length': { type: 'string' },
      simd: { type: 'string' }, progress: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  return { command: positionals[0], extra: positionals.slice(1), ...values };
}

async function readJson(path, what) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} '${path}': ${e.code ?? e.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} '${path}' is not valid JSON: ${e.message}`);
  }
}

const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x) : Array.isArray(x) ? x.map(plain) : x && typeof x === 'object'
  ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)])) : x);

async function emit(value, path) {
  const text = JSON.stringify(plain(value));
  if (path) await writeFile(path, text + '\n');
  else process.stdout.write(text + '\n');
}

function progressPrinter(enabled) {
  if (!enabled) return undefined;
  return (p) => {
    const done = p.step ?? p.loaded, total = p.total;
    process.stderr.write(`\r${p.stage}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

async function main(argv) {
  const a = parse(argv);
  if (a.help || !a.command) { console.log(HELP); return a.help ? 0 : 2; }
  if (!['info', 'encode', 'generate'].includes(a.command)) throw new UsageError(`unknown command '${a.command}' (info, encode, generate)`);
  if (a.extra.length) throw new UsageError(`unexpected argument '${a.extra[0]}'`);
  if (!a.model) throw new UsageError('--model <file.safetensors> is required');
  const simd = { auto: 'auto', on: true, off: false }[a.simd ?? 'auto'];
  if (simd === undefined) throw new UsageError(`--simd must be auto, on or off, not '${a.simd}'`);
  const progress = a.progress || process.stderr.isTTY ? progressPrinter(true) : undefined;
  const sf = await init({ simd });
  const config = a.config ? await readJson(a.config, 'config') : undefined;

  if (a.command === 'info') {
    const description = await sf.inspect(a.model);
    const model = await sf.loadModel(a.model, config);
    await emit({ config: model.config, parameters: model.parameterCount, tensors: description.tensors,
                 runtime: { simd: sf.simd, arch: sf.arch, lanes: sf.lanes } });
    model.dispose();
    return 0;
  }
  if (!a.input) throw new UsageError('--input <input.json> is required');
  const input = await readJson(a.input, 'input');
  const model = await sf.loadModel(a.model, config, { onProgress: progress });
  try {
    const request = input && typeof input === 'object' && !Array.isArray(input) ? input : { input };
    const { input: sequences, ...fileOptions } = request;
    if (sequences === undefined) throw new UsageError(`input file has no "input" entry`);
    const options = { ...fileOptions };
    const want = a.attention ? (a.mean ? 'mean' : true) : false;
    if (want) options.returnAttention = want;
    if (a.score) options.score = a.score;
    if (a.normalize) options.normalize = a.normalize;
    const started = performance.now();
    let result;
    if (a.command === 'encode') {
      if (a.causal) options.causal = true;
      if (a.truncation) options.truncation = true;
      result = model.encode(sequences, options);
    } else {
      if (a['max-length'] !== undefined) options.maxLength = Number(a['max-length']);
      if (progress) options.onProgress = progress;
      result = model.generate(sequences, options);
    }
    const ms = performance.now() - started;
    const items = result.sequences ?? (Array.isArray(result) ? result : [result]);
    const strip = ({ attentions, crossAttentions, encoderAttentions, decoderAttentions, ...rest }) => rest;
    const attention = items.map(({ attentions, crossAttentions, encoderAttentions, decoderAttentions }) =>
      ({ attentions, crossAttentions, encoderAttentions, decoderAttentions }));
    await emit({ ms: Number(ms.toFixed(3)), results: items.map(strip) }, a.output);
    if (a.attention) await emit(attention, a.attention);
    return 0;
  } finally {
    model.dispose();
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
  if (e instanceof UsageError || e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    console.error(`simdformer: ${e.message}\nRun 'simdformer --help' for usage.`);
    process.exitCode = 2;
  } else {
    console.error(`simdformer: ${e?.message ?? e}`);
    process.exitCode = 1;
  }
});
