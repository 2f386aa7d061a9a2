// Loading streams the weights: a >= 100 MB BERT-shaped checkpoint, written to a temporary folder
// at test time (never committed), is loaded in a fresh module, and the wasm heap grows by at most
// the packed weights + the largest tensor + 10 % (packed weights = the module's live bytes after
// the load). Prints the measured numbers.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { writeCheckpoint } from './checkpoint-file.mjs';
import { DATA } from './helpers.mjs';

// MiniLM-L12-shaped BertModel: 33.4 M parameters, 133 MB as F32.
const SHAPE = { vocab: 30522, positions: 512, types: 2, d: 384, layers: 12, heads: 12, ff: 1536 };

function tensors({ vocab, positions, types, d, layers, ff }) {
  const t = [
    ['embeddings.word_embeddings.weight', [vocab, d]], ['embeddings.position_embeddings.weight', [positions, d]],
    ['embeddings.token_type_embeddings.weight', [types, d]], ['embeddings.LayerNorm.weight', [d]], ['embeddings.LayerNorm.bias', [d]],
  ];
  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}.`;
    for (const m of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) t.push([`${p}${m}.weight`, [d, d]], [`${p}${m}.bias`, [d]]);
    t.push([`${p}attention.output.LayerNorm.weight`, [d]], [`${p}attention.output.LayerNorm.bias`, [d]]);
    t.push([`${p}intermediate.dense.weight`, [ff, d]], [`${p}intermediate.dense.bias`, [ff]]);
    t.push([`${p}output.dense.weight`, [d, ff]], [`${p}output.dense.bias`, [d]]);
    t.push([`${p}output.LayerNorm.weight`, [d]], [`${p}output.LayerNorm.bias`, [d]]);
  }
  t.push(['pooler.dense.weight', [d, d]], ['pooler.dense.bias', [d]]);
  return t;
}

const dir = mkdtempSync(join(tmpdir(), 'simdformer-load-memory-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('peak wasm heap during load <= packed weights + largest tensor + 10 %', async () => {
  const s = SHAPE;
  const list = tensors(s);
  const fileBytes = writeCheckpoint(join(dir, 'model.safetensors'), list);
  assert.ok(fileBytes >= 100e6, `checkpoint is ${fileBytes} bytes`);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: ['BertModel'], model_type: 'bert', hidden_size: s.d, num_hidden_layers: s.layers, num_attention_heads: s.heads,
    intermediate_size: s.ff, hidden_act: 'gelu', max_position_embeddings: s.positions, type_vocab_size: s.types, vocab_size: s.vocab,
    layer_norm_eps: 1e-12, pad_token_id: 0, hidden_dropout_prob: 0.1, attention_probs_dropout_prob: 0.1, initializer_range: 0.02,
    position_embedding_type: 'absolute', torch_dtype: 'float32', transformers_version: '4.44.0',
  }));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(DATA, 'hf', 'bert', f), join(dir, f));

  const sf = await init();  // a fresh module: its heap has seen nothing else
  const heapBefore = sf.heapBytes, liveBefore = sf.liveBytes;
  const model = await sf.loadPretrained(dir);
  const growth = sf.heapBytes - heapBefore;
  const packed = sf.liveBytes - liveBefore;
  const largest = Math.max(...list.map(([, shape]) => shape.reduce((a, b) => a * b, 1) * 4));
  const bound = Math.floor((packed + largest) * 1.1);
  const mib = (x) => `${(x / 2 ** 20).toFixed(1)} MiB`;
  console.log(`# load memory: checkpoint ${mib(fileBytes)}, packed weights ${mib(packed)}, largest tensor ${mib(largest)}, `
    + `heap ${mib(heapBefore)} -> ${mib(sf.heapBytes)} (growth ${mib(growth)}), bound ${mib(bound)}`);
  assert.ok(packed >= 0.9 * (fileBytes - 8), 'the live bytes hold the weights');
  assert.ok(growth <= bound, `heap grew ${growth} bytes, more than ${bound}`);
  const r = model.encodeText('Hello, world!');
  assert.deepEqual(r.shape, [6, s.d]);
  assert.ok(r.lastHiddenState.every(Number.isFinite));
  model.dispose();
});
