// Command-line commands for Hugging Face model folders: info (folders and .safetensors files),
// embed, fill-mask and generate (folders; .safetensors files go to the nn.Transformer generate).
import { stat } from 'node:fs/promises';

import { UsageError, count, json, preview, short, table } from './format.mjs';
import { readRegularText } from '../node/files.mjs';
import { fileInfo, safetensorsCommands } from './safetensors.mjs';

export const requireModel = (a, what = '<folder>') => { if (!a.model) throw new UsageError(`--model ${what} is required`); };

async function isFolder(path) {
  try {
    return (await stat(path)).isDirectory();
  } catch (e) {
    throw new UsageError(`cannot open '${path}': ${e.code ?? e.message}`);
  }
}

export const integerOption = (a, key, fallback) => {
  if (a[key] === undefined) return fallback;
  const n = Number(a[key]);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${key} must be a positive integer, not '${a[key]}'`);
  return n;
};

/** An option that may be 0 (strides): an integer >= 0 written in decimal ('' is not 0). */
export const countOption = (a, key) => {
  if (a[key] === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(a[key]) || !Number.isSafeInteger(Number(a[key]))) throw new UsageError(`--${key} must be an integer >= 0, not '${a[key]}'`);
  return Number(a[key]);
};

// --text (repeatable) and --input <file> (one text per line) -> texts.
export async function texts(a) {
  const list = [...(a.text ?? [])];
  if (a.input) {
    let content;
    try {
      content = readRegularText(a.input);  // a FIFO or a folder is an error, never a hang
    } catch (e) {
      throw new UsageError(`cannot read --input '${a.input}': ${e.message}`);
    }
    if (content === null) throw new UsageError(`cannot read --input '${a.input}': ENOENT`);
    list.push(...content.split(/\r?\n/).filter((line) => line.trim() !== ''));
  }
  if (!list.length) throw new UsageError('give the text with --text "..." (repeatable) or --input <file> (one text per line)');
  return list;
}

async function folderInfo(sf, a, { out, progress }) {
  const model = await sf.loadPretrained(a.model, { onProgress: progress });
  try {
    const i = model.info;
    if (a.json) {
      out(json({ ...i, maxLength: model.maxLength, tokenizer: { vocabSize: model.tokenizer.vocabSize, maskToken: model.tokenizer.maskToken },
        runtime: { simd: sf.simd, arch: sf.arch, lanes: sf.lanes } }));
      return 0;
    }
    const heads = [i.has_pooler && 'pooler', i.has_mlm_head && 'masked-LM head', i.has_lm_head && 'LM head',
      i.has_classifier && `sequence classifier (${i.labels.join(', ')})`, i.has_token_classifier && `token classifier (${i.labels.join(', ')})`,
      i.has_qa_head && 'question answering'].filter(Boolean);
    out([
      `${a.model}`,
      table([
        ['architecture', `${i.architecture} (${i.config?.architectures?.join(', ') ?? i.model_type})`],
        ['size', `${i.n_layers} layers, d_model ${i.d_model}, ${i.n_heads} heads, feed-forward ${i.d_ff}, ${i.hidden_act}`],
        ['parameters', `${count(i.parameters)} (stored as ${i.dtype}, running in ${i.weights})`],
        ['vocabulary', `${i.vocab_size} rows; tokenizer ${model.tokenizer.vocabSize} tokens${model.tokenizer.maskToken ? `, mask ${model.tokenizer.maskToken}` : ''}`],
        ['max length', `${model.maxLength} tokens`],
        ['heads', heads.length ? heads.join(', ') : 'none (encoder only)'],
        ['runtime', `${sf.simd ? 'SIMD128' : 'scalar'} (${sf.arch}, ${sf.lanes} lanes)`],
      ]),
    ].join('\n'));
    return 0;
  } finally {
    model.dispose();
  }
}

async function embed(sf, a, { out, progress }) {
  requireModel(a);
  const list = await texts(a);
  const pooling = a.pooling ?? undefined;
  if (pooling !== undefined && !['mean', 'cls', 'max'].includes(pooling)) throw new UsageError(`--pooling must be mean, cls or max, not '${pooling}'`);
  const model = await sf.loadPretrained(a.model, { onProgress: progress });
  try {
    const maxLength = integerOption(a, 'max-length', model.maxLength);
    const started = performance.now();
    const vectors = model.embed(list, { normalize: a['no-normalize'] !== true, maxLength, ...(pooling ? { pooling } : {}) });
    const ms = performance.now() - started;
    const encoded = model.tokenizer.encodeBatch(list, maxLength).sequences;
    if (a.json) {
      out(json({ model: a.model, dimensions: vectors[0].length, ms: Number(ms.toFixed(3)),
        embeddings: vectors, tokens: encoded.map((s) => s.length), truncated: encoded.map((s) => s.truncated) }));
      return 0;
    }
    const lines = [`${list.length} text(s) -> ${vectors[0].length}-dimensional embeddings in ${ms.toFixed(1)} ms`];
    list.forEach((t, i) => {
      const cut = encoded[i].truncated ? `, cut from ${encoded[i].originalLength}` : '';
      lines.push(`  ${i}: ${JSON.stringify(short(t))} (${encoded[i].length} tokens${cut})`, `     ${preview(vectors[i])}`);
    });
    if (list.length > 1) {
      lines.push('cosine similarity:');
      const cos = (u, v) => u.reduce((s, x, k) => s + x * v[k], 0) / (Math.hypot(...u) * Math.hypot(...v));
      lines.push(table([['', ...list.map((_, j) => String(j))], ...vectors.map((u, i) => [String(i), ...vectors.map((v) => cos(u, v).toFixed(3))])]));
    }
    out(lines.join('\n'));
    return 0;
  } finally {
    model.dispose();
  }
}

async function fillMask(sf, a, { out, progress }) {
  requireModel(a);
  const list = await texts(a);
  const model = await sf.loadPretrained(a.model, { onProgress: progress });
  try {
    const topK = integerOption(a, 'top-k', 5);
    const results = model.fillMask(list, { topK });
    if (a.json) {
      out(json(results.map((r, i) => ({ text: list[i], truncated: r.truncated, masks: r.masks }))));
      return 0;
    }
    const lines = [];
    results.forEach((r, i) => {
      lines.push(`${JSON.stringify(short(list[i], 72))}${r.truncated ? ` (cut to ${model.maxLength} tokens)` : ''}`);
      r.masks.forEach((m, k) => {
        if (r.masks.length > 1) lines.push(`  mask ${k + 1} (token ${m.index}):`);
        lines.push(table(m.predictions.map((p, rank) => [`${rank + 1}.`, JSON.stringify(p.token), p.score.toFixed(4), short(p.sequence, 60)]),
          r.masks.length > 1 ? '    ' : '  '));
      });
    });
    out(lines.join('\n'));
    return 0;
  } finally {
    model.dispose();
  }
}

const numberOption = (a, key) => {
  if (a[key] === undefined) return undefined;
  const n = Number(a[key]);
  if (a[key].trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${key} must be a number, not '${a[key]}'`);
  return n;
};

