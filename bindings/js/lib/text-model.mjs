// TextModel: a Hugging Face checkpoint (BERT, RoBERTa, DistilBERT, GPT-2, Llama, Qwen2, Mistral)
// with its tokenizer,
// loaded by Simdformer.loadPretrained. Text in; tokens with offsets, hidden states, attention
// maps, sentence embeddings, masked-token predictions, text classification, entities, answers,
// zero-shot labels, reranked documents and generated text out.
//
// One rule for re-entrancy: while generateText runs (until its promise settles), every other
// call on the model (encodeText, embed, fillMask, classify, tokenClassify, answer, zeroShot, rerank,
// attentionSteps, generateText, dispose) throws
// SimdformerError code 'busy' (call-guard.mjs),
// from its onToken callback or from anywhere else; it would reuse the workspace that holds the
// generation's key/value cache. Stop a generation first (return false from onToken, or abort its
// signal), await it, then call the model.
import { ENCODER_MAPS, readAttentionMaps } from './attention-maps.mjs';
import { decidingAttention } from './attention-rollout.mjs';
import { headSteps, probeLayout, scoreScale } from './attention-steps.mjs';
import { CallGuard } from './call-guard.mjs';
import { classificationScores, defaultFunction, functionToApply, headsOf, rankLabels, topK } from './classification.mjs';
import { check, fail, translateInternalErrors } from './errors.mjs';
import { CallHeap, copyF32 } from './heap.mjs';
import { disposable, disposeHandle, liveHandle, watch } from './lifetime.mjs';
import { boolean, describe, integer, oneOf, readOptions } from './options.mjs';
import { runInLengthGroups } from './length-groups.mjs';
import { l2Normalize, pool, softmaxTopK } from './pooling.mjs';
import * as tasks from './task-heads.mjs';
import { textItems } from './text-inputs.mjs';
import { defaultStopIds, generateText } from './text-generation.mjs';
import { renderChat } from './chat-template.mjs';

