// Hugging Face folders through loadPretrained: every source kind gives the same model; text in,
// hidden states / attentions / pooler / embeddings / fill-mask scores out, against the PyTorch
// reference in tests/data/hf/<case>/golden.safetensors (<= 1e-4, SIMD and scalar builds);
// broken folders fail with errors that name the problem; cancelled loads leave nothing behind.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { startServer } from '../../web/serve.mjs';
import { DATA, blockOf, maxAbsDiff, readTensors, rowsOf } from './helpers.mjs';

const HF = join(DATA, 'hf');
const TOL = 1e-4;
const folder = (name) => join(HF, name);
const texts = (name) => JSON.parse(readFileSync(join(HF, name, 'texts.json'), 'utf8'));
const ENCODERS = ['bert', 'bert_mlm_f16', 'bert_pretraining_bf16', 'bert_sharded', 'bert_relu_unigram', 'roberta', 'distilbert'];

// Files of a folder (one level of subfolders), as a browser's dropped folder would list them.
function filesOf(name) {
  const out = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) { walk(path, `${rel}${entry}/`); continue; }
      const file = new File([readFileSync(path)], entry);
      Object.defineProperty(file, 'webkitRelativePath', { value: `${name}/${rel}${entry}` });
      out.push(file);
    }
  };
  walk(folder(name), '');
  return out;
}

