// Sentence embeddings and their cosine similarities with a Hugging Face folder (BERT, MiniLM,
// BGE, RoBERTa, DistilBERT ...): config.json, model.safetensors, tokenizer.json.
// Without a folder it uses the small BERT the package ships (trained on Debian's fortunes).
//   node examples/node/embed.mjs [model-folder] [text ...]
import { bundledModelUrl, init } from 'simdformer';

const [folder = bundledModelUrl('fortune-bert'), ...given] = process.argv.slice(2);
const texts = given.length ? given : ['A fool and his money are soon parted.', 'Money cannot buy happiness.', 'The cat sat on the mat.'];

const sf = await init();
const model = await sf.loadPretrained(folder);
const vectors = model.embed(texts);  // Float32Array [d] each, L2-normalised: dot product = cosine
console.log(`${model.architecture}, ${model.info.n_layers} layers, d_model ${model.info.d_model}, ${sf.simd ? 'SIMD128' : 'scalar'}`);
texts.forEach((t, i) => {
  const sims = vectors.map((v) => v.reduce((s, x, k) => s + x * vectors[i][k], 0).toFixed(3));
  console.log(`${String(i).padStart(2)} ${sims.join(' ')}  ${t}`);
});
const r = model.encodeText(texts[0], { returnAttention: true });
const last = r.attentions.at(-1)[0];  // last layer, head 0: [n, n]
const n = r.length;
console.log(`\n${texts[0]}\nlast layer, head 0: which token each token attends to most`);
for (let q = 0; q < n; q++) {
  const row = last.data.subarray(q * n, (q + 1) * n);
  const k = row.indexOf(Math.max(...row));
  const [start, end] = r.offsets[q];
  console.log(`  ${r.tokens[q].padEnd(10)} (${JSON.stringify(texts[0].slice(start, end))}) -> ${r.tokens[k]}`);
}
model.dispose();
