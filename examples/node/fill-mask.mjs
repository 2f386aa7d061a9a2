// Masked-token prediction with a ...ForMaskedLM Hugging Face folder, as the fill-mask pipeline.
// Without a folder it uses the small BERT the package ships (trained on Debian's fortunes).
//   node examples/node/fill-mask.mjs [model-folder] ["text with [MASK]"]
import { bundledModelUrl, init } from 'simdformer';

const [folder = bundledModelUrl('fortune-bert'), text = 'You will be [MASK] by a tall dark stranger.'] = process.argv.slice(2);
const sf = await init();
const model = await sf.loadPretrained(folder);
const { masks, truncated } = model.fillMask(text, { topK: 5 });
console.log(`${text}${truncated ? ' (cut to the model\'s length)' : ''}`);
for (const { index, predictions } of masks) {
  console.log(`  token ${index}:`);
  for (const p of predictions) console.log(`    ${p.score.toFixed(4)}  ${p.token.padEnd(12)} ${p.sequence}`);
}
model.dispose();
