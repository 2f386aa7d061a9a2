// Masked-token prediction with a ...ForMaskedLM Hugging Face folder, as the fill-mask pipeline.
//   node examples/node/fill-mask.mjs [model-folder] ["text with [MASK]"]
import { init } from '../../dist/node.mjs';  // in your project: from 'simdformer'

const [folder = new URL('../../tests/data/hf/bert_mlm_f16', import.meta.url).pathname,
       text = 'The quick brown fox jumps over the lazy [MASK].'] = process.argv.slice(2);
const sf = await init();
const model = await sf.loadPretrained(folder);
const { masks, truncated } = model.fillMask(text, { topK: 5 });
console.log(`${text}${truncated ? ' (cut to the model\'s length)' : ''}`);
for (const { index, predictions } of masks) {
  console.log(`  token ${index}:`);
  for (const p of predictions) console.log(`    ${p.score.toFixed(4)}  ${p.token.padEnd(12)} ${p.sequence}`);
}
model.dispose();
