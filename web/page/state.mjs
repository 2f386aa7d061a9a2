// Everything the page shows, in one object (exposed as window.__demo for the end-to-end tests),
// and the messages next to where the user acted.
export const $ = (id) => document.getElementById(id);
export const TEXT_TOKENS = 512;  // longest text shown (announced when cut): every view draws up to here

export const state = {
  ready: false, runs: 0, model: 'gpt2', family: null, config: null, info: null, vocab: null, result: null, labels: null,
  kind: 'encoder', layer: 0, head: 0, query: 0, masked: { src: new Set(), tgt: new Set() }, visible: [], error: '', errorsShown: 0,
  output: '', text: null, steps: null, stepRuns: 0, modelName: '', firstPictureMs: null, loading: false, predictions: null,
  classes: null, entities: null,  // a classifier's labels and rollout, a token classifier's entities
  loaded: null,  // what is loaded (or loading): web/page/loaded-model.mjs derives every label from it
  timeline: {},  // ms after navigation: engine ready, first model loaded, first picture (logged by the e2e test)
};
window.__demo = state;

export function showError(message, where = 'input') {
  state.error = message;
  if (message) state.errorsShown++;  // lets a test see an error a later run already replaced
  for (const [id, place] of [['input-error', 'input'], ['file-error', 'file'], ['error', 'page']]) $(id).textContent = place === where ? message : '';
}
export const clearErrors = () => showError('', 'none');
export const note = (message) => { $('input-note').textContent = message; state.note = message; };
