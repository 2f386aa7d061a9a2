// Llama, Qwen2 and Mistral folders (tests/data/hf/llama_*, qwen2, mistral_window, written by
// scripts/fixtures/make_llama_fixtures.py) through loadPretrained, on the SIMD and scalar builds:
// greedy continuations equal the PyTorch reference token for token; encodeText's attention is one
// map per query head equal to the reference's; info names the key/value heads; eos lists stop
// generation; chat templates render as transformers' Jinja2 renders them (texts.json's
// expectation comes from Jinja2 itself) and generateText takes a conversation; templates that
// raise, do not parse or ask for a huge range are clear errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { writeCheckpoint } from './checkpoint-file.mjs';
import { DATA, DIST, maxAbsDiff, readTensors } from './helpers.mjs';

const folder = (name) => join(DATA, 'hf', name);
const golden = (name) => readTensors(join(folder(name), 'golden.safetensors'));
const texts = (name) => JSON.parse(readFileSync(join(folder(name), 'texts.json'), 'utf8'));
const CASES = ['llama_gqa', 'llama_mqa_llama3_bf16', 'llama_linear_bias_f16_sharded', 'llama_dynamic', 'qwen2', 'mistral_window'];
const ARCHITECTURE = { llama: 'llama', qwen2: 'qwen2', mistral: 'mistral' };

// A folder in memory, with this tokenizer_config.json (to try templates).
function withTokenizerConfig(name, tokenizerConfig) {
  return {
    config: readFileSync(join(folder(name), 'config.json'), 'utf8'),
    weights: readFileSync(join(folder(name), 'model.safetensors')),
    tokenizer: readFileSync(join(folder(name), 'tokenizer.json'), 'utf8'),
    tokenizerConfig,
  };
}

const rejectsWith = (promise, code, pattern) => assert.rejects(promise, (e) => {
  assert.ok(e instanceof SimdformerError, `a SimdformerError, got ${e}`);
  assert.equal(e.code, code, e.message);
  assert.match(e.message, pattern);
  return true;
});