// info is the model's own and handed out as is (model.info): frozen whole, not only at the top.
// Its lists and objects (eos_token_ids, config with label2id and architectures, rotary) are read
// by every later call, and a caller that pushed to model.info.eos_token_ids made every
// generateText fail ('stop token 999999 is outside [0, 1057)'), or changed zeroShot's entailment
// label or a cross-encoder's activation through model.info.config.
function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class TextModel {
  #module;
  #handle;
  #info;
  #tokenizer;
  #pooling;
  #chat;
  #generation;
  #guard = new CallGuard();

  /**
   * pooling: {mode: 'mean' | 'cls' | 'max', normalize: boolean, maxSeqLength: number | null, lowerCase: boolean} from the folder (sentence-transformers files);
   * chat: the folder's chat templates (chat-template.mjs) or null; generation: generation_config.json's ids.
   */
  constructor(module, handle, info, tokenizer, pooling, { chat = null, generation = {} } = {}) {
    this.#module = module;
    this.#handle = handle;
    this.#info = deepFreeze(info);
    this.#tokenizer = tokenizer;
    this.#pooling = pooling;
    this.#chat = chat;
    this.#generation = Object.freeze({ ...generation });
    watch(this, `a ${info.architecture} model`);
  }

  /** The normalized config (architecture, d_model, n_layers, ...; `config` = the original config.json). */
  get info() { return this.#info; }
  get architecture() { return this.#info.architecture; }
  get parameterCount() { return this.#info.parameters; }
  /** Longest input in tokens, special tokens included. */
  get maxLength() { return this.#tokenizer.maxLength; }
  get tokenizer() { return this.#tokenizer; }
  get disposed() { return this.#handle === null; }

  dispose() { this.#handle = disposeHandle(this, this.#guard, this.#handle); }

  #live() { return liveHandle(this.#handle, 'this model'); }

  #maxLengthOption() { return integer(1, this.#tokenizer.maxLength, this.#tokenizer.maxLength); }

  // Tokenizes and runs one batch.
  #run(items, maxLength, needs) {
    const enc = this.#tokenizer.encodeBatch(items, maxLength);
    this.#forward(enc, needs);
    return enc;
  }

  // Runs a tokenized batch. logitsRows: flat row indices b * n + i whose MLM scores to keep.
  // probe: {layer, ptr} — copy that layer's q, k, v and context (rotary: and q, k before the
  // rotation) to ptr [B * n * probeLayout(info).width].
  #forward(enc, { needWeights = false, needPooler = false, needClassifier = false, needTokenLogits = false, logitsRows = null, probe = null } = {}) {
    const h = this.#live();
    // Only empty texts, and a tokenizer that adds no special tokens: nothing to run the model on
    // (the engine would refuse its nSeq of 0, a name the caller never gave).
    if (enc.nSeq === 0) fail('the input has no tokens: its texts are empty and this tokenizer adds no special tokens');
    const usesTypes = this.#info.type_vocab_size > 1;
    const heap = new CallHeap(this.#module);
    try {
      check(h.forwardText({
        nBatch: enc.nBatch, nSeq: enc.nSeq,
        tokens: heap.i32(enc.ids),                                  // [B, n]
        tokenTypes: usesTypes ? heap.i32(enc.typeIds) : 0,          // [B, n] or 0
        attentionMask: heap.u8(enc.attentionMask),                  // [B, n], 1 = real token
        needWeights, needPooler, needClassifier, needTokenLogits,
        logitsRows: logitsRows ? heap.i32(Int32Array.from(logitsRows)) : 0, nLogitsRows: logitsRows ? logitsRows.length : 0,
        probeOut: probe ? probe.ptr : 0, probeLayer: probe ? probe.layer : 0,
      }));
    } finally {
      heap.free();
    }
    if (!usesTypes) for (const s of enc.sequences) s.typeIds.fill(0);  // what the model saw
  }

  #hidden(rows) {
    const h = this.#live();
    return copyF32(this.#module, h.output(), rows * this.#info.d_model);  // [B * n, d]
  }

  /**
   * Tokenizes and encodes text: a string, or an array of strings and [text, textPair] pairs.
   * Per text: tokens, ids, typeIds, offsets, sequenceIds, the truncation report, the last
   * hidden state [length, d], the pooler output (models with a pooler) and, with
   * returnAttention, attentions[layer][head] cropped to the real tokens.
   */
  encodeText(input, options) {
    return this.#guard.run('encodeText', () => this.#encodeText(input, options));
  }

  #encodeText(input, options) {
    const o = readOptions(options, { returnAttention: oneOf([true, 'mean', false], false), maxLength: this.#maxLengthOption() }, 'encodeText');
    const { items, batch } = textItems(input, 'encodeText');
    const needPooler = this.#info.has_pooler === true;
    const enc = this.#run(items, o.maxLength, { needWeights: o.returnAttention !== false, needPooler });
    const h = this.#live();
    const d = this.#info.d_model, n = enc.nSeq;
    const hidden = this.#hidden(enc.nBatch * n);
    const pooler = needPooler ? copyF32(this.#module, h.pooler(), enc.nBatch * d) : null;
    const lengths = enc.sequences.map((s) => s.length);
    const maps = o.returnAttention ? readAttentionMaps(this.#module, h, ENCODER_MAPS, this.#info.n_layers, lengths, lengths, o.returnAttention) : null;
    const results = enc.sequences.map((s, b) => ({
      tokens: s.tokens, ids: s.ids, typeIds: s.typeIds, offsets: s.offsets, sequenceIds: s.sequenceIds,
      length: s.length, truncated: s.truncated, originalLength: s.originalLength,
      lastHiddenState: hidden.slice(b * n * d, (b * n + s.length) * d), shape: [s.length, d],
      ...(pooler ? { pooler: pooler.slice(b * d, (b + 1) * d) } : {}),
      ...(maps ? { attentions: maps[b] } : {}),
    }));
    return batch ? results : results[0];
  }

  /**
   * The step-by-step view of one attention head for one text: the engine's q, k, v and output
   * b_i = Σ_j α_ij v_j (each [length, dHead], row i = token i), its weights α [length, length],
   * the scores q_i·k_j·scale they came from (masked ones -Infinity) and the mask (1 = visible).
   */
  attentionSteps(text, options) {
    return this.#guard.run('attentionSteps', () => this.#attentionSteps(text, options));
  }

  #attentionSteps(text, options) {
    const { n_layers: layers, n_heads: heads } = this.#info;
    const o = readOptions(options, { layer: integer(0, layers - 1, 0), head: integer(0, heads - 1, 0), maxLength: this.#maxLengthOption() },
      'attentionSteps');
    const { items, batch } = textItems(text, 'attentionSteps', { pairs: false });
    if (batch) fail('attentionSteps: give one text (a string)');
    const enc = this.#tokenizer.encodeBatch(items, o.maxLength);
    const n = enc.nSeq, layout = probeLayout(this.#info);
    const heap = new CallHeap(this.#module);
    let probe;
    try {
      const ptr = heap.alloc(n * layout.width * 4);
      this.#forward(enc, { needWeights: true, probe: { layer: o.layer, ptr } });
      probe = copyF32(this.#module, ptr, n * layout.width);
    } finally {
      heap.free();
    }
    const maps = readAttentionMaps(this.#module, this.#live(), ENCODER_MAPS, layers, [n], [n], true)[0];
    const s = enc.sequences[0];
    return {
      tokens: s.tokens, ids: s.ids, offsets: s.offsets, truncated: s.truncated, originalLength: s.originalLength,
      layer: o.layer, head: o.head, causal: this.#info.causal === true,
      ...headSteps(probe, maps[o.layer][o.head], {
        n, layout, nHeads: heads, head: o.head, scale: scoreScale(this.#info, o.layer), causal: this.#info.causal === true,
      }),
    };
  }

  /**
   * Sentence embeddings: mean over the tokens with attention_mask = 1 (or the folder's
   * sentence-transformers pooling), then L2-normalised unless normalize: false. Texts longer than
   * maxLength are cut as Hugging Face does (truncation: false makes that an error instead).
   */
  embed(input, options) {
    return this.#guard.run('embed', () => this.#embed(input, options));
  }

  #embed(input, options) {
    // sentence-transformers cuts texts at the Transformer module's max_seq_length (when the folder
    // has one and the model allows it), lowercased first when its do_lower_case says so.
    const limit = this.#tokenizer.maxLength, folderLimit = this.#pooling.maxSeqLength;
    const o = readOptions(options, {
      normalize: boolean(this.#pooling.normalize), pooling: oneOf(['mean', 'cls', 'max'], this.#pooling.mode),
      maxLength: integer(1, limit, folderLimit ? Math.min(folderLimit, limit) : limit), truncation: boolean(true),
      batchSize: integer(1, 4096, 32),
    }, 'embed');
    const given = textItems(input, 'embed', { allowEmpty: true });
    const lower = (t) => (typeof t === 'string' ? t.toLowerCase() : t.map((x) => x.toLowerCase()));
    const { batch } = given;
    const items = this.#pooling.lowerCase ? given.items.map(lower) : given.items;
    const sequences = items.map((x) => this.#tokenizer.encodeOne(x, o.maxLength));
    sequences.forEach((s, i) => {
      if (s.truncated && !o.truncation) {
        fail(`embed: text ${i} has ${s.originalLength} tokens, more than maxLength ${o.maxLength} (truncation: true cuts it)`);
      }
    });
    // Texts of similar lengths together, each group padded to its own longest (length-groups.mjs).
    const out = runInLengthGroups(this.#tokenizer, sequences, o.batchSize, (enc) => {
      this.#forward(enc);
      const vectors = pool(this.#hidden(enc.nBatch * enc.nSeq), enc.nSeq, this.#info.d_model, enc.sequences.map((s) => s.length), o.pooling);
      return o.normalize ? vectors.map(l2Normalize) : vectors;
    });
    return batch ? out : out[0];
  }

  /**
   * Masked-token prediction (models with an MLM head), as Hugging Face's fill-mask pipeline: for
   * each mask token of the text, the topK tokens with their softmax probabilities and the text
   * with that mask filled in.
   */
  fillMask(input, options) {
    return this.#guard.run('fillMask', () => this.#fillMask(input, options));
  }

  #fillMask(input, options) {
    if (!this.#info.has_mlm_head) {
      fail(`fillMask needs a masked-language-model head; this ${this.#info.architecture} checkpoint has none (load a ...ForMaskedLM checkpoint)`, 'unsupported');
    }
    const tok = this.#tokenizer;
    if (tok.maskId === null) fail('fillMask: the tokenizer has no mask token', 'unsupported');
    const o = readOptions(options, { topK: integer(1, this.#info.vocab_size, 5), maxLength: this.#maxLengthOption() }, 'fillMask');
    const { items, batch } = textItems(input, 'fillMask', { pairs: false });
    const enc = tok.encodeBatch(items, o.maxLength);  // to find the mask positions first
    const rows = [];
    enc.sequences.forEach((s, b) => {
      const found = [];
      s.ids.forEach((id, i) => { if (id === tok.maskId) found.push(i); });
      if (!found.length) fail(`fillMask: text ${b} has no ${tok.maskToken} token${s.truncated ? ' (it may have been cut: the text is longer than maxLength)' : ''}`);
      for (const i of found) rows.push([b, i]);
    });
    this.#forward(enc, { logitsRows: rows.map(([b, i]) => b * enc.nSeq + i) });
    const h = this.#live();
    const vocab = h.logitsCols();
    const logits = copyF32(this.#module, h.logits(), rows.length * vocab);  // [rows, vocab]
    const results = enc.sequences.map((s) => ({
      tokens: s.tokens, ids: s.ids, offsets: s.offsets, truncated: s.truncated, originalLength: s.originalLength, masks: [],
    }));
    rows.forEach(([b, i], r) => {
      const s = enc.sequences[b];
      const predictions = softmaxTopK(logits.subarray(r * vocab, (r + 1) * vocab), o.topK).map(({ id, score }) => {
        const filled = Array.from(s.ids);
        filled[i] = id;
        return { id, token: tok.decode([id]), score, sequence: tok.decode(filled, { skipSpecialTokens: true }) };
      });
      results[b].masks.push({ index: i, predictions });
    });
    return batch ? results : results[0];
  }

  /**
   * Text classification (a ...ForSequenceClassification checkpoint), as Hugging Face's
   * text-classification pipeline: per text the topK labels (default 1; null: all) with their
   * scores, highest first, after the pipeline's function (softmax for several labels, sigmoid for
   * multi-label models and one label, none for regression), and the raw logits. returnAttention
   * adds the tokens and what the deciding position (token 0) attends to: its row of every
   * layer's and head's weights and the attention rollout over the layers (attention-rollout.mjs).
   */
  classify(input, options) {
    return this.#guard.run('classify', () => this.#classify(input, options));
  }

  #classify(input, options) {
    const info = this.#info;
    if (!info.has_classifier) {
      const cls = Array.isArray(info.config?.architectures) ? ` (config architectures: ${info.config.architectures.join(', ')})` : '';
      fail(`classify: this checkpoint has no classification head; it has: ${headsOf(info)}${cls}; load a ...ForSequenceClassification checkpoint`, 'unsupported');
    }
    const o = readOptions(options, {
      topK: topK(1), functionToApply: functionToApply(), maxLength: this.#maxLengthOption(), batchSize: integer(1, 4096, 32),
      returnAttention: boolean(false),
    }, 'classify');
    const { items, batch } = textItems(input, 'classify', { allowEmpty: true });
    const fn = o.functionToApply ?? defaultFunction(info.problem_type, info.num_labels);
    const L = info.num_labels;
    const sequences = items.map((x) => this.#tokenizer.encodeOne(x, o.maxLength));
    // Texts of similar lengths together, each group padded to its own longest (length-groups.mjs).
    const out = runInLengthGroups(this.#tokenizer, sequences, o.batchSize, (enc) => {
      this.#forward(enc, { needClassifier: true, needWeights: o.returnAttention });
      const logits = copyF32(this.#module, this.#live().classifierLogits(), enc.nBatch * L);  // [B, L]
      const lengths = enc.sequences.map((s) => s.length);
      const maps = o.returnAttention ? readAttentionMaps(this.#module, this.#live(), ENCODER_MAPS, info.n_layers, lengths, lengths, true) : null;
      return enc.sequences.map((s, b) => {
        const row = logits.slice(b * L, (b + 1) * L);
        return {
          predictions: rankLabels(classificationScores(row, fn), info.labels, o.topK),
          logits: row, truncated: s.truncated, originalLength: s.originalLength,
          // Every head reads token 0 ([CLS], <s>): BERT's pooler and RoBERTa's / DistilBERT's heads.
          ...(maps ? { tokens: s.tokens, attention: decidingAttention(maps[b], s.length, 0) } : {}),
        };
      });
    });
    return batch ? out : out[0];
  }

  /** Whether the folder has a chat template (tokenizer_config.json or chat_template.jinja). */
  get hasChatTemplate() { return this.#chat !== null; }

  /**
   * The ids generateText stops at by default (any of them): generation_config.json's eos_token_id
   * (one or a list), else config.json's; a copy. Give them with your own `stop` to keep them.
   */
  get eosTokenIds() { return [...defaultStopIds(this.#info, this.#generation)]; }

  // What the task calls of task-heads.mjs need of the model.
  #taskContext() {
    return {
      info: this.#info, tokenizer: this.#tokenizer, maxLength: this.#maxLengthOption(),
      forward: (enc, needs) => this.#forward(enc, needs),
      tokenLogits: (rows, cols) => copyF32(this.#module, this.#live().tokenLogits(), rows * cols),
      classifierLogits: (rows) => copyF32(this.#module, this.#live().classifierLogits(), rows * this.#info.num_labels),
    };
  }

  /**
   * Token classification (a ...ForTokenClassification checkpoint), as the token-classification
   * pipeline: per text its entities, {entity, score, index, word, start, end} per token
   * (aggregation 'none') or {entityGroup, score, word, start, end} per group; labels in
   * ignoreLabels (default ['O']) left out.
   */
  tokenClassify(input, options) {
    return this.#guard.run('tokenClassify', () => tasks.tokenClassify(this.#taskContext(), input, options));
  }

  /**
   * Extractive question answering (a ...ForQuestionAnswering checkpoint), as the
   * question-answering pipeline: {answer, score, start, end} (topK > 1: an array, best first).
   */
  answer(question, context, options) {
    return this.#guard.run('answer', () => tasks.answer(this.#taskContext(), question, context, options));
  }

  /**
   * Zero-shot classification with an NLI model (a ...ForSequenceClassification checkpoint with
   * an entailment label), as the zero-shot-classification pipeline: {sequence, labels, scores}.
   */
  zeroShot(input, labels, options) {
    return this.#guard.run('zeroShot', () => tasks.zeroShot(this.#taskContext(), input, labels, options));
  }

  /** Reranking with a one-label cross-encoder: [{index, score}] of the documents, highest first. */
  rerank(query, documents, options) {
    return this.#guard.run('rerank', () => tasks.rerank(this.#taskContext(), query, documents, options));
  }

  /**
   * Renders a conversation ([{role, content}, ...]) with the folder's chat template, as
   * tokenizer.apply_chat_template(messages, add_generation_prompt=...) does: the prompt text, or
   * with tokenize: true its ids (no special tokens added: the template writes its own).
   * options: {addGenerationPrompt, tokenize, tools, documents, template, variables}.
   */
  applyChatTemplate(messages, options) {
    return this.#guard.runAsync('applyChatTemplate', async () => {
      this.#live();
      if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
        fail(`applyChatTemplate: options must be an object, got ${describe(options)}`);
      }
      // tokenize read as an own property (the rest are read so by renderChat): Object.prototype's is none.
      const { tokenize: given, ...rest } = options ?? {};
      const tokenize = options !== undefined && Object.hasOwn(options, 'tokenize') && given !== undefined ? given : false;
      if (typeof tokenize !== 'boolean') fail(`applyChatTemplate: tokenize must be true or false, got ${typeof tokenize}`);
      const text = await renderChat(this.#chat, messages, rest, 'applyChatTemplate');
      return tokenize ? this.#tokenizer.encodeWithoutSpecialTokens(text) : text;
    });
  }

  /**
   * Continues a text (or token ids, a conversation, or a batch of any one kind) with a causal
   * language model (GPT-2, Llama, Qwen2, Mistral); a conversation goes through the chat template
   * with the generation prompt (options.chatTemplate: applyChatTemplate's options):
   * greedy by default; sampling with temperature / topK / topP and a seed. onToken(event) sees
   * every token as it is chosen; returning false stops, throwing rejects with that error, and an
   * aborted signal rejects with its reason. Resolves to {text, ids, tokens, promptIds,
   * finishReason: 'stop' | 'length' | 'cancelled', seed?, steps?} (steps with each token's
   * attention over its context when returnAttention is set).
   */
  generateText(input, options) {
    return this.#guard.runAsync('generateText', () => this.#generateText(input, options));
  }

  async #generateText(input, options) {
    const handle = this.#live();
    if (!this.#info.causal || !this.#info.has_lm_head) {
      fail(`generateText needs a causal language model (GPT-2, Llama, Qwen2, Mistral); this is a ${this.#info.architecture} model`, 'unsupported');
    }
    const ctx = { module: this.#module, handle, info: this.#info, tokenizer: this.#tokenizer, chat: this.#chat, generation: this.#generation };
    return generateText(ctx, input, options);
  }

}
disposable(TextModel);
translateInternalErrors(TextModel);
