// Out of memory at the wasm heap's limit. The shipped module (MAXIMUM_MEMORY = 2 GiB) is filled
// with malloc'ed blocks until nothing more fits, leaving a hole of a chosen size; then every
// public operation runs. Each either works (and returns the right answer) or throws
// SimdformerError code 'out_of_memory' -- never an abort, a trap or a wrong answer. After the
// filler is freed, the same operation returns what it returned before, bit for bit, and malloc's
// count of live bytes is back to its level: nothing the failed call took stays allocated.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import createModule from '../../dist/simdformer.mjs';
import { Simdformer, SimdformerError } from '../../dist/node.mjs';
import { folderFileSet } from '../../dist/node/files.mjs';
import { DATA, DIST, configOf, modelPath } from './helpers.mjs';

// The raw module (for _malloc) under the public Simdformer class.
const module = await createModule({ wasmBinary: readFileSync(join(DIST, 'simdformer.wasm')) });
const sf = new Simdformer(module, { simd: true, readSource: async (source) => source, localFolder: folderFileSet });

const bits = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
const BERT = join(DATA, 'hf', 'bert');
const bertObjects = {
  config: readFileSync(join(BERT, 'config.json'), 'utf8'),
  weights: readFileSync(join(BERT, 'model.safetensors')),
  tokenizer: readFileSync(join(BERT, 'tokenizer.json'), 'utf8'),
  tokenizerConfig: readFileSync(join(BERT, 'tokenizer_config.json'), 'utf8'),
};

// Fills the heap: first a block of `hole` bytes, then blocks of 256 MiB halving down to 8 bytes
// until none of each size fits, then the hole is freed. Afterwards at most `hole` contiguous
// bytes (plus malloc's slack in small gaps) can be allocated.
class Filler {
  blocks = [];
  fill(hole) {
    const h = hole ? module._malloc(hole) : 0;
    if (hole && !h) throw new Error(`cannot reserve a hole of ${hole} bytes`);
    for (let size = 1 << 28; size >= 8; size >>>= 1) {
      for (let p; (p = module._malloc(size));) this.blocks.push(p);
    }
    if (h) module._free(h);
  }
  release() {
    for (const p of this.blocks) module._free(p);
    this.blocks.length = 0;
  }
}
const filler = new Filler();

// Runs op() with the heap full (a hole of `hole` bytes), then checks: a SimdformerError is
// 'out_of_memory'; a result equals `want` (via key(result)); after the release, op() gives `want`
// and malloc's live bytes are back at `level`.
function underPressure(name, op, key, hole, outcomes) {
  const want = key(op());
  const level = module.mallocBytes();
  filler.fill(hole);
  let outcome;
  try {
    const r = op();
    assert.ok(Buffer.compare(key(r), want) === 0, `${name}, hole ${hole}: succeeded with a different answer`);
    outcome = 'ok';
  } catch (e) {
    assert.ok(e instanceof SimdformerError, `${name}, hole ${hole}: ${e?.name}: ${e?.message ?? e}`);
    assert.equal(e.code, 'out_of_memory', `${name}, hole ${hole}: ${e.message}`);
    outcome = 'oom';
  } finally {
    filler.release();
  }
  assert.ok(Buffer.compare(key(op()), want) === 0, `${name}, hole ${hole}: the next call gave a different answer`);
  assert.equal(module.mallocBytes(), level, `${name}, hole ${hole}: malloc bytes not back at their level`);
  outcomes[outcome]++;
}

// Holes from nothing to 64 MiB, about 1.5x apart: small ones fail the call's first allocation,
// larger ones fail its later ones (workspaces, packed weights, parser state), the largest pass.
const HOLES = [0];
for (let h = 64; h <= 64 << 20; h = Math.ceil(h * 1.5)) HOLES.push(h);

const encoderBytes = readFileSync(modelPath('encoder'));
const seq2seqBytes = readFileSync(modelPath('seq2seq'));
const modelBits = (m) => { const r = bits(m.encode(new Float32Array(4 * 12).fill(0.3)).output); m.dispose(); return r; };
const tokenBits = (r) => bits(Array.isArray(r) ? r[0].tokens : r.tokens);

