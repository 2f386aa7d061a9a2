// Command-line commands for single .safetensors files in simdformer's nn.Transformer format:
// info (also for files without a config: the tensor list), encode and generate.
import { writeFile } from 'node:fs/promises';

import { UsageError, count, json, table } from './format.mjs';
import { readRegularText } from '../node/files.mjs';

async function readJson(path, what) {
  let text;
  try {
    text = readRegularText(path);  // a FIFO or a folder is an error, never a hang
  } catch (e) {
    throw new UsageError(`cannot read ${what} '${path}': ${e.message}`);
  }
  if (text === null) throw new UsageError(`cannot read ${what} '${path}': ENOENT`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} '${path}' is not valid JSON: ${e.message}`);
  }
}

const requireModel = (a) => { if (!a.model) throw new UsageError('--model <file.safetensors> is required'); };

/** info for a .safetensors file: its tensors, and the model config when one is given or embedded. */
export async function fileInfo(sf, a, { out }) {
  const description = await sf.inspect(a.model);
  const config = a.config ? await readJson(a.config, 'config') : undefined;
  const hasConfig = config !== undefined || Object.hasOwn(description.metadata ?? {}, 'config');
  let model = null;
  if (hasConfig) model = await sf.loadModel(a.model, config);
  try {
    const runtime = { simd: sf.simd, arch: sf.arch, lanes: sf.lanes };
    if (a.json) {
      out(json({ config: model ? model.config : null, parameters: model ? model.parameterCount : description.parameters,
        tensors: description.tensors, metadata: description.metadata, runtime }));
      return 0;
    }
    const lines = [`${a.model}`];
    if (model) {
      const c = model.config;
      lines.push(`  ${c.model_type}: d_model ${c.d_model}, ${c.nhead} heads, feed-forward ${c.dim_feedforward}, `
        + `${c.num_encoder_layers} encoder / ${c.num_decoder_layers} decoder layers, ${count(model.parameterCount)} parameters`);
    } else {
      lines.push('  no config given (--config) or embedded in the file: tensors only');
    }
    lines.push(`  ${description.tensors.length} tensors, ${count(description.parameters)} values:`);
    lines.push(table(description.tensors.map((t) => [t.name, t.dtype, JSON.stringify(t.shape)]), '    '));
    lines.push(`  runtime: ${sf.simd ? 'SIMD128' : 'scalar'} (${sf.arch}, ${sf.lanes} lanes)`);
    out(lines.join('\n'));
    return 0;
  } finally {
    model?.dispose();
  }
}

// encode / generate: run the model on an input JSON file.
async function runModel(command, sf, a, { out, progress }) {
  requireModel(a);
  if (!a.input) throw new UsageError('--input <input.json> is required');
  const input = await readJson(a.input, 'input');
  const config = a.config ? await readJson(a.config, 'config') : undefined;
  const model = await sf.loadModel(a.model, config, { onProgress: progress });
  try {
    const request = input && typeof input === 'object' && !Array.isArray(input) ? input : { input };
    const { input: sequences, ...fileOptions } = request;
    if (sequences === undefined) throw new UsageError('input file has no "input" entry');
    const options = { ...fileOptions };
    if (a.attention) options.returnAttention = a.mean ? 'mean' : true;
    if (a.score) options.score = a.score;
    if (a.normalize) options.normalize = a.normalize;
    const started = performance.now();
    let result;
    if (command === 'encode') {
      if (a.causal) options.causal = true;
      if (a.truncation) options.truncation = true;
      result = model.encode(sequences, options);
    } else {
      if (a['max-length'] !== undefined) {
        const n = Number(a['max-length']);
        if (!Number.isSafeInteger(n)) throw new UsageError(`--max-length must be an integer, not '${a['max-length']}'`);
        options.maxLength = n;
      }
      if (progress) options.onProgress = progress;
      result = model.generate(sequences, options);
    }
    const ms = performance.now() - started;
    const items = result.sequences ?? (Array.isArray(result) ? result : [result]);
    const strip = ({ attentions, crossAttentions, encoderAttentions, decoderAttentions, ...rest }) => rest;
    const maps = items.map(({ attentions, crossAttentions, encoderAttentions, decoderAttentions }) =>
      ({ attentions, crossAttentions, encoderAttentions, decoderAttentions }));
    const report = { ms: Number(ms.toFixed(3)), results: items.map(strip) };
    if (a.output) await writeFile(a.output, json(report));
    if (a.attention) await writeFile(a.attention, json(maps));
    if (a.json) out(json(report));
    else out(summary(command, model, items, ms, a));
    return 0;
  } finally {
    model.dispose();
  }
}

function summary(command, model, items, ms, a) {
  const lines = [`${model.kind}, ${items.length} sequence(s), ${ms.toFixed(2)} ms`];
  items.forEach((r, i) => {
    if (command === 'generate') lines.push(`  ${i}: ${Array.from(r.tokens).join(' ')}`);
    else lines.push(`  ${i}: output [${r.shape.join(', ')}]  first values ${Array.from(r.output.subarray(0, 4), (x) => x.toFixed(4)).join(' ')}`);
  });
  if (a.output) lines.push(`results written to ${a.output}`);
  if (a.attention) lines.push(`attention maps written to ${a.attention}`);
  return lines.join('\n');
}

const MODEL_FILE = { model: { type: 'string', help: '--model <file>        the .safetensors file' } };
const CONFIG = { config: { type: 'string', help: '--config <file>       its config JSON (else the file\'s "config" metadata)' } };
const RUN_OPTIONS = {
  ...MODEL_FILE, ...CONFIG,
  input: { type: 'string', help: '--input <file>        JSON: token ids, vectors, a batch, or {"input": ..., options}' },
  output: { type: 'string', help: '--output <file>       also write the results as JSON to a file' },
  attention: { type: 'string', help: '--attention <file>    write every attention map as JSON to a file' },
  mean: { type: 'boolean', help: '--mean                with --attention: the mean over heads' },
  score: { type: 'string', help: '--score <kind>        scaled-dot | dot | additive' },
  normalize: { type: 'string', help: '--normalize <kind>    softmax | relu' },
};
const INPUT_NOTES = `Input JSON: token ids ([3, 4, 5] or a batch [[3, 4], [5, 6, 7]]), vectors (n rows of d_model
numbers, or a batch of those), or an object {"input": ..., "paddingMask": ..., "memory": ...}
with any option of model.encode / model.generate. In masks, true/1 means masked (ignored).`;

export const safetensorsCommands = {
  encode: {
    summary: 'run an nn.Transformer-format model on inputs from a JSON file',
    usage: ['--model <file.safetensors> [--config <config.json>] --input <input.json> [options]'],
    options: { ...RUN_OPTIONS,
      causal: { type: 'boolean', help: '--causal              causal self-attention mask' },
      truncation: { type: 'boolean', help: '--truncation          cut sequences longer than max_len' } },
    notes: INPUT_NOTES,
    run: (sf, a, io) => runModel('encode', sf, a, io),
  },
  generate: {
    summary: 'greedy decoding with an encoder-decoder model (nn.Transformer format)',
    usage: ['--model <file.safetensors> [--config <config.json>] --input <src.json> [--max-length N] [options]'],
    options: { ...RUN_OPTIONS, 'max-length': { type: 'string', help: '--max-length <n>      longest output, bos included (default 64)' } },
    notes: `${INPUT_NOTES}\nDecoding stops at the config's eos_token (the end-of-sequence id) or at --max-length.`,
    run: (sf, a, io) => runModel('generate', sf, a, io),
  },
};
