// The JavaScript API against the PyTorch goldens, on both wasm builds (and, with
// SIMDFORMER_BACKEND=native, the SIMD suites on the native addon).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { SimdformerError, init, wasmSimdSupported } from '../../dist/node.mjs';
import { configOf, masks, maxAbsDiff, modelPath, readGolden, split, tokens } from './helpers.mjs';

const TOL = 1e-4;

test('the engine running the tests supports wasm SIMD128', () => {
  assert.equal(wasmSimdSupported(), true);
});

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build`, async () => {
    const sf = await init({ simd });

    test('reports which build runs', () => {
      assert.equal(sf.simd, simd);
      if (sf.backend === 'native') {  // SIMDFORMER_BACKEND=native (scripts/test.sh's native stage)
        assert.equal(sf.lanes, { sse2: 4, 'fma3+avx2': 8, avx512bw: 16 }[sf.arch], sf.arch);
        return;
      }
      assert.equal(sf.backend, 'wasm');
      assert.equal(sf.arch, simd ? 'wasm' : 'scalar');
      assert.equal(sf.lanes, simd ? 4 : 1);
    });

    test('multihead self-attention with padding matches PyTorch (output and per-head weights)', async () => {
      const g = readGolden('mha_self');
      const model = await sf.loadModel(modelPath('mha_self'), configOf('mha_self'));
      const x = split(g.x.data, 2);
      // Both sequences have 5 positions; padding comes from the mask.
      const r = model.encode(x, { paddingMask: masks(g, 'key_padding', 2), returnAttention: true });
      const out = new Float32Array([...r.sequences[0].output, ...r.sequences[1].output]);
      assert.ok(maxAbsDiff(out, g.out.data) < TOL);
      const heads = split(g.weights.data, 8);  // [2 batch x 4 heads][5 x 5]
      r.sequences.forEach((s, b) => s.attentions[0].forEach((h, i) => {
        assert.deepEqual(h.shape, [5, 5]);
        assert.ok(maxAbsDiff(h.data, heads[b * 4 + i]) < TOL, `batch ${b} head ${i}`);
      }));
      model.dispose();
    });

    test('encoder stack with padding matches PyTorch; variable-length batch equals one-by-one', async () => {
      const g = readGolden('encoder');
      const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
      const x = split(g.x.data, 3), want = split(g.out.data, 3);
      const lengths = [7, 5, 2];
      // Pass each sequence at its true length: the package pads and masks.
      const seqs = x.map((s, i) => s.slice(0, lengths[i] * 12));
      const r = model.encode(seqs);
      assert.deepEqual(r.lengths, lengths);
      r.sequences.forEach((s, i) => {
        assert.deepEqual(s.shape, [lengths[i], 12]);
        assert.ok(maxAbsDiff(s.output, want[i].slice(0, lengths[i] * 12)) < TOL, `sequence ${i}`);
        const alone = model.encode(seqs[i]);
        assert.deepEqual(alone.output, s.output, 'batch result equals one-by-one');
      });
      model.dispose();
    });

    test('greedy decoding reproduces PyTorch tokens; forward logits match', async () => {
      const g = readGolden('seq2seq');
      const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
      const src = tokens(g, 'src', 2).map((s, i) => (i === 1 ? s.slice(0, 4) : s));  // item 1 is padded in PyTorch
      const want = tokens(g, 'generated', 2);
      const res = model.generate(src, { maxLength: 8, returnAttention: true });
      // PyTorch's rows run to the longest item (eos repeated after an item's eos): each item's
      // tokens are its row up to its first eos after bos, taken from the golden, not from r.
      const eos = configOf('seq2seq').eos_token;
      const untilEos = (row) => (row.indexOf(eos, 1) >= 0 ? row.slice(0, row.indexOf(eos, 1) + 1) : row);
      res.forEach((r, i) => assert.deepEqual(Array.from(r.tokens), untilEos(want[i])));
      assert.deepEqual(res[0].crossAttentions[0][0].shape, [7, 6]);
      assert.deepEqual(res[1].crossAttentions[0][0].shape, [7, 4]);
      const tgt = want.map((t) => t.slice(0, -1));
      const f = model.forward(src, tgt);
      const logits = split(g.logits.data, 2);
      f.sequences.forEach((s, i) => assert.ok(maxAbsDiff(s.logits, logits[i]) < TOL, `logits ${i}`));
      model.dispose();
    });

    test('decoder layer with memory and causal mask matches PyTorch', async () => {
      const g = readGolden('decoder_layer');
      const model = await sf.loadModel(modelPath('decoder_layer'), configOf('decoder_layer'));
      const r = model.encode(split(g.tgt.data, 2), {
        causal: true, memory: split(g.memory.data, 2), memoryPaddingMask: masks(g, 'memory_key_padding', 2), returnAttention: 'mean',
      });
      const out = new Float32Array([...r.sequences[0].output, ...r.sequences[1].output]);
      assert.ok(maxAbsDiff(out, g.out.data) < TOL);
      assert.equal(r.sequences[0].attentions[0].length, 1);
      assert.equal(r.sequences[0].attentions[0][0].mean, true);
      assert.deepEqual(r.sequences[1].crossAttentions[0][0].shape, [5, 6]);
      model.dispose();
    });

    test('attention() and positionalEncoding() compute the textbook formulas', () => {
      const Q = [[1, 0], [0, 1]], K = [[1, 0], [0, 1], [1, 1]], V = [[1], [2], [3]];
      const r = sf.attention(Q, K, V, { returnWeights: true });
      const s = Math.SQRT1_2;  // scaled dot products / sqrt(2)
      const e = [Math.exp(s), 1, Math.exp(s)];
      const z = e[0] + e[1] + e[2];
      assert.ok(Math.abs(r.weights.data[0] - e[0] / z) < 1e-6);
      assert.ok(Math.abs(r.output.data[0] - (1 * e[0] + 2 * e[1] + 3 * e[2]) / z) < 1e-5);
      const causal = sf.attention(Q, K.slice(0, 2), V.slice(0, 2), { causal: true, normalize: 'relu', returnWeights: true });
      assert.deepEqual(Array.from(causal.weights.data), [s, 0, 0, s / 2].map(Math.fround));
      const g = readGolden('positional');
      const pe = sf.positionalEncoding(7, 9);
      assert.deepEqual(pe.shape, [7, 9]);
      assert.ok(maxAbsDiff(pe.data, g.pe.data) < 1e-6);
    });

    test('truncation cuts long sequences; without it they are an error', async () => {
      const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));  // max_len 16
      const long = Array.from({ length: 20 }, (_, i) => 3 + (i % 8));
      assert.throws(() => model.encode(long), /sequence 0 has 20 positions, more than the model's max_len=16 \(pass truncation: true/);
      const cut = model.encode(long, { truncation: true });
      assert.deepEqual(cut.shape, [16, 16]);
      assert.deepEqual(cut.output, model.encode(long.slice(0, 16)).output);
      model.dispose();
    });

    test('progress is reported while loading and generating', async () => {
      const events = [];
      const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'), { onProgress: (p) => events.push(p) });
      assert.ok(events.some((e) => e.stage === 'read' && e.loaded === e.total && e.total > 50000));
      assert.ok(events.some((e) => e.stage === 'load'));
      const steps = [];
      model.generate([3, 4, 5], { maxLength: 6, onProgress: (p) => steps.push(p.step) });
      assert.ok(steps.length >= 1 && steps.every((s, i) => s === i + 1));
      model.dispose();
    });

    test('bad input throws a clear SimdformerError and the module keeps working', async () => {
      const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
      const good = new Float32Array(3 * 12).map((_, i) => Math.sin(i));
      const expected = model.encode(good).output;
      const nan = good.slice(); nan[5] = NaN;
      const cases = [
        [() => model.encode(good.subarray(0, 13)), /13 values is not a whole number of d_model=12 vectors/],
        [() => model.encode(nan), /value NaN at index 5 is not finite/],
        [() => model.encode(new Int32Array(12)), /expected a Float32Array, got Int32Array/],
        [() => model.encode(good, { colour: 1 }), /unknown option 'colour'/],
        [() => model.encode(good, { score: 'cosine' }), /unknown score 'cosine'/],
        [() => model.encode(good, { score: 'additive' }), /additive-score weights/],
        [() => model.encode(good, { paddingMask: [true, false] }), /has 2 entries, expected 3/],
        [() => model.encode(good, { paddingMask: [0, 2, 0] }), /entry 1 is 2/],
        [() => model.encode(good, { attnMask: [[0, 0, 0], [0, NaN, 0], [0, 0, 0]] }), /value NaN at index 4 is not allowed/],
        [() => model.encode(new Float32Array(0)), /the sequence is empty/],
        [() => model.encode(good, { returnAttention: 'max' }), /returnAttention must be/],
        [() => model.encode(null), /expected a Float32Array or an array of rows, got null/],
        [() => model.generate([1]), /generate needs a transformer/],
        [() => model.forward(good, good), /forward\(src, tgt\) is for transformer models/],
        [() => sf.attention([[1]], [[1, 2]], [[1]]), /Q has d_k=1 but K has d_k=2/],
        [() => sf.positionalEncoding(-1, 4), /n must be a positive integer/],
      ];
      for (const [call, message] of cases) {
        assert.throws(call, (e) => e instanceof SimdformerError && message.test(e.message), String(message));
        assert.deepEqual(model.encode(good).output, expected, `still correct after ${message}`);
      }
      await assert.rejects(sf.loadModel(new Uint8Array([1, 2, 3])), /shorter than the 8-byte header length/);
      await assert.rejects(sf.loadModel(readFileSync(modelPath('encoder')).subarray(0, 5000), configOf('encoder')), /beyond the data section|exceeds/);
      await assert.rejects(sf.loadModel(modelPath('encoder'), { ...configOf('encoder'), nhead: 5 }), /d_model=12 is not divisible by nhead=5/);
      await assert.rejects(sf.loadModel('/no/such/model.safetensors'), /cannot open model file/);
      await assert.rejects(sf.loadModel(modelPath('encoder'), configOf('encoder'), { onProgress: 3 }), /onProgress must be a function/);
      model.dispose();
      assert.throws(() => model.encode(good), (e) => e.code === 'disposed' && /disposed/.test(e.message));
      model.dispose();  // idempotent
    });

    test('Symbol.dispose frees the model', { skip: typeof Symbol.dispose !== 'symbol' }, async () => {
      const model = await sf.loadModel(modelPath('mha_self'), configOf('mha_self'));
      model[Symbol.dispose]();
      assert.equal(model.disposed, true);
    });

    test('10,000 load + encode + dispose cycles leave the wasm heap flat', async () => {
      const bytes = readFileSync(modelPath('encoder_layer_post'));
      const config = configOf('encoder_layer_post');
      const x = new Float32Array(6 * 16).map((_, i) => Math.cos(i));
      const cycle = () => {
        const m = sf.loadModelSync(bytes, config);
        m.encode([x, x.subarray(0, 4 * 16)], { returnAttention: true });
        m.dispose();
      };
      for (let i = 0; i < 200; i++) cycle();  // warm-up: let the allocator settle
      const live = sf.liveBytes, heap = sf.heapBytes;
      for (let i = 0; i < 10000; i++) cycle();
      assert.equal(sf.liveBytes, live, 'model and workspace buffers all freed');
      assert.equal(sf.heapBytes, heap, 'wasm memory did not grow');
    });
  });
}

test('SIMD and scalar builds agree', async () => {
  const [a, b] = await Promise.all([init({ simd: true }), init({ simd: false })]);
  const g = readGolden('transformer_prenorm');
  const ma = await a.loadModel(modelPath('transformer_prenorm'), configOf('transformer_prenorm'));
  const mb = await b.loadModel(modelPath('transformer_prenorm'), configOf('transformer_prenorm'));
  const src = split(g.src.data, 2), tgt = split(g.tgt.data, 2);
  const pad = masks(g, 'src_key_padding', 2);
  const ra = ma.forward(src, tgt, { srcPaddingMask: pad, returnAttention: true });
  const rb = mb.forward(src, tgt, { srcPaddingMask: pad, returnAttention: true });
  ra.sequences.forEach((s, i) => {
    assert.ok(maxAbsDiff(s.output, rb.sequences[i].output) < 1e-5);
    assert.ok(maxAbsDiff(s.crossAttentions[1][0].data, rb.sequences[i].crossAttentions[1][0].data) < 1e-5);
  });
  const out = new Float32Array([...ra.sequences[0].output, ...ra.sequences[1].output]);
  assert.ok(maxAbsDiff(out, g.out.data) < TOL, 'and both match PyTorch');
  ma.dispose();
  mb.dispose();
});

test('init rejects bad options', async () => {
  await assert.rejects(init({ simd: 'yes' }), /simd must be 'auto', true or false/);
  await assert.rejects(init({ wasm: 'x' }), /unknown option 'wasm'/);
  await assert.rejects(init({ wasmBinary: 'abc' }), /wasmBinary must be an ArrayBuffer/);
});

test('the Node examples run', async () => {
  const { execFileSync } = await import('node:child_process');
  const { ROOT } = await import('./helpers.mjs');
  for (const example of ['attention.mjs', 'encode.mjs', 'generate.mjs', 'embed.mjs', 'fill-mask.mjs']) {
    const out = execFileSync(process.execPath, [`${ROOT}/examples/node/${example}`], { encoding: 'utf8' });
    assert.ok(out.length > 50, example);
  }
});

test('layerNorm() and linear() compute nn.LayerNorm and nn.Linear', async () => {
  const sf = await init();
  const x = [[1, 2, 3, 4], [2, 2, 2, 6]];
  const y = sf.layerNorm(x, { gamma: [1, 2, 1, 1], beta: [0, 0, 1, 0] });
  const row = x[0], mean = 2.5, std = Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0) / 4 + 1e-5);
  assert.ok(Math.abs(y.data[1] - 2 * (2 - mean) / std) < 1e-5);
  assert.ok(Math.abs(y.data[2] - ((3 - mean) / std + 1)) < 1e-5);
  assert.throws(() => sf.layerNorm(x, { gamma: [1, 2] }), /has 2 values, expected 1 x 4/);
  assert.throws(() => sf.layerNorm([[1, NaN]]), /NaN/);
  const W = Float32Array.from([1, 0, 0, 1, 1, 1]);  // [3 out, 2 in]
  const lin = sf.linear(W, Float32Array.from([0, 0, 0.5]), 2, 3);
  assert.deepEqual(Array.from(lin.forward(Float32Array.from([2, 3, -1, 1]))), [2, 3, 5.5, -1, 1, 0.5]);
  assert.throws(() => lin.forward(Float32Array.from([1, 2, 3])), /not a whole number of rows of 2/);
  lin.dispose();
  assert.throws(() => lin.forward(Float32Array.from([1, 2])), /disposed/);
  assert.throws(() => sf.linear(W, null, 3, 3), /weight must be a Float32Array of 3 x 3/);
});