// The expected softmax probabilities of one logits row, in double precision.
function probabilities(row) {
  const max = row.reduce((m, x) => Math.max(m, x), -Infinity);
  const e = Array.from(row, (x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build: goldens`, async () => {
    const sf = await init({ simd });

    for (const name of ENCODERS) {
      test(`${name}: encodeText, embed${texts(name).batch[0].includes('MASK') || texts(name).batch[0].includes('<mask>') ? ', fillMask' : ''} match PyTorch`, async () => {
        const g = readTensors(join(folder(name), 'golden.safetensors'));
        const { batch, lengths } = texts(name);
        const model = await sf.loadPretrained(folder(name));
        const r = model.encodeText(batch, { returnAttention: true });
        assert.equal(r.length, batch.length);
        r.forEach((s, b) => {
          const len = lengths[b];
          assert.equal(s.length, len);
          assert.deepEqual(Array.from(s.ids), g.input_ids.data.slice(b * g.input_ids.shape[1], b * g.input_ids.shape[1] + len));
          if (g.token_type_ids) assert.deepEqual(Array.from(s.typeIds), g.token_type_ids.data.slice(b * g.token_type_ids.shape[1], b * g.token_type_ids.shape[1] + len));
          assert.ok(maxAbsDiff(s.lastHiddenState, rowsOf(g.last_hidden_state, b, len)) <= TOL, `${name} hidden ${b}`);
          assert.equal(s.attentions.length, model.info.n_layers);
          s.attentions.forEach((heads, l) => heads.forEach((h, hi) => {
            assert.deepEqual(h.shape, [len, len]);
            assert.ok(maxAbsDiff(h.data, blockOf(g[`attentions.${l}`], b, hi, len)) <= TOL, `${name} layer ${l} head ${hi} item ${b}`);
          }));
          if (g.pooler_output) assert.ok(maxAbsDiff(s.pooler, g.pooler_output.data.slice(b * 32, (b + 1) * 32)) <= TOL, `${name} pooler ${b}`);
          else assert.equal(s.pooler, undefined);
        });
        const e = model.embed(batch);
        e.forEach((v, b) => assert.ok(maxAbsDiff(v, g.sentence_embedding.data.slice(b * 32, (b + 1) * 32)) <= TOL, `${name} embedding ${b}`));
        if (model.info.has_mlm_head) {
          const mask = model.tokenizer.maskId;
          const f = model.fillMask(batch[0], { topK: 5 });
          const i = r[0].ids.indexOf(mask);
          assert.equal(f.masks.length, 1);
          assert.equal(f.masks[0].index, i);
          const [, n, V] = g.logits.shape;
          const p = probabilities(g.logits.data.subarray(i * V, (i + 1) * V));  // item 0, row i
          const fifth = [...p].sort((a, b) => b - a)[4];
          for (const pred of f.masks[0].predictions) {
            assert.ok(Math.abs(pred.score - p[pred.id]) <= TOL, `${name} fill-mask id ${pred.id}: ${pred.score} vs ${p[pred.id]}`);
            assert.ok(p[pred.id] >= fifth - TOL, `${name}: id ${pred.id} is not among the 5 most probable`);
            assert.equal(typeof pred.token, 'string');
            assert.ok(!pred.sequence.includes(model.tokenizer.maskToken));
          }
          assert.equal(n, g.input_ids.shape[1]);
        }
        model.dispose();
      });
    }
  });
}

describe('sources', async () => {
  const sf = await init();
  let server;
  before(async () => { server = await startServer({ mounts: [['/hf/', HF]] }); });
  after(async () => { await server?.close(); });

  const reference = async (name) => {
    const m = await sf.loadPretrained(folder(name));
    const r = m.encodeText(texts(name).batch, { returnAttention: true });
    m.dispose();
    return r;
  };
  const sameAs = (got, want) => got.forEach((s, b) => {
    assert.deepEqual(s.lastHiddenState, want[b].lastHiddenState);
    assert.deepEqual(s.attentions[1][2].data, want[b].attentions[1][2].data);
  });

  test('a folder path, a file: URL, objects, File[] and an http URL load the same model', async () => {
    for (const name of ['bert', 'bert_sharded']) {
      const want = await reference(name);
      const read = (f) => readFileSync(join(folder(name), f));
      const weights = name === 'bert_sharded'
        ? { weights: { 'model-00001-of-00002.safetensors': read('model-00001-of-00002.safetensors'), 'model-00002-of-00002.safetensors': read('model-00002-of-00002.safetensors') },
            index: JSON.parse(read('model.safetensors.index.json')) }
        : { weights: read('model.safetensors').buffer.slice(0) };
      const sources = {
        'file URL': pathToFileURL(folder(name)),
        objects: { config: JSON.parse(read('config.json')), tokenizer: read('tokenizer.json').toString('utf8'), tokenizerConfig: read('tokenizer_config.json'), ...weights },
        'File[]': filesOf(name),
        'http URL': `${server.url}hf/${name}`,
      };
      for (const [kind, source] of Object.entries(sources)) {
        const m = await sf.loadPretrained(source);
        sameAs(m.encodeText(texts(name).batch, { returnAttention: true }), want);
        m.dispose();
        assert.ok(kind);
      }
    }
  });

  test('progress: download events from a URL, then load events up to the total', async () => {
    const events = [];
    const m = await sf.loadPretrained(new URL(`${server.url}hf/bert_sharded/`), { onProgress: (p) => events.push(p) });
    m.dispose();
    const downloads = events.filter((e) => e.stage === 'download');
    const size = (f) => statSync(join(folder('bert_sharded'), f)).size;
    for (const f of ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']) {
      const last = downloads.filter((e) => e.file === f).at(-1);
      assert.deepEqual([last.loaded, last.total], [size(f), size(f)], f);
    }
    const loads = events.filter((e) => e.stage === 'load');
    assert.ok(loads.length >= 2);
    assert.ok(loads.every((e, i) => i === 0 || e.loaded >= loads[i - 1].loaded));
    assert.equal(loads.at(-1).loaded, loads.at(-1).total);
    assert.equal(events.at(-1).stage, 'done');
  });

  test('a sentence-transformers folder chooses its pooling; dropped folders find 1_Pooling/config.json', async () => {
    const m = await sf.loadPretrained(filesOf('bert'));
    const g = readTensors(join(folder('bert'), 'golden.safetensors'));
    const e = m.embed(texts('bert').batch[1]);
    assert.ok(maxAbsDiff(e, g.sentence_embedding.data.slice(32, 64)) <= TOL);
    const raw = m.embed(texts('bert').batch[1], { normalize: false });
    const norm = Math.hypot(...raw);
    assert.ok(Math.abs(norm - 1) > 1e-3, 'normalize: false keeps the raw mean');
    assert.ok(maxAbsDiff(raw.map((x) => x / norm), e) <= 1e-6);
    m.dispose();
  });
});

describe('errors', async () => {
  const sf = await init();
  const expected = JSON.parse(readFileSync(join(HF, 'broken', 'expected.json'), 'utf8'));

  for (const [name, want] of Object.entries(expected)) {
    test(`broken/${name}: ${want.code}, naming ${want.mentions.join(', ')}`, async () => {
      const live = sf.liveBytes;
      await assert.rejects(sf.loadPretrained(join(HF, 'broken', name)), (e) => {
        assert.ok(e instanceof SimdformerError, String(e));
        assert.equal(e.code, want.code, e.message);
        for (const m of want.mentions) assert.ok(e.message.includes(m), `'${m}' missing from: ${e.message}`);
        return true;
      });
      assert.equal(sf.liveBytes, live, 'nothing stays allocated');
    });
  }

  test('missing files and bad sources are named', async () => {
    await assert.rejects(sf.loadPretrained(join(HF, 'no-such-folder')), /cannot open model folder .*ENOENT/);
    await assert.rejects(sf.loadPretrained(join(folder('bert'), 'config.json')), /is not a folder/);
    await assert.rejects(sf.loadPretrained({ weights: new Uint8Array(8) }), (e) => e.code === 'io_error' && /config.json is missing/.test(e.message));
    const read = (f) => readFileSync(join(folder('bert'), f));
    await assert.rejects(sf.loadPretrained({ config: read('config.json'), weights: read('model.safetensors') }), /tokenizer.json is missing/);
    await assert.rejects(sf.loadPretrained({ config: '{', weights: read('model.safetensors') }), /config.json in the given objects is not valid JSON/);
    await assert.rejects(sf.loadPretrained({ config: {}, wieghts: 1 }), /unknown key 'wieghts'/);
    await assert.rejects(sf.loadPretrained(42), /source must be a folder path, a URL/);
    await assert.rejects(sf.loadPretrained(folder('bert'), { onProgress: 'yes' }), /onProgress must be a function/);
    await assert.rejects(sf.loadPretrained(folder('bert'), { signal: {} }), /signal must be an AbortSignal/);
    await assert.rejects(sf.loadPretrained(folder('bert'), { weights: 'int4' }), /weights must be 'f32'/);
  });

  // An older checkpoint without tokenizer_config.json: AutoTokenizer (transformers v4) picks
  // BertTokenizerFast from config.json's model_type, and its defaults (do_lower_case True,
  // strip_accents None) rebuild a tokenizer.json normalizer that keeps the case, so the text is
  // lowercased. With tokenizer_config.json's do_lower_case false it stays cased.
  test('a BERT folder without tokenizer_config.json lowercases as BertTokenizerFast\'s defaults do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-no-tokenizer-config-'));
    try {
      const bert = join(dir, 'bert');
      cpSync(folder('bert'), bert, { recursive: true });
      const tok = JSON.parse(readFileSync(join(bert, 'tokenizer.json'), 'utf8'));
      tok.normalizer = { ...tok.normalizer, lowercase: false };
      writeFileSync(join(bert, 'tokenizer.json'), JSON.stringify(tok));
      const tokenConfig = JSON.parse(readFileSync(join(bert, 'tokenizer_config.json'), 'utf8'));
      rmSync(join(bert, 'tokenizer_config.json'));
      const m = await sf.loadPretrained(bert);
      const [upper, lower] = m.encodeText(['Hello World', 'hello world']);
      assert.deepEqual(upper.ids, lower.ids);
      assert.deepEqual(upper.tokens, lower.tokens);
      m.dispose();
      writeFileSync(join(bert, 'tokenizer_config.json'), JSON.stringify({ ...tokenConfig, do_lower_case: false }));
      const cased = await sf.loadPretrained(bert);
      const [u, l] = cased.encodeText(['Hello World', 'hello world']);
      assert.notDeepEqual(u.ids, l.ids);
      cased.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // PreTrainedTokenizerBase._from_pretrained (transformers v4.34+) reads special_tokens_map.json
  // only for a legacy tokenizer_config.json, one without "added_tokens_decoder": then the map's
  // special tokens replace the config's. A config saved with added_tokens_decoder keeps its own.
  // Seen here in the Llama class's bos (its post-processor) and in a chat template's bos/eos.
  test('a legacy tokenizer_config.json (no added_tokens_decoder) takes its special tokens from special_tokens_map.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-special-tokens-map-'));
    try {
      const llama = join(dir, 'llama');
      cpSync(folder('llama_gqa'), llama, { recursive: true });
      const map = JSON.parse(readFileSync(join(llama, 'special_tokens_map.json'), 'utf8'));
      assert.equal(map.bos_token, '<|endoftext|>');
      const legacy = { tokenizer_class: 'LlamaTokenizerFast', bos_token: '<s>', eos_token: '</s>', chat_template: '{{ bos_token }}|{{ eos_token }}' };
      writeFileSync(join(llama, 'tokenizer_config.json'), JSON.stringify(legacy));
      const m = await sf.loadPretrained(llama);
      const endoftext = m.tokenizer.encodeOne('<|endoftext|>', 8).ids.at(-1);
      assert.equal(m.encodeText('hi').ids[0], endoftext);  // the map's bos, added by the rebuilt post-processor
      assert.equal(await m.applyChatTemplate([{ role: 'user', content: 'hi' }]), '<|endoftext|>|<|endoftext|>');
      m.dispose();
      // Saved by a recent transformers: the config's own "<s>", which this vocabulary lacks, so it
      // becomes a new token (id 1057) past the embedding table's 1057 rows, in every text.
      writeFileSync(join(llama, 'tokenizer_config.json'), JSON.stringify({ ...legacy, added_tokens_decoder: {} }));
      await assert.rejects(sf.loadPretrained(llama), (e) => e instanceof SimdformerError && /'<s>' .* token 1057, .* 1057 rows/.test(e.message));
      // additional_special_tokens of both are kept, each once.
      writeFileSync(join(llama, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'GPT2Tokenizer', additional_special_tokens: ['<|endoftext|>'],
        chat_template: '{{ additional_special_tokens | length }}' }));
      writeFileSync(join(llama, 'special_tokens_map.json'), JSON.stringify({ ...map, additional_special_tokens: [{ content: '<|endoftext|>' }, 'x'] }));
      const g = await sf.loadPretrained(llama);
      assert.equal(await g.applyChatTemplate([{ role: 'user', content: 'hi' }]), '2');
      g.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // SentenceTransformer cuts texts at its Transformer module's max_seq_length (all-MiniLM-L6-v2:
  // 256 of the 512 its model allows) and lowercases them first when do_lower_case says so: embed
  // does the same with a folder that has them (an explicit maxLength still rules).
  test('embed follows the sentence-transformers Transformer settings (max_seq_length, do_lower_case)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-st-settings-'));
    try {
      const bert = join(dir, 'bert');
      cpSync(folder('bert'), bert, { recursive: true });
      writeFileSync(join(bert, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: 12, do_lower_case: false }));
      const st = await sf.loadPretrained(bert);
      const plain = await sf.loadPretrained(folder('bert'));
      const text = 'The quick brown fox jumps over the lazy dog and runs far away.';
      assert.notDeepEqual(plain.embed(text, { maxLength: 12 }), plain.embed(text));
      assert.deepEqual(st.embed(text), plain.embed(text, { maxLength: 12 }));
      assert.deepEqual(st.embed([text, 'a dog'])[0], plain.embed(text, { maxLength: 12 }));
      assert.deepEqual(st.embed(text, { maxLength: 40 }), plain.embed(text));
      assert.equal(st.maxLength, 40);  // encodeText and the other calls keep the model's limit
      st.dispose();
      plain.dispose();
      // A cased tokenizer (RoBERTa's byte-level BPE) with do_lower_case: the text is lowercased first.
      const roberta = join(dir, 'roberta');
      cpSync(folder('roberta'), roberta, { recursive: true });
      writeFileSync(join(roberta, 'modules.json'), JSON.stringify([{ idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' }]));
      writeFileSync(join(roberta, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: null, do_lower_case: true }));
      const lower = await sf.loadPretrained(roberta);
      const cased = await sf.loadPretrained(folder('roberta'));
      assert.notDeepEqual(cased.embed('Hello World'), cased.embed('hello world'));
      assert.deepEqual(lower.embed('Hello World', { normalize: true }), cased.embed('hello world'));
      // do_lower_case 1 / 0, as Python's truth reads them (a file written by a script with ints).
      writeFileSync(join(roberta, 'sentence_bert_config.json'), JSON.stringify({ do_lower_case: 1 }));
      const one = await sf.loadPretrained(roberta);
      assert.deepEqual(one.embed('Hello World', { normalize: true }), cased.embed('hello world'));
      one.dispose();
      writeFileSync(join(roberta, 'sentence_bert_config.json'), JSON.stringify({ do_lower_case: 0 }));
      const zero = await sf.loadPretrained(roberta);
      assert.deepEqual(zero.embed('Hello World', { normalize: true }), cased.embed('Hello World'));
      zero.dispose();
      writeFileSync(join(roberta, 'sentence_bert_config.json'), JSON.stringify({ do_lower_case: 'false' }));
      await assert.rejects(sf.loadPretrained(roberta), /sentence_bert_config.json.*do_lower_case must be true, false, 0, 1 or null, got 'false'/);
      lower.dispose();
      cased.dispose();
      writeFileSync(join(bert, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: 0 }));
      await assert.rejects(sf.loadPretrained(bert), /sentence_bert_config.json.*max_seq_length must be a positive integer or null, got 0/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('long texts are cut as Hugging Face does (content cut, [SEP] kept) and the result says so', async () => {
    const m = await sf.loadPretrained(folder('bert'));
    const text = 'The quick brown fox jumps over the lazy dog and runs far away.';
    const cut = m.encodeText([text, ['How old are you?', 'I am six years old.']], { maxLength: 10, returnAttention: true });
    assert.deepEqual(cut.map((r) => [r.length, r.truncated, r.tokens[0], r.tokens.at(-1)]), [[10, true, '[CLS]', '[SEP]'], [10, true, '[CLS]', '[SEP]']]);
    assert.equal(cut[0].originalLength, 21);
    assert.deepEqual(cut[0].shape, [10, 32]);
    assert.deepEqual(cut[0].attentions[0][0].shape, [10, 10]);
    // The cut text runs exactly like the same ids given whole: encode the kept words.
    const kept = m.encodeText('The quick brown fox jumps over the');
    assert.deepEqual(Array.from(kept.ids), Array.from(cut[0].ids));
    assert.deepEqual(kept.lastHiddenState, cut[0].lastHiddenState);
    assert.deepEqual(m.embed(text, { maxLength: 10 }), m.embed('The quick brown fox jumps over the'));
    m.dispose();
  });

  test('text API errors', async () => {
    const m = await sf.loadPretrained(folder('bert'));
    assert.throws(() => m.encodeText(42), /expected a string or an array of strings/);
    assert.throws(() => m.encodeText([]), /the array of texts is empty/);
    assert.throws(() => m.encodeText([['a']]), /encodeText\[0\]: expected a string or a \[text, textPair\] pair/);
    assert.throws(() => m.encodeText('a', { maxLength: 41 }), /maxLength must be an integer in \[1, 40\]/);
    assert.throws(() => m.encodeText('a', { returnAttention: 'yes' }), /returnAttention must be/);
    assert.throws(() => m.fillMask('no mask here'), (e) => e.code === 'unsupported' && /masked-language-model head/.test(e.message));
    assert.throws(() => m.embed('the quick brown fox jumps over the lazy dog', { truncation: false, maxLength: 8 }), /text 0 has \d+ tokens, more than maxLength 8/);
    m.dispose();
    assert.throws(() => m.encodeText('a'), (e) => e.code === 'disposed');
    const mlm = await sf.loadPretrained(folder('bert_mlm_f16'));
    assert.throws(() => mlm.fillMask('no mask here'), /text 0 has no \[MASK\] token/);
    assert.throws(() => mlm.fillMask([['a', 'b']]), /expected a string, got an array/);
    const two = mlm.fillMask('[MASK] and [MASK].', { topK: 3 });
    assert.deepEqual(two.masks.map((x) => x.predictions.length), [3, 3]);
    mlm.dispose();
  });
});

describe('cancellation', async () => {
  const sf = await init();

  test('a throwing onProgress or an aborted signal cancels at any point and leaves nothing allocated', async () => {
    // Count the events of a full load, then cancel at each of them in turn.
    const events = [];
    (await sf.loadPretrained(folder('bert_sharded'), { onProgress: (p) => events.push(p.stage) })).dispose();
    const live = sf.liveBytes;
    for (let at = 0; at < events.length - 1; at++) {
      const stop = new Error(`stop at ${at}`);
      let seen = 0;
      await assert.rejects(sf.loadPretrained(folder('bert_sharded'), { onProgress: () => { if (seen++ === at) throw stop; } }), (e) => e === stop);
      assert.equal(sf.liveBytes, live, `after cancelling at event ${at} (${events[at]})`);
      const controller = new AbortController();
      let n = 0;
      await assert.rejects(sf.loadPretrained(folder('bert_sharded'), { signal: controller.signal, onProgress: () => { if (n++ === at) controller.abort(); } }),
        (e) => e === controller.signal.reason);
      assert.equal(sf.liveBytes, live);
    }
    const early = new AbortController();
    early.abort();
    await assert.rejects(sf.loadPretrained(folder('bert'), { signal: early.signal }), (e) => e === early.signal.reason);
  });

  test('1,000 cancelled loads keep the wasm heap flat', async () => {
    const load = (i) => sf.loadPretrained(folder('bert'), { onProgress: (p) => { if (p.stage === 'load' && p.loaded > 0 && i % 2 === 0) throw new Error('stop'); if (p.stage === 'done') throw new Error('late'); } });
    for (let i = 0; i < 50; i++) await load(i).catch(() => {});
    const live = sf.liveBytes, heap = sf.heapBytes;
    for (let i = 0; i < 1000; i++) await assert.rejects(load(i));
    assert.equal(sf.liveBytes, live);
    assert.equal(sf.heapBytes, heap);
    const m = await sf.loadPretrained(folder('bert'));
    assert.equal(m.encodeText('Hello, world!').length, 6);
    m.dispose();
  });
});