test('every operation at every heap level: out_of_memory or the right answer, then the same answer and a flat heap', async () => {
  const encoder = sf.loadModelSync(encoderBytes, configOf('encoder'));
  const seq2seq = sf.loadModelSync(seq2seqBytes, configOf('seq2seq'));
  const text = await sf.loadPretrained(bertObjects);
  const x = Float32Array.from({ length: 5 * 12 }, (_, i) => Math.sin(i));
  const layer = sf.linear(Float32Array.from({ length: 64 * 48 }, (_, i) => Math.cos(i)), null, 48, 64);
  const ops = {
    loadModelSync: [() => sf.loadModelSync(encoderBytes, configOf('encoder')), modelBits],
    'loadModelSync (config from JSON text)': [() => sf.loadModelSync(seq2seqBytes, JSON.stringify(configOf('seq2seq'))),
      (m) => { const r = bits(m.generate([3, 4, 5], { maxLength: 6 }).tokens); m.dispose(); return r; }],
    'encode (new workspace each time)': [() => {
      const m = sf.loadModelSync(encoderBytes, configOf('encoder'));
      try { return m.encode([x, x.subarray(0, 24)], { returnAttention: true }); } finally { m.dispose(); }
    }, (r) => Buffer.concat([bits(r.sequences[0].output), bits(r.sequences[1].attentions[1][0].data)])],
    encode: [() => encoder.encode(x, { returnAttention: 'mean' }), (r) => Buffer.concat([bits(r.output), bits(r.attentions[0][0].data)])],
    generate: [() => seq2seq.generate([[3, 4, 5, 6], [7, 8]], { maxLength: 8, returnAttention: true }), tokenBits],
    forward: [() => seq2seq.forward([3, 4, 5], [1, 6, 7]), (r) => bits(r.logits)],
    encodeText: [() => text.encodeText(['hello world', ['a pair', 'of texts']], { returnAttention: true }),
      (r) => Buffer.concat([bits(r[0].lastHiddenState), bits(r[1].attentions[0][0].data)])],
    embed: [() => text.embed(['one', 'two three']), (r) => Buffer.concat(r.map(bits))],
    attention: [() => sf.attention([[1, 2], [3, 4]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]], { returnWeights: true }),
      (r) => Buffer.concat([bits(r.output.data), bits(r.weights.data)])],
    layerNorm: [() => sf.layerNorm([[1, 2, 3], [4, 5, 7]]), (r) => bits(r.data)],
    positionalEncoding: [() => sf.positionalEncoding(64, 32), (r) => bits(r.data)],
    linear: [() => { const l = sf.linear(new Float32Array(48 * 16).fill(0.5), null, 48, 16); try { return l.forward(x.subarray(0, 48)); } finally { l.dispose(); } }, bits],
    'linear.forward': [() => layer.forward(x.subarray(0, 48)), bits],
    inspect: [() => sf.inspect(encoderBytes), null],
  };
  // The task heads: each a forward pass (or several: windows, hypotheses, documents) whose
  // workspace and call buffers must be taken back when one fails.
  const heads = {};
  for (const name of ['bert_tokcls', 'bert_qa', 'roberta_nli', 'bert_reranker', 'bert_seqcls']) heads[name] = await sf.loadPretrained(join(DATA, 'hf', name));
  const json = (r) => Buffer.from(JSON.stringify(r, (k, v) => (v instanceof Float32Array ? Array.from(v) : v)));
  const long = 'John Smith lives in New York and works at Google. '.repeat(4);
  Object.assign(ops, {
    tokenClassify: [() => heads.bert_tokcls.tokenClassify([long, 'Mary'], { aggregation: 'simple', stride: 4, maxLength: 16 }), json],
    answer: [() => heads.bert_qa.answer('Where does John live?', long, { topK: 3, maxSeqLen: 24, docStride: 6 }), json],
    zeroShot: [() => heads.roberta_nli.zeroShot(['a b', 'c'], ['x', 'y', 'z'], { multiLabel: true }), json],
    rerank: [() => heads.bert_reranker.rerank('q', ['a', 'b c', 'd'], { batchSize: 2 }), json],
    classify: [() => heads.bert_seqcls.classify(['a', ['b', 'c']], { topK: null, returnAttention: true }), json],
  });
  // A conversation through the chat template into the key/value cache, and a batch of two (async:
  // the checks with await, below).
  const chat = heads.llama_gqa = await sf.loadPretrained(join(DATA, 'hf', 'llama_gqa'));
  const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'John Smith lives in New York.' }];
  ops['generateText (messages)'] = [() => chat.generateText([messages, messages.slice(1)], { maxNewTokens: 4, stop: [], returnAttention: 'mean' }), null];
  const summary = [];
  for (const [name, [op, key]] of Object.entries(ops)) {
    const outcomes = { ok: 0, oom: 0 };
    for (const hole of HOLES) {
      if (key) {
        underPressure(name, op, key, hole, outcomes);
      } else {  // async (inspect): the same checks with await
        const want = JSON.stringify(await op());
        const level = module.mallocBytes();
        filler.fill(hole);
        try {
          assert.equal(JSON.stringify(await op()), want);
          outcomes.ok++;
        } catch (e) {
          assert.ok(e instanceof SimdformerError && e.code === 'out_of_memory', `${name}, hole ${hole}: ${e?.message ?? e}`);
          outcomes.oom++;
        } finally {
          filler.release();
        }
        assert.equal(JSON.stringify(await op()), want);
        assert.equal(module.mallocBytes(), level, `${name}, hole ${hole}`);
      }
    }
    assert.ok(outcomes.oom > 0, `${name}: never ran out of memory (the filler did not fill)`);
    assert.ok(outcomes.ok > 0, `${name}: never succeeded even with a ${HOLES.at(-1)}-byte hole`);
    summary.push(`${name} ${outcomes.oom}/${outcomes.oom + outcomes.ok}`);
  }
  // loadPretrained is async: the same checks, awaited.
  const outcomes = { ok: 0, oom: 0 };
  const want = bits(text.embed('hello'));
  for (const hole of HOLES) {
    const level = module.mallocBytes();
    filler.fill(hole);
    let loaded = null;
    try {
      loaded = await sf.loadPretrained(bertObjects);
      outcomes.ok++;
    } catch (e) {
      assert.ok(e instanceof SimdformerError && e.code === 'out_of_memory', `loadPretrained, hole ${hole}: ${e?.message ?? e}`);
      outcomes.oom++;
    } finally {
      filler.release();
    }
    if (loaded) {
      assert.ok(Buffer.compare(bits(loaded.embed('hello')), want) === 0);
      loaded.dispose();
    }
    // The next call takes back the reserves a failure released (reply.h), then the level holds.
    assert.ok(Buffer.compare(bits(text.embed('hello')), want) === 0);
    assert.equal(module.mallocBytes(), level, `loadPretrained, hole ${hole}`);
  }
  assert.ok(outcomes.oom > 0 && outcomes.ok > 0, JSON.stringify(outcomes));
  summary.push(`loadPretrained ${outcomes.oom}/${outcomes.oom + outcomes.ok}`);
  console.log(`# oom: heap ${module.HEAPU8.length >>> 20} MiB; out_of_memory/levels per operation: ${summary.join(', ')}`);
  for (const m of [encoder, seq2seq, text, layer, ...Object.values(heads)]) m.dispose();
});