// generate --model <folder>: the prompt, then the continuation printed as it is generated.
async function textGenerate(sf, a, { out, write, progress }) {
  const prompts = a.prompt ?? [];
  if (!prompts.length) throw new UsageError('give the prompt with --prompt "..." (repeat for a batch)');
  for (const k of ['input', 'config', 'output', 'attention', 'mean', 'score', 'normalize', 'max-length']) {
    if (a[k] !== undefined) throw new UsageError(`--${k} is for .safetensors models; a folder takes --prompt (see --help)`);
  }
  let seed;
  if (a.seed !== undefined) {
    seed = Number(a.seed);
    if (a.seed.trim() === '' || !Number.isSafeInteger(seed) || seed < 0) throw new UsageError(`--seed must be an integer >= 0, not '${a.seed}'`);
  }
  if (a.system !== undefined && !a.chat) throw new UsageError('--system goes with --chat (the prompt is then a user message)');
  const model = await sf.loadPretrained(a.model, { onProgress: progress });
  try {
    // --stop adds to the model's eos ids (generation_config.json's, as the default stops), as
    // HF's stop_strings add to eos_token_id.
    const stop = a.stop ? [...model.eosTokenIds, ...a.stop] : undefined;
    // --chat: each prompt is a user message (after the --system one), rendered by the model's chat template.
    const conversation = (text) => [...(a.system !== undefined ? [{ role: 'system', content: a.system }] : []), { role: 'user', content: text }];
    const inputs = a.chat ? prompts.map(conversation) : prompts;
    const options = {
      maxNewTokens: integerOption(a, 'max-new-tokens', undefined), temperature: numberOption(a, 'temperature'),
      topK: integerOption(a, 'top-k', undefined), topP: numberOption(a, 'top-p'), seed, stop,
    };
    for (const k of Object.keys(options)) if (options[k] === undefined) delete options[k];
    const started = performance.now();
    if (a.json || prompts.length > 1) {
      const results = await model.generateText(inputs.length > 1 ? inputs : inputs[0], options);
      const ms = performance.now() - started;
      const list = Array.isArray(results) ? results : [results];
      if (a.json) {
        out(json({ model: a.model, ms: Number(ms.toFixed(3)), results: list.map((r, i) => ({ prompt: prompts[i], ...r })) }));
      } else {
        list.forEach((r, i) => out(`${prompts[i]}${r.text}\n  (${r.ids.length} tokens, ${r.finishReason})`));
      }
      return 0;
    }
    // One prompt: stream the continuation token by token.
    write(a.chat ? `> ${prompts[0]}\n` : prompts[0]);
    let first = 0, r;
    try {
      r = await model.generateText(inputs[0], { ...options, onToken: (e) => { if (!first) first = performance.now(); write(e.text); } });
    } catch (e) {
      write('\n');  // end the streamed line, so the error (stderr) starts a line of its own
      throw e;
    }
    const ms = performance.now() - started, after = first ? performance.now() - first : 0;
    write('\n');
    const rate = r.ids.length > 1 && after > 0 ? `, ${((r.ids.length - 1) / (after / 1000)).toFixed(1)} tokens/s after the first` : '';
    process.stderr.write(`[${r.ids.length} tokens in ${ms.toFixed(0)} ms${rate}; ${r.finishReason}${r.seed !== undefined ? `; seed ${r.seed}` : ''}]\n`);
    return 0;
  } finally {
    model.dispose();
  }
}

