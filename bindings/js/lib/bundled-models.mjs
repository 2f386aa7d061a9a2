// The trained models that ship inside the npm package (web/models/, next to dist/), so a new
// user has something real to run. Only their location is computed here: importing the library
// never reads them.
import { SimdformerError } from './errors.mjs';

/** name -> what it is and how it loads (loadPretrained: a Hugging Face folder; loadModel: nn.Transformer). */
export const BUNDLED_MODELS = Object.freeze({
  'fortune-gpt2': 'GPT-2-architecture language model trained on Debian\'s fortunes with repeated spans: a previous-token head (L0 H3) and three induction heads (layer 1), measured in heads.json (loadPretrained)',
  'fortune-llama': 'Llama-architecture language model (grouped-query attention, 4 query heads over 2 key/value heads) trained like fortune-gpt2 (loadPretrained)',
  'fortune-bert': 'BERT-architecture masked language model trained on Debian\'s fortunes (loadPretrained)',
  'fortune-topics': 'BERT-architecture text classifier (BertForSequenceClassification) fine-tuned from fortune-bert: which fortune file, computers / politics / science / work, a text reads like (loadPretrained; classify)',
  reverse: 'nn.Transformer encoder-decoder that writes a digit string backwards (loadModel: model.safetensors + config.json)',
});

/** The folder URL of a bundled model: a file: URL under Node.js, an http(s) URL in a browser. */
export function bundledModelUrl(name) {
  if (typeof name !== 'string' || !Object.hasOwn(BUNDLED_MODELS, name)) {
    throw new SimdformerError(`unknown bundled model ${JSON.stringify(name)}: the package ships ${Object.keys(BUNDLED_MODELS).join(', ')}`);
  }
  return new URL(`../../web/models/${name}/`, import.meta.url);
}