test('a large config text or safetensors header with the heap nearly full is out_of_memory, not an abort', () => {
  const encoder = sf.loadModelSync(encoderBytes, configOf('encoder'));
  const want = bits(encoder.encode(new Float32Array(24).fill(1)).output);
  // A config with 200,000 ignored-key-sized entries is ~4 MiB of JSON; parsing it needs far more.
  const big = { ...configOf('encoder'), description: Array.from({ length: 200000 }, (_, i) => `entry ${i}`).join(' ') };
  const header = `{${Array.from({ length: 100000 }, (_, i) => `"t${i}":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`).join(',')}}`;
  const headerBytes = new TextEncoder().encode(header);
  const file = new Uint8Array(8 + headerBytes.length);
  new DataView(file.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  file.set(headerBytes, 8);
  // The first load of a config with ignored keys builds a static table that stays: once, unfilled.
  sf.loadModelSync(encoderBytes, big).dispose();
  encoder.encode(new Float32Array(24).fill(1));
  const level = module.mallocBytes();
  for (const hole of [1 << 20, 8 << 20, 32 << 20]) {
    for (const call of [() => sf.loadModelSync(encoderBytes, big), () => sf.loadModelSync(file, configOf('encoder'))]) {
      filler.fill(hole);
      try {
        call().dispose();
      } catch (e) {
        assert.ok(e instanceof SimdformerError && ['out_of_memory', 'invalid_argument'].includes(e.code), `${e?.name}: ${e?.message}`);
      } finally {
        filler.release();
      }
      // The next call (which also takes back the reserves a failure released) gives the same
      // answer, and then malloc's live bytes are at their level.
      assert.ok(Buffer.compare(bits(encoder.encode(new Float32Array(24).fill(1)).output), want) === 0);
      assert.equal(module.mallocBytes(), level);
    }
  }
  encoder.dispose();
});