export const FOLDER = { model: { type: 'string', help: '--model <folder>      a Hugging Face folder (config.json, model.safetensors, tokenizer.json)' } };
export const TEXT = {
  text: { type: 'string', multiple: true, help: '--text <text>         a text (repeat for several)' },
  input: { type: 'string', help: '--input <file>        a file with one text per line' },
  'max-length': { type: 'string', help: '--max-length <n>      cut longer texts (tokens, special tokens included; default: the model\'s)' },
};

// generate: Hugging Face folders here, .safetensors files in simdformer's nn.Transformer format
// through the encoder-decoder generate of cli-safetensors.mjs.
const fileGenerate = safetensorsCommands.generate;
export const generateCommand = {
  summary: 'continue a text with a causal LM folder (GPT-2, Llama, Qwen2, Mistral), or decode with an nn.Transformer .safetensors model',
  usage: ['--model <folder> --prompt "Once upon a time" [--max-new-tokens 20] [--temperature 0.8 --top-p 0.9 --seed 1]',
    '--model <folder> --chat --prompt "What is attention?" [--system "You are brief."]',
    ...fileGenerate.usage],
  options: {
    ...fileGenerate.options,
    model: { type: 'string', help: '--model <path>        a Hugging Face folder (GPT-2, Llama, Qwen2, Mistral), or an nn.Transformer .safetensors file' },
    chat: { type: 'boolean', help: '--chat                the prompt is a user message, rendered by the folder\'s chat template' },
    system: { type: 'string', help: '--system <text>       with --chat: a system message first' },
    prompt: { type: 'string', multiple: true, help: '--prompt <text>       the text to continue (repeat for a batch)' },
    'max-new-tokens': { type: 'string', help: '--max-new-tokens <n>  tokens to add at most (default 20)' },
    temperature: { type: 'string', help: '--temperature <t>     sample with this temperature (default: greedy)' },
    'top-k': { type: 'string', help: '--top-k <k>           sample among the k most likely tokens' },
    'top-p': { type: 'string', help: '--top-p <p>           sample among the most likely tokens whose probabilities reach p' },
    seed: { type: 'string', help: '--seed <n>            seed of the sampler (the same seed repeats a run)' },
    stop: { type: 'string', multiple: true, help: '--stop <text>         also stop once the continuation contains this text (repeatable)' },
  },
  notes: `Folders: the prompt is printed, then the continuation as it is generated; the count of tokens, the speed and
why it stopped go to stderr. It stops at the model's end-of-text token, a --stop text or --max-new-tokens.
.safetensors files: ${fileGenerate.notes}`,
  run: async (sf, a, io) => {
    requireModel(a, '<folder or file.safetensors>');
    if (await isFolder(a.model)) return textGenerate(sf, a, io);
    for (const k of ['prompt', 'max-new-tokens', 'temperature', 'top-k', 'top-p', 'seed', 'stop', 'chat', 'system']) {
      if (a[k] !== undefined) throw new UsageError(`--${k} is for Hugging Face folders (GPT-2, Llama, ...); a .safetensors model takes --input`);
    }
    return fileGenerate.run(sf, a, io);
  },
};

