// Runs simdformer off the main thread: the page stays responsive while models load and run.
// Messages: {id, type: 'init' | 'load' | 'run', ...} -> {id, ok, ...} or {id, ok: false, error}.
import { init } from '/dist/browser.mjs';
import { randomTransformer } from './random-model.mjs';

let sf = null;
let model = null;

async function load(source) {
  let bytes, config;
  if (source.kind === 'url') {
    bytes = new Uint8Array(await (await fetch(source.url)).arrayBuffer());
    config = source.config;
  } else if (source.kind === 'bytes') {
    bytes = source.bytes;
    config = source.config;
  } else if (source.kind === 'random') {
    ({ bytes, config } = randomTransformer(source));
  } else {
    throw new Error(`unknown model source ${source.kind}`);
  }
  const next = await sf.loadModel(bytes, config);
  model?.dispose();
  model = next;
  return { config: model.config, parameterCount: model.parameterCount };
}

// One run of the current model for the page; returns every attention map it produced.
function run({ input, options, mode }) {
  const common = { returnAttention: true, score: options.score, normalize: options.normalize };
  const started = performance.now();
  let result;
  if (mode === 'generate') {
    const r = model.generate(input.tokens, { ...common, maxLength: input.maxLength, paddingMask: input.padding, causal: options.causal });
    result = { tokens: Array.from(r.tokens), encoder: r.encoderAttentions, decoder: r.decoderAttentions, cross: r.crossAttentions };
  } else if (mode === 'forward') {
    const r = model.forward(input.tokens, input.target, { ...common, srcPaddingMask: input.padding, srcCausal: options.causal });
    result = { encoder: r.encoderAttentions, decoder: r.decoderAttentions, cross: r.crossAttentions };
  } else {
    const extra = input.memory ? { memory: input.memory } : {};
    const r = model.encode(input.sequence, { ...common, paddingMask: input.padding, causal: options.causal, ...extra });
    result = input.memory ? { decoder: r.attentions, cross: r.crossAttentions } : { encoder: r.attentions };
  }
  return { ...result, ms: performance.now() - started };
}

self.onmessage = async ({ data }) => {
  try {
    let reply;
    if (data.type === 'init') {
      sf = await init({ simd: data.simd ?? 'auto' });
      reply = { simd: sf.simd, arch: sf.arch };
    } else if (data.type === 'load') {
      reply = await load(data.source);
    } else if (data.type === 'run') {
      reply = run(data);
    } else {
      throw new Error(`unknown message ${data.type}`);
    }
    self.postMessage({ id: data.id, ok: true, ...reply });
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, error: e.message ?? String(e) });
  }
};
