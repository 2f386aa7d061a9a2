// Text generation with GPT-2 folders (tests/data/hf/gpt2, gpt2_legacy) through loadPretrained:
// greedy continuations equal the PyTorch reference's token for token (SIMD and scalar builds),
// every step's attention row equals the last row of a full forward's causal attention, batches
// padded on the left continue each prompt as it continues alone; onToken streams and cancels at
// any step with a flat heap; the re-entrancy rule; sampling, stop tokens and texts; the CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, DIST, maxAbsDiff, readTensors } from './helpers.mjs';

const folder = (name) => join(DATA, 'hf', name);
const golden = (name) => readTensors(join(folder(name), 'golden.safetensors'));
const texts = (name) => JSON.parse(readFileSync(join(folder(name), 'texts.json'), 'utf8'));
// The one busy rule (call-guard.mjs): code 'busy', naming the running call.
const isBusyError = (e) => e instanceof SimdformerError && e.code === 'busy' && /busy running generateText/.test(e.message);

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build`, async () => {
    const sf = await init({ simd });

    for (const name of ['gpt2', 'gpt2_legacy']) {
      test(`${name}: greedy continuation equals the reference token for token`, async () => {
        const g = golden(name), t = texts(name).generate;
        const model = await sf.loadPretrained(folder(name));
        assert.equal(model.info.architecture, 'gpt2');
        assert.equal(model.info.causal, true);
        const r = await model.generateText(t.prompt, { maxNewTokens: 8 });
        assert.deepEqual(Array.from(r.promptIds), g['generate.prompt_ids'].data);
        assert.deepEqual(Array.from(r.ids), g['generate.new_ids'].data);
        assert.deepEqual(r.tokens, t.new_tokens);
        assert.equal(r.text, model.tokenizer.decode(r.ids, { skipSpecialTokens: true }));
        assert.equal(r.finishReason, 'length');
        assert.equal(r.seed, undefined);
        assert.equal(r.steps, undefined);
        // The same from the ids themselves.
        const fromIds = await model.generateText(Array.from(r.promptIds), { maxNewTokens: 8 });
        assert.deepEqual(fromIds.ids, r.ids);
        model.dispose();
      });
    }

    test('each step\'s attention is the last row of a full forward\'s causal attention over the same tokens', async () => {
      const model = await sf.loadPretrained(folder('gpt2'));
      const { n_layers: L, n_heads: H } = model.info;
      const r = await model.generateText('The quick brown fox', { maxNewTokens: 6, returnAttention: true });
      assert.equal(r.steps.length, 6);
      const P = r.promptIds.length;
      for (let s = 0; s < r.steps.length; s++) {
        const step = r.steps[s];
        assert.equal(step.id, r.ids[s]);
        assert.equal(step.attention.length, L);
        // The query that chose token s is the last of prompt + the s tokens before it.
        const context = [...r.promptIds, ...r.ids.slice(0, s)];
        const text = model.tokenizer.decode(context);
        const full = model.encodeText(text, { returnAttention: true });
        assert.deepEqual(Array.from(full.ids), context, 'the context re-tokenizes to the same ids');
        for (let l = 0; l < L; l++) {
          assert.equal(step.attention[l].length, H);
          for (let h = 0; h < H; h++) {
            const row = step.attention[l][h];
            assert.equal(row.length, P + s);
            const { data, shape: [n] } = full.attentions[l][h];
            assert.ok(maxAbsDiff(row, data.slice((n - 1) * n, n * n)) <= 1e-5, `step ${s} layer ${l} head ${h}`);
          }
        }
      }
      const mean = await model.generateText('The quick brown fox', { maxNewTokens: 2, returnAttention: 'mean' });
      assert.equal(mean.steps[1].attention[0].length, 1);
      const heads = r.steps[1].attention[0];
      assert.ok(maxAbsDiff(mean.steps[1].attention[0][0], heads[0].map((_, j) => heads.reduce((a, x) => a + x[j], 0) / H)) <= 1e-6);
      model.dispose();
    });

    test('a batch padded on the left continues every prompt as it continues alone', async () => {
      const model = await sf.loadPretrained(folder('gpt2'));
      const prompts = ['The quick brown fox jumps over', 'Hello', 'Transformers are walking'];
      const batch = await model.generateText(prompts, { maxNewTokens: 5, stop: [], returnAttention: true });
      assert.equal(batch.length, 3);
      for (let b = 0; b < prompts.length; b++) {
        const alone = await model.generateText(prompts[b], { maxNewTokens: 5, stop: [], returnAttention: true });
        assert.deepEqual(batch[b].ids, alone.ids, prompts[b]);
        assert.deepEqual(batch[b].promptIds, alone.promptIds);
        batch[b].steps.forEach((s, k) => s.attention.forEach((heads, l) => heads.forEach((row, h) => {
          assert.equal(row.length, alone.promptIds.length + k);  // the padding is not part of the context
          assert.ok(maxAbsDiff(row, alone.steps[k].attention[l][h]) <= 1e-5);
        })));
      }
      model.dispose();
    });
  });
}

describe('streaming, cancellation and re-entrancy', async () => {
  const sf = await init();
  const model = await sf.loadPretrained(folder('gpt2'));
  const prompt = 'The quick brown fox';
  const expected = await model.generateText(prompt, { maxNewTokens: 8 });

  test('onToken sees every token in order; the pieces of text add up to the result', async () => {
    const events = [];
    const r = await model.generateText(prompt, { maxNewTokens: 8, onToken: (e) => { events.push(e); } });
    assert.deepEqual(events.map((e) => e.id), Array.from(expected.ids));
    assert.deepEqual(events.map((e) => e.step), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.ok(events.every((e) => e.index === 0 && e.attention === undefined));
    assert.equal(events.map((e) => e.text).join(''), r.text);
    assert.deepEqual(events.map((e) => e.token), r.tokens);
    // An async onToken is awaited before the next step.
    let inFlight = 0;
    await model.generateText(prompt, { maxNewTokens: 4, onToken: async () => {
      assert.equal(inFlight++, 0);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
    } });
  });

  test('returning false, throwing or aborting stops at the step it happens', async () => {
    for (let at = 0; at < 8; at++) {
      const r = await model.generateText(prompt, { maxNewTokens: 8, onToken: (e) => e.step !== at });
      assert.equal(r.finishReason, 'cancelled');
      assert.deepEqual(r.ids, expected.ids.slice(0, at + 1));
      const stop = new Error(`stop at ${at}`);
      let calls = 0;
      await assert.rejects(model.generateText(prompt, { maxNewTokens: 8, onToken: (e) => { calls++; if (e.step === at) throw stop; } }),
        (e) => e === stop);
      assert.equal(calls, at + 1, 'no step runs after the throw');
      const controller = new AbortController();
      calls = 0;
      await assert.rejects(model.generateText(prompt, { maxNewTokens: 8, signal: controller.signal, onToken: (e) => { calls++; if (e.step === at) controller.abort(); } }),
        (e) => e === controller.signal.reason);
      assert.equal(calls, at + 1);
    }
    // Aborted from outside while it runs (between steps), and before it starts.
    const controller = new AbortController();
    const running = model.generateText(prompt, { maxNewTokens: 30, signal: controller.signal, onToken: (e) => { if (e.step === 1) setImmediate(() => controller.abort()); } });
    await assert.rejects(running, (e) => e === controller.signal.reason);
    const early = new AbortController();
    early.abort();
    await assert.rejects(model.generateText(prompt, { signal: early.signal }), (e) => e === early.signal.reason);
    assert.deepEqual((await model.generateText(prompt, { maxNewTokens: 8 })).ids, expected.ids);
  });

  test('1,000 cancelled generations keep the wasm heap flat', async () => {
    const stop = new Error('stop');
    const cancelled = async (i) => {
      const at = i % 8, how = i % 3;
      if (how === 0) return model.generateText(prompt, { maxNewTokens: 8, onToken: (e) => e.step !== at });
      if (how === 1) return model.generateText(prompt, { maxNewTokens: 8, onToken: (e) => { if (e.step === at) throw stop; } }).catch((e) => { if (e !== stop) throw e; });
      const c = new AbortController();
      return model.generateText(prompt, { maxNewTokens: 8, signal: c.signal, onToken: (e) => { if (e.step === at) c.abort(); } }).catch((e) => { if (e !== c.signal.reason) throw e; });
    };
    for (let i = 0; i < 24; i++) await cancelled(i);
    const live = sf.liveBytes, heap = sf.heapBytes;
    for (let i = 0; i < 1000; i++) await cancelled(i);
    assert.equal(sf.liveBytes, live);
    assert.equal(sf.heapBytes, heap);
    assert.deepEqual((await model.generateText(prompt, { maxNewTokens: 8 })).ids, expected.ids);
  });

  test('while a generation runs every other call on the model is refused, from onToken or from outside', async () => {
    const errors = [];
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    const r = model.generateText(prompt, { maxNewTokens: 8, onToken: async (e) => {
      for (const call of [() => model.encodeText('Hello'), () => model.embed('Hello'), () => model.dispose(),
        () => model.generateText('Hello')]) {
        try { await call(); } catch (err) { errors.push(err); }
      }
      if (e.step === 2) await gate;  // the generation waits here while the code below calls in
    } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.throws(() => model.encodeText('Hello'), isBusyError);
    assert.throws(() => model.dispose(), isBusyError);
    await assert.rejects(model.generateText('Hello'), isBusyError);
    release();
    assert.deepEqual((await r).ids, expected.ids, 'the running generation was not disturbed');
    assert.equal(errors.length, 4 * 8);
    assert.ok(errors.every(isBusyError), errors.find((e) => !isBusyError(e))?.message);
    assert.equal(model.disposed, false);
    // Usable again once it settled.
    assert.deepEqual(Array.from(model.encodeText('Hello').ids), Array.from((await model.generateText('Hello', { maxNewTokens: 1 })).promptIds));
  });

  test('sampling: a seed repeats a run, the seed used is reported; stop tokens and texts end a prompt', async () => {
    const a = await model.generateText(prompt, { maxNewTokens: 12, temperature: 1.3, topK: 40, topP: 0.95, seed: 42, stop: [] });
    const b = await model.generateText(prompt, { maxNewTokens: 12, temperature: 1.3, topK: 40, topP: 0.95, seed: 42, stop: [] });
    assert.deepEqual(a.ids, b.ids);
    assert.equal(a.seed, 42);
    const c = await model.generateText(prompt, { maxNewTokens: 12, temperature: 1.3, stop: [] });
    assert.ok(Number.isSafeInteger(c.seed));
    assert.deepEqual((await model.generateText(prompt, { maxNewTokens: 12, temperature: 1.3, seed: c.seed, stop: [] })).ids, c.ids);
    const byId = await model.generateText(prompt, { maxNewTokens: 8, stop: [expected.ids[3]] });
    assert.deepEqual(byId.ids, expected.ids.slice(0, 4));
    assert.equal(byId.finishReason, 'stop');
    const piece = expected.text.slice(0, expected.text.indexOf(expected.tokens[2].replace('Ġ', ' ')) + 2);
    const byText = await model.generateText(prompt, { maxNewTokens: 8, stop: piece.slice(-3) });
    assert.equal(byText.finishReason, 'stop');
    assert.ok(byText.text.includes(piece.slice(-3)) && byText.ids.length < 8, byText.text);
  });

  test("sampling options as Hugging Face reads them: topK 0 (none) or above the vocabulary, topP 0 (the best) or 1", async () => {
    const vocab = model.info.vocab_size;
    const sample = (o) => model.generateText(prompt, { maxNewTokens: 6, temperature: 1.3, seed: 7, stop: [], ...o });
    const free = (await sample({})).ids;
    for (const topK of [0, vocab, vocab + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) assert.deepEqual((await sample({ topK })).ids, free, `topK ${topK}`);
    assert.deepEqual((await sample({ topP: 1 })).ids, free);
    // topP 0 keeps only the best token: the greedy continuation, whatever the temperature.
    const greedy = (await model.generateText(prompt, { maxNewTokens: 6, stop: [] })).ids;
    assert.deepEqual((await sample({ topP: 0, temperature: 5 })).ids, greedy);
  });

  test('stop is read once, each id once: repeats, holes, sparse lists and 1024 / 1025 different ids', async () => {
    const bad = async (options, pattern) => assert.rejects(model.generateText(prompt, options),
      (e) => e instanceof SimdformerError && pattern.test(e.message), String(pattern));
    // 2000 copies of one id are one stop token (they were "more than 64 stop token ids").
    const repeated = await model.generateText(prompt, { maxNewTokens: 8, stop: Array(2000).fill(expected.ids[3]) });
    assert.deepEqual(repeated.ids, expected.ids.slice(0, 4));
    assert.equal(repeated.finishReason, 'stop');
    await bad({ stop: [expected.ids[3], , 5] }, /stop\[1\] must be a token id/);
    const sparse = new Array(2 ** 32 - 1);
    sparse[0] = 5;
    const start = Date.now();
    await bad({ stop: sparse }, /stop\[1\] must be a token id .* got undefined/);  // at once, not a walk of 2^32 slots
    assert.ok(Date.now() - start < 2000, `took ${Date.now() - start} ms`);
    const ids = Array.from({ length: 1025 }, (_, i) => i);
    assert.equal((await model.generateText(prompt, { maxNewTokens: 2, stop: ids.slice(0, 1024) })).promptIds.length, expected.promptIds.length);
    await bad({ stop: ids }, /at most 1024 different stop token ids, got 1025/);
  });

  test('chatTemplate must be an object (applyChatTemplate\'s options), whatever the input', async () => {
    for (const chatTemplate of ['{{ messages }}', 5, [], true]) {
      await assert.rejects(model.generateText(prompt, { maxNewTokens: 1, chatTemplate }),
        (e) => e instanceof SimdformerError && /chatTemplate must be an object/.test(e.message), String(chatTemplate));
    }
    assert.equal((await model.generateText(prompt, { maxNewTokens: 1, chatTemplate: null })).ids.length, 1);
  });

  test('option and input errors name the problem', async () => {
    const bad = async (input, options, pattern) => assert.rejects(model.generateText(input, options),
      (e) => e instanceof SimdformerError && pattern.test(e.message), String(pattern));
    await bad(prompt, { maxNewTokens: 40 }, /exceed the model's 40 positions/);
    await bad(prompt, { maxNewTokens: 0 }, /maxNewTokens must be an integer in \[1, 40\]/);
    await bad(prompt, { temperature: -1 }, /temperature must be a number/);
    await bad(prompt, { temperature: 0, topK: 3 }, /temperature 0 asks for greedy/);
    for (const topP of [-0.1, 1.1, NaN, Infinity]) await bad(prompt, { topP }, /topP must be a number in \[0, 1\]/);
    for (const topK of [-1, 1.5, Infinity]) await bad(prompt, { topK }, /topK must be an integer in \[0, /);
    await bad(prompt, { stop: [1.5] }, /stop\[0\] must be a token id/);
    await bad(prompt, { signal: {} }, /signal must be an AbortSignal/);
    await bad(prompt, { colour: 1 }, /unknown option 'colour'/);
    await bad([1, 2, 5000], {}, /token id 5000 at index 2/);
    await bad([], {}, /non-empty array/);
    await bad('x'.repeat(100), {}, /positions/);
    const bert = await sf.loadPretrained(folder('bert'));
    await assert.rejects(bert.generateText('Hello'), (e) => e.code === 'unsupported' && /causal language model/.test(e.message));
    bert.dispose();
  });
});

// A copy of the gpt2 folder with `change(dir)` applied, in a temporary directory.
function gpt2Copy(change) {
  const dir = mkdtempSync(join(tmpdir(), 'sf-gpt2-'));
  cpSync(folder('gpt2'), dir, { recursive: true });
  change(dir);
  return dir;
}

describe('models that break generation', async () => {
  const sf = await init();
  const prompt = 'The quick brown fox';
  const reference = await sf.loadPretrained(folder('gpt2'));
  const expected = await reference.generateText(prompt, { maxNewTokens: 8, stop: [] });
  reference.dispose();

  test("65 eos ids in generation_config.json stop generation as one does; more than 1024 are refused by name", async () => {
    const eos = (ids) => gpt2Copy((dir) => writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: ids })));
    const unused = Array.from({ length: 1057 }, (_, i) => i).filter((id) => !expected.ids.includes(id));
    const dir = eos([...unused.slice(0, 64), expected.ids[3]]);
    const dirs = [dir, eos(unused.slice(0, 1025))];
    try {
      const model = await sf.loadPretrained(dir);
      const r = await model.generateText(prompt, { maxNewTokens: 8 });
      assert.deepEqual(r.ids, expected.ids.slice(0, 4));
      assert.equal(r.finishReason, 'stop');
      model.dispose();
      const many = await sf.loadPretrained(dirs[1]);
      await assert.rejects(many.generateText(prompt, { maxNewTokens: 2 }),
        (e) => e instanceof SimdformerError && /at most 1024 different stop token ids \(the model's eos ids\), got 1025/.test(e.message));
      assert.equal((await many.generateText(prompt, { maxNewTokens: 2, stop: [] })).ids.length, 2);  // stop given: the eos ids are not read
      many.dispose();
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  // HF's generate() stops a sequence at any id of GenerationConfig.eos_token_id (EosTokenCriteria,
  // generation/stopping_criteria.py: isin(last token, eos ids)); generation_config.json's list
  // comes first, config.json's (a list too, for Llama 3) otherwise. The CLI's --stop texts are
  // added to those ids, as stop_strings add to eos_token_id.
  test('a list of eos ids stops at any of them, from generation_config.json or config.json; model.eosTokenIds lists them; --stop keeps them', async () => {
    const ids = Array.from(expected.ids), first = (k) => ids.indexOf(ids[k]);  // where the k-th id first appears
    const unused = Array.from({ length: 1057 }, (_, i) => i).filter((id) => !ids.includes(id));
    const fromGeneration = [unused[0], ids[2], unused[1]];
    const dirs = [
      gpt2Copy((dir) => writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: fromGeneration }))),
      gpt2Copy((dir) => {
        const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, eos_token_id: [unused[2], ids[5], 50256] }));
      }),
    ];
    try {
      const a = await sf.loadPretrained(dirs[0]);
      assert.deepEqual(a.eosTokenIds, fromGeneration);
      const r = await a.generateText(prompt, { maxNewTokens: 8 });
      assert.deepEqual(Array.from(r.ids), ids.slice(0, first(2) + 1));
      assert.equal(r.finishReason, 'stop');
      // Given with a stop text, they still stop (the text never appears).
      assert.deepEqual((await a.generateText(prompt, { maxNewTokens: 8, stop: [...a.eosTokenIds, 'never there'] })).ids, r.ids);
      a.dispose();
      const b = await sf.loadPretrained(dirs[1]);
      assert.deepEqual(b.eosTokenIds, [unused[2], ids[5]]);  // 50256 is outside the 1057-token vocabulary
      assert.deepEqual(b.info.eos_token_ids, [unused[2], ids[5]]);
      assert.deepEqual(Array.from((await b.generateText(prompt, { maxNewTokens: 8 })).ids), ids.slice(0, first(5) + 1));
      b.dispose();
      const cli = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'generate', '--json', '--model', dirs[0], '--prompt', prompt,
        '--max-new-tokens', '8', '--stop', 'never there'], { encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      assert.deepEqual(JSON.parse(cli.stdout).results[0].ids, Array.from(r.ids));
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  // (Weights holding NaN are refused at load; finite ones can still overflow.)
  test('activations that overflow: the step whose logits are NaN rejects, saying so (not token 0 forever); greedy and sampling', async () => {
    // ln_f's gains of 3e38 make its output +-Infinity, and the LM head's sums Infinity - Infinity.
    const dir = gpt2Copy((dir) => {
      const file = join(dir, 'model.safetensors');
      const bytes = readFileSync(file);
      const n = Number(bytes.readBigUInt64LE(0));
      const [begin, end] = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'))['transformer.ln_f.weight'].data_offsets;
      for (let at = begin; at < end; at += 4) bytes.writeFloatLE(3e38, 8 + n + at);
      writeFileSync(file, bytes);
    });
    try {
      const model = await sf.loadPretrained(dir);
      let base;
      for (const round of [1, 2]) {  // the first round sizes the model's workspace; the second allocates nothing more
        for (const options of [{}, { temperature: 0.8, seed: 3 }, { temperature: 1e-30, seed: 3 }]) {
          await assert.rejects(model.generateText(prompt, { maxNewTokens: 4, ...options }),
            (e) => e instanceof SimdformerError && e.code === 'invalid_argument' && /logits of item 0 are NaN/.test(e.message), JSON.stringify(options));
        }
        if (round === 1) base = sf.mallocBytes;
      }
      assert.equal(sf.mallocBytes, base, 'nothing left allocated');
      assert.deepEqual(Array.from(model.encodeText(prompt).ids), Array.from(expected.promptIds), 'the model still works');
      model.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('the encoder-decoder generate stops at the step whose onProgress throws', async () => {
  const sf = await init();
  const { configOf, modelPath } = await import('./helpers.mjs');
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  for (let at = 1; at <= 7; at++) {
    let calls = 0;
    const stop = new Error('stop');
    assert.throws(() => model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: (p) => { calls++; if (p.step === at) throw stop; } }), (e) => e === stop);
    assert.equal(calls, at);
  }
  model.dispose();
});

test('CLI: generate --model <folder> prints the prompt and its continuation', () => {
  const cli = join(DIST, 'cli.mjs');
  const t = texts('gpt2').generate;
  const run = spawnSync(process.execPath, [cli, 'generate', '--model', folder('gpt2'), '--prompt', t.prompt, '--max-new-tokens', '8'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const continuation = run.stdout.slice(t.prompt.length, -1);
  assert.ok(run.stdout.startsWith(t.prompt) && run.stdout.endsWith('\n'));
  assert.match(run.stderr, /\[8 tokens in \d+ ms.*; length\]/);
  const json = spawnSync(process.execPath, [cli, 'generate', '--json', '--model', folder('gpt2'), '--prompt', t.prompt, '--max-new-tokens', '8'], { encoding: 'utf8' });
  assert.equal(json.status, 0, json.stderr);
  const r = JSON.parse(json.stdout).results[0];
  assert.deepEqual(r.ids, t.new_ids);
  assert.equal(r.text, continuation);
  const sampled = (seed) => spawnSync(process.execPath, [cli, 'generate', '--json', '--model', folder('gpt2'), '--prompt', t.prompt,
    '--temperature', '1.2', '--top-p', '0.9', '--seed', String(seed)], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(sampled(5).stdout).results[0].ids, JSON.parse(sampled(5).stdout).results[0].ids);
  const wrong = spawnSync(process.execPath, [cli, 'generate', '--model', folder('gpt2'), '--input', 'x.json'], { encoding: 'utf8' });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /--prompt/);
  // An error of the generation itself (here a negative temperature) comes after the streamed
  // prompt: the prompt's line is ended first, so the message does not continue it in a terminal.
  const failed = spawnSync(process.execPath, [cli, 'generate', '--model', folder('gpt2'), '--prompt', t.prompt, '--temperature=-1'], { encoding: 'utf8' });
  assert.equal(failed.status, 1, failed.stderr);
  assert.equal(failed.stdout, `${t.prompt}\n`);
  assert.match(failed.stderr, /^simdformer: .*temperature/);
});