export const textCommands = {
  info: {
    summary: 'describe a model: a Hugging Face folder, or a .safetensors file (its tensors)',
    usage: ['--model <folder>', '--model <file.safetensors> [--config <config.json>]'],
    options: {
      model: { type: 'string', help: '--model <path>        a Hugging Face folder or a .safetensors file' },
      config: { type: 'string', help: '--config <file>       for a .safetensors file: its config JSON' },
    },
    run: async (sf, a, io) => {
      requireModel(a, '<folder or file.safetensors>');
      if (await isFolder(a.model)) {
        if (a.config) throw new UsageError('--config is for .safetensors files; a folder has its own config.json');
        return folderInfo(sf, a, io);
      }
      return fileInfo(sf, a, io);
    },
  },
  embed: {
    summary: 'sentence embeddings (mean pooling + L2 normalisation, as sentence-transformers)',
    usage: ['--model <folder> --text <text> [--text <text> ...] [options]', '--model <folder> --input <texts.txt> [options]'],
    options: { ...FOLDER, ...TEXT,
      'no-normalize': { type: 'boolean', help: '--no-normalize        keep the pooled vector as it is (no L2 normalisation)' },
      pooling: { type: 'string', help: '--pooling <mode>      mean | cls | max (default: the folder\'s 1_Pooling, else mean)' } },
    run: embed,
  },
  'fill-mask': {
    summary: 'predict the masked tokens ([MASK] or <mask>) of a text, with probabilities',
    usage: ['--model <folder> --text "The capital of France is [MASK]." [--top-k 5]'],
    options: { ...FOLDER, ...TEXT, 'top-k': { type: 'string', help: '--top-k <n>           predictions per mask (default 5)' } },
    notes: 'Needs a checkpoint with a masked-language-model head (BertForMaskedLM, RobertaForMaskedLM, ...).',
    run: fillMask,
  },
};
