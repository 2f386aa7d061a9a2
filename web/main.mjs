// The demo page: wires the controls to the modules of web/page/ and starts the first model.
//   rpc.mjs          the worker that runs simdformer (started by index.html)
//   state.mjs        everything the page shows (window.__demo), error and note lines
//   loaded-model.mjs every label, hint and note about the loaded model, from one record
//   loading.mjs      bundled models, the playground, a user's folder or file
//   torch-input.mjs  the input box read for a torch-dialect model
//   runs.mjs         running the model on the input, the output lines
//   render.mjs       the heatmap, head view, model view and mask buttons
//   actions.mjs      generation, the f32 / int8 comparison, exports
//   kept-models.mjs  the models kept in this browser for offline use (web/model-store.mjs, web/sw.js)
//   url-state.mjs    the view in the page's URL, so that a link reproduces it
// Text models (GPT-2, BERT, any Hugging Face folder) and torch-dialect models (digit reversal,
// random playground, a user's safetensors file) share the views; errors appear next to the
// control that caused them, and every failure or model change clears the previous picture.
import { drawSteps } from './views/steps.mjs';
import { changePrecision, exportJson, exportView, generateTokens } from './page/actions.mjs';
import { droppedFiles, loadFiles, loadRandom, selectModel } from './page/loading.mjs';
import { onHeadExample } from './page/loaded-model.mjs';
import { onPictureAsks, render, renderKinds } from './page/render.mjs';
import { call } from './page/rpc.mjs';
import { runSteps, schedule } from './page/runs.mjs';
import { $, showError, state } from './page/state.mjs';
import { applyRandomOptions, linkedModel } from './page/url-state.mjs';

onPictureAsks({ headPicked: runSteps, maskChanged: schedule });
// A measured head's button (model view): its sentence in the input, that layer and head selected.
onHeadExample((m) => {
  $('text').value = m.text;
  state.masked.src.clear();
  state.masked.tgt.clear();
  state.layer = m.layer;
  state.head = m.head;
  schedule();
});
document.querySelectorAll('input[name=model]').forEach((r) => r.addEventListener('change', () => selectModel(r.value)));
for (const id of ['rand-d', 'rand-h', 'rand-l', 'rand-seed']) $(id).addEventListener('change', () => loadRandom().catch((e) => showError(e.message, 'page')));
$('text').addEventListener('input', () => { state.masked.src.clear(); state.masked.tgt.clear(); schedule(); });
for (const id of ['score', 'normalize', 'causal']) $(id).addEventListener('change', schedule);
$('kind').addEventListener('change', () => { state.kind = $('kind').value; renderKinds(); render(); });
$('layer').addEventListener('change', () => { state.layer = Number($('layer').value); render(); runSteps(); });
$('head').addEventListener('change', () => { state.head = Number($('head').value); render(); runSteps(); });
for (const id of ['scale-mode', 'zoom']) $(id).addEventListener('change', () => render());
$('weights').addEventListener('change', changePrecision);
$('generate').addEventListener('click', generateTokens);
$('query').addEventListener('change', () => {
  state.query = Number($('query').value);
  if (state.steps) drawSteps($('steps'), state.steps, state.text.labels, state.query);
});
$('file-input').addEventListener('change', (e) => loadFiles(e.target.files));
$('folder-input').addEventListener('change', (e) => loadFiles(e.target.files));
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  loadFiles(await droppedFiles(e.dataTransfer));
});
window.addEventListener('resize', () => render());
$('export-json').addEventListener('click', exportJson);
$('export-png').addEventListener('click', exportView);

// The engine compiles while the first model downloads: the worker queues the load behind it.
const engine = call('init').then((ready) => {
  $('build').textContent = ready.simd ? 'wasm SIMD128' : 'wasm scalar';
  state.build = ready.simd ? 'simd' : 'scalar';
  state.ready = true;
  state.timeline.engineReady = performance.now();
}, (e) => showError(`cannot start the engine: ${e.message}`, 'page'));
// #model=bert (or reverse, random, file) opens another model, and the rest of a link's view
// (web/page/url-state.mjs) follows it; any other name keeps the default.
applyRandomOptions();
const asked = document.querySelector(`input[name=model][value="${CSS.escape(linkedModel())}"]`);
if (asked) asked.checked = true;
await Promise.all([engine, selectModel(document.querySelector('input[name=model]:checked').value)]);
// Offline from the second visit on (web/sw.js), registered once the first picture is under way.
navigator.serviceWorker?.register('sw.js', { type: 'module' }).catch((e) => console.warn(`simdformer demo: no offline copy (${e.message})`));