// A TinyLlama-shaped folder (1.1 B parameters, 4.4 GB as F32) whose model.safetensors is a
// sparse file: a valid header and no data written. -> the folder.
function sparseTinyLlama() {
  const dir = mkdtempSync(join(tmpdir(), 'simdformer-tinyllama-'));
  const [V, d, L, ff, kv] = [32000, 2048, 22, 5632, 256];
  const shapes = [['model.embed_tokens.weight', [V, d]], ['model.norm.weight', [d]], ['lm_head.weight', [V, d]]];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    shapes.push([`${p}input_layernorm.weight`, [d]], [`${p}post_attention_layernorm.weight`, [d]],
      [`${p}self_attn.q_proj.weight`, [d, d]], [`${p}self_attn.k_proj.weight`, [kv, d]], [`${p}self_attn.v_proj.weight`, [kv, d]],
      [`${p}self_attn.o_proj.weight`, [d, d]], [`${p}mlp.gate_proj.weight`, [ff, d]], [`${p}mlp.up_proj.weight`, [ff, d]],
      [`${p}mlp.down_proj.weight`, [d, ff]]);
  }
  writeCheckpoint(join(dir, 'model.safetensors'), shapes, { fill: 'sparse' });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: d, intermediate_size: ff, num_hidden_layers: L,
    num_attention_heads: 32, num_key_value_heads: 4, vocab_size: V, max_position_embeddings: 2048, torch_dtype: 'float32',
  }));
  copyFileSync(join(folder('llama_gqa'), 'tokenizer.json'), join(dir, 'tokenizer.json'));
  return dir;
}

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build`, async () => {
    const sf = await init({ simd });

    for (const name of CASES) {
      test(`${name}: greedy continuation and every head's attention equal the reference`, async () => {
        const g = golden(name), t = texts(name);
        const model = await sf.loadPretrained(folder(name));
        const config = JSON.parse(readFileSync(join(folder(name), 'config.json'), 'utf8'));
        assert.equal(model.info.architecture, ARCHITECTURE[config.model_type]);
        assert.equal(model.info.causal, true);
        assert.equal(model.info.n_kv_heads, config.num_key_value_heads);
        assert.equal(model.info.norm, 'rms_norm');
        const r = await model.generateText(t.generate.prompt, { maxNewTokens: t.generate.max_new_tokens, stop: [] });
        assert.deepEqual(Array.from(r.promptIds), g['generate.prompt_ids'].data);
        assert.deepEqual(Array.from(r.ids), g['generate.new_ids'].data);
        // Row 0 of the golden batch: one attention map per query head, [n, n].
        const n = t.lengths[0];
        const out = model.encodeText(t.batch[0], { returnAttention: true });
        assert.equal(out.attentions[0].length, model.info.n_heads);
        const H = model.info.n_heads, N = g['input_ids'].shape[1];
        for (let l = 0; l < model.info.n_layers; l++) {
          const want = g[`attentions.${l}`].data;
          for (let h = 0; h < H; h++) {
            const { data, shape } = out.attentions[l][h];
            assert.deepEqual(shape, [n, n]);
            const rows = [];
            for (let i = 0; i < n; i++) rows.push(...want.slice((h * N + i) * N, (h * N + i) * N + n));
            assert.ok(maxAbsDiff(data, rows) <= 1e-4, `layer ${l} head ${h}`);
          }
        }
        model.dispose();
      });
    }

    test('attentionSteps: every query head with the key/value head it reads, q and k before and after the rotation', async () => {
      for (const name of ['llama_gqa', 'llama_mqa_llama3_bf16', 'qwen2']) {
        const g = golden(name), t = texts(name);
        const model = await sf.loadPretrained(folder(name));
        const { n_heads: H, n_kv_heads: KV, head_dim: dh } = model.info;
        const n = t.lengths[0];
        for (let head = 0; head < H; head++) {
          const s = model.attentionSteps(t.batch[0], { layer: 1, head });
          const kvHead = Math.floor(head / (H / KV));
          assert.equal(s.kvHead, kvHead);
          assert.equal(s.dHead, dh);
          const slice = (key, h) => g[`steps.layer1.${key}`].data.slice(h * n * dh, (h + 1) * n * dh);
          assert.ok(maxAbsDiff(s.q, slice('q', head)) <= 1e-4, `${name} head ${head} q`);
          assert.ok(maxAbsDiff(s.k, slice('k', kvHead)) <= 1e-4, `${name} head ${head} k`);
          assert.ok(maxAbsDiff(s.qBeforeRotation, slice('q_before', head)) <= 1e-4, `${name} head ${head} q before`);
          assert.ok(maxAbsDiff(s.kBeforeRotation, slice('k_before', kvHead)) <= 1e-4, `${name} head ${head} k before`);
          // The engine's weights are the softmax of the steps' scores.
          for (let i = 0; i < n; i++) {
            const row = Array.from(s.scores.slice(i * n, (i + 1) * n));
            const top = Math.max(...row), e = row.map((x) => Math.exp(x - top)), sum = e.reduce((a, b) => a + b, 0);
            assert.ok(maxAbsDiff(e.map((x) => x / sum), s.weights.slice(i * n, (i + 1) * n)) <= 1e-5, `${name} head ${head} row ${i}`);
          }
        }
        model.dispose();
      }
    });

    test('eos_token_id as a list (Llama 3): every id stops generation by default', async () => {
      const model = await sf.loadPretrained(folder('llama_mqa_llama3_bf16'));
      assert.deepEqual(model.info.eos_token_ids, [1056, 0]);
      const g = golden('llama_mqa_llama3_bf16');
      const want = g['generate.new_ids'].data;
      // Stop at the reference's third token by making it the only stop id, then by default.
      const stopped = await model.generateText(Array.from(g['generate.prompt_ids'].data), { maxNewTokens: 8, stop: [want[2]] });
      assert.deepEqual(Array.from(stopped.ids), want.slice(0, want.indexOf(want[2]) + 1));
      assert.equal(stopped.finishReason, 'stop');
      const free = await model.generateText(Array.from(g['generate.prompt_ids'].data), { maxNewTokens: 8 });
      const firstEos = want.findIndex((id) => id === 1056 || id === 0);
      assert.deepEqual(Array.from(free.ids), firstEos < 0 ? want : want.slice(0, firstEos + 1));
      model.dispose();
    });

    test("generation_config.json's eos ids come before config.json's", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'simdformer-genconfig-'));
      try {
        for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(folder('llama_gqa'), f), join(dir, f));
        const want = golden('llama_gqa')['generate.new_ids'].data;
        writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: 1056, eos_token_id: [want[1], 99999] }));
        const model = await sf.loadPretrained(dir);
        const r = await model.generateText(Array.from(golden('llama_gqa')['generate.prompt_ids'].data), { maxNewTokens: 8 });
        assert.deepEqual(Array.from(r.ids), want.slice(0, want.indexOf(want[1]) + 1));
        assert.equal(r.finishReason, 'stop');
        model.dispose();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('applyChatTemplate renders as transformers renders (Jinja2), and generateText takes the conversation', async () => {
      const chat = texts('llama_gqa').chat;
      const model = await sf.loadPretrained(folder('llama_gqa'));
      assert.equal(model.hasChatTemplate, true);
      assert.equal(await model.applyChatTemplate(chat.messages, { addGenerationPrompt: true }), chat.rendered);
      assert.equal(await model.applyChatTemplate(chat.messages), chat.rendered_without_generation_prompt);
      assert.deepEqual(Array.from(await model.applyChatTemplate(chat.messages, { addGenerationPrompt: true, tokenize: true })), chat.prompt_ids);
      const r = await model.generateText(chat.messages, { maxNewTokens: 6, stop: [] });
      assert.deepEqual(Array.from(r.promptIds), chat.prompt_ids);
      assert.deepEqual(Array.from(r.ids), chat.new_ids);
      // A batch of conversations, each as alone.
      const both = await model.generateText([chat.messages, chat.messages.slice(0, 1)], { maxNewTokens: 3, stop: [] });
      assert.deepEqual(Array.from(both[0].ids), chat.new_ids.slice(0, 3));
      model.dispose();
    });

    test('named templates, special tokens and a template given in the call', async () => {
      // The fixture's own class: without one, model_type llama picks LlamaTokenizerFast, which adds
      // "<s>" / "</s>" (not in this vocabulary) as new tokens past the embedding table's rows.
      const tokenizerConfig = {
        tokenizer_class: 'GPT2Tokenizer', bos_token: { content: '<s>', __type: 'AddedToken' }, eos_token: '</s>',
        chat_template: [
          { name: 'default', template: '{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}{% endfor %}' },
          { name: 'tool_use', template: 'tools: {{ tools | length }}' },
        ],
      };
      const model = await sf.loadPretrained(withTokenizerConfig('llama_gqa', tokenizerConfig));
      const messages = [{ role: 'user', content: 'hi' }];
      assert.equal(await model.applyChatTemplate(messages), '<s>[user] hi</s>');
      assert.equal(await model.applyChatTemplate(messages, { tools: [{ name: 'a' }, { name: 'b' }] }), 'tools: 2');
      assert.equal(await model.applyChatTemplate(messages, { template: 'tool_use', tools: [] }), 'tools: 0');
      // tools: null is none (transformers' tools=None): the default template, not "tool_use".
      assert.equal(await model.applyChatTemplate(messages, { tools: null }), '<s>[user] hi</s>');
      assert.equal(await model.applyChatTemplate(messages, { template: '{{ messages[0].content | upper }}{{ x }}', variables: { x: '!' } }), 'HI!');
      model.dispose();
    });

    test('templates that raise, do not parse, loop without end or grow without bound, and models without one, are clear errors', async () => {
      const messages = [{ role: 'user', content: 'hi' }];
      const model = await sf.loadPretrained(folder('llama_gqa'));
      await rejectsWith(model.applyChatTemplate(messages, { template: "{{ raise_exception('only user and assistant roles') }}" }),
        'invalid_argument', /chat template failed: only user and assistant roles/);
      await rejectsWith(model.applyChatTemplate(messages, { template: '{% for m in messages %}' }), 'invalid_argument', /cannot be parsed|failed/);
      await rejectsWith(model.applyChatTemplate(messages, { template: '{% for i in range(1000000000) %}x{% endfor %}' }),
        'invalid_argument', /range\(\) of 1000000000 numbers exceeds/);
      await rejectsWith(model.applyChatTemplate(messages, { template: '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}' }),
        'invalid_argument', /chat template failed/);
      // Loops that would run for hours stop at the step budget; text beyond the text budget of
      // 2^27 characters is an error too, before a string longer than JavaScript can hold.
      await rejectsWith(model.applyChatTemplate(messages, { template: '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}' }),
        'invalid_argument', /ran more than 1000000 steps/);
      await rejectsWith(model.applyChatTemplate(messages, { template: "{% set s = 'xxxxxxxxxxxxxxxx' %}{% for i in range(40) %}{% set s = s + s %}{% endfor %}{{ s }}" }),
        'invalid_argument', /chat template failed: it made more than 134217728 characters of text/);
      // Within the step budget, 300 distinct 4-million-character strings kept in a list fill
      // 1.2 GB (a few more loop turns and V8 aborts the process when its heap runs out): the
      // text budget stops it after 32.
      const hoard = "{% set ns = namespace(s='x', l=[]) %}{% for i in range(22) %}{% set ns.s = ns.s + ns.s %}{% endfor %}"
        + '{% for i in range(300) %}{% set ns.l = ns.l + [ns.s | upper] %}{% endfor %}{{ ns.l | length }}';
      await rejectsWith(model.applyChatTemplate(messages, { template: hoard }), 'invalid_argument', /made more than 134217728 characters of text/);
      // A long real conversation is well inside the budget.
      const long = Array.from({ length: 1000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
      assert.ok((await model.applyChatTemplate(long, { addGenerationPrompt: true })).includes('message 999'));
      await rejectsWith(model.applyChatTemplate([]), 'invalid_argument', /messages must be a non-empty array/);
      await rejectsWith(model.applyChatTemplate([{ content: 'no role' }]), 'invalid_argument', /string role/);
      await rejectsWith(model.applyChatTemplate(messages, { addGenerationPrompt: 'yes' }), 'invalid_argument', /addGenerationPrompt/);
      await rejectsWith(model.applyChatTemplate(messages, { bogus: 1 }), 'invalid_argument', /unknown option 'bogus'/);
      // The model still works after every failure.
      assert.equal(typeof await model.applyChatTemplate(messages), 'string');
      model.dispose();
      const plain = await sf.loadPretrained(folder('qwen2'));
      assert.equal(plain.hasChatTemplate, false);
      await rejectsWith(plain.applyChatTemplate(messages), 'unsupported', /no chat template/);
      await rejectsWith(plain.generateText(messages), 'unsupported', /no chat template/);
      plain.dispose();
    });

    // A limit of the wasm heap only: natively (SIMDFORMER_BACKEND=native) memory is the machine's.
    test('a model the wasm heap (2 GiB, -sMAXIMUM_MEMORY) cannot hold is refused before anything is read, with the sizes', { skip: sf.backend === 'native' && 'the native backend has no wasm heap limit' }, async () => {
      const dir = sparseTinyLlama();
      try {
        const heapBefore = sf.heapBytes, liveBefore = sf.liveBytes;
        await rejectsWith(sf.loadPretrained(dir), 'out_of_memory', /weights need at least \d{4} MB as f32.*at most 2048 MB.*with weights 'int8' it would take 1[0-9]{3} MB/);
        assert.equal(sf.liveBytes, liveBefore, 'nothing is left allocated');
        assert.ok(sf.heapBytes - heapBefore < 16 << 20, `the heap grew by ${sf.heapBytes - heapBefore} bytes`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('grouped-query configs that cannot be computed are refused at load', async () => {
      const bad = (edit) => {
        const f = withTokenizerConfig('llama_gqa', {});
        f.config = JSON.stringify(edit(JSON.parse(f.config)));
        return sf.loadPretrained(f);
      };
      await rejectsWith(bad((c) => ({ ...c, num_key_value_heads: 3 })), 'invalid_argument', /num_key_value_heads.*3.*4/);
      await rejectsWith(bad((c) => ({ ...c, num_key_value_heads: 8 })), 'invalid_argument', /num_key_value_heads/);
      await rejectsWith(bad((c) => ({ ...c, rope_scaling: { rope_type: 'longrope', factor: 2 } })), 'unsupported', /longrope/);
    });
  });
}

test('the CLI: generate --chat renders the prompt as a user message (and --system before it)', async () => {
  const chat = texts('llama_gqa').chat;
  const cli = join(DIST, 'cli.mjs');
  const sf = await init();
  const model = await sf.loadPretrained(folder('llama_gqa'));
  const run = (...args) => spawnSync(process.execPath, [cli, 'generate', '--json', '--model', folder('llama_gqa'), '--max-new-tokens', '3', ...args], { encoding: 'utf8' });
  const user = chat.messages[2].content;
  const r = run('--chat', '--prompt', user);
  assert.equal(r.status, 0, r.stderr);
  const want = await model.generateText([{ role: 'user', content: user }], { maxNewTokens: 3 });
  assert.deepEqual(Object.values(JSON.parse(r.stdout).results[0].ids), Array.from(want.ids));
  const withSystem = run('--chat', '--system', 'Be brief.', '--prompt', user);
  assert.equal(withSystem.status, 0, withSystem.stderr);
  const promptIds = JSON.parse(withSystem.stdout).results[0].promptIds;
  const rendered = await model.applyChatTemplate([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: user }],
    { addGenerationPrompt: true, tokenize: true });
  assert.deepEqual(Object.values(promptIds), Array.from(rendered));
  const bad = run('--system', 'x', '--prompt', user);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--system goes with --chat/);
  model.dispose();
});
