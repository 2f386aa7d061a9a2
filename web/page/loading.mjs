// Loading models: the bundled ones (the Model choices), a random playground, and a user's files
// (a Hugging Face folder, or a torch-dialect .safetensors with its config). Every load starts with
// beginLoad(record): the previous model's picture, errors and labels go at once, and the record
// (web/page/loaded-model.mjs) is what the page says about the model from then on.
import { bundledModel, describeBundled } from '../catalogue.mjs';
import { fetchKept } from '../model-store.mjs';
import { RANDOM_VOCAB } from '../random-model.mjs';
import { showKeptModels } from './kept-models.mjs';
import { isCurrent, showLoaded, textModelHelp, torchModelHelp, updateLoaded } from './loaded-model.mjs';
import { call } from './rpc.mjs';
import { clearPicture, schedule } from './runs.mjs';
import { $, clearErrors, showError, state } from './state.mjs';
import { takeInitialText } from './url-state.mjs';

const FILE_HELP = 'text for a Hugging Face model; token ids (or a length) for a torch-dialect file';

let loadSerial = 0;
function beginLoad(record) {
  state.family = null;
  state.config = null;
  state.info = null;
  state.loading = true;
  state.masked.src.clear();
  state.masked.tgt.clear();
  state.visible = [];
  state.head = 0;
  clearPicture();
  clearErrors();
  $('precision-report').textContent = '';
  showLoaded(record);
  return ++loadSerial;
}

// The worker's answer to this load, or null once a newer load began: the worker then aborts
// this one (its error is no news for the page) and the newer one's answer is what counts.
async function loadReply(serial, source, onProgress) {
  try {
    const r = await call('load', { source }, onProgress);
    return serial === loadSerial ? r : null;
  } catch (e) {
    if (serial !== loadSerial) return null;
    throw e;
  }
}

// `prepareInput(r)` fits the input box to the loaded model before the first run is scheduled, so
// that run never sees the previous model's input.
async function loadTorch(source, vocab, record, prepareInput = () => {}) {
  const serial = beginLoad(record);
  const r = await loadReply(serial, source);
  if (r === null) return null;
  state.family = 'torch';
  state.loading = false;
  state.config = r.config;
  state.vocab = vocab;
  state.modelName = record.name;
  // Open on the last layer: in trained models the most legible heads (e.g. the reversal's
  // anti-diagonal) usually sit there.
  state.layer = Math.max(0, (r.config.num_decoder_layers || r.config.num_encoder_layers || 1) - 1);
  $('precision').hidden = true;
  $('generate-box').hidden = true;
  $('score').querySelector('[value=additive]').disabled = !(r.config.additive_dim > 0);
  if ($('score').value === 'additive' && !(r.config.additive_dim > 0)) $('score').value = 'scaled-dot';
  $('torch-options').hidden = false;
  prepareInput(r);
  schedule();
  showKeptModels();
  return r;
}

// A Hugging Face folder (bundled URL or the user's files), with progress.
export async function loadText(source, record, onProgress, prepareInput = () => {}) {
  const serial = beginLoad(record);
  state.textSource = { source, record };
  const weights = $('weights').value;
  const r = await loadReply(serial, { ...source, weights: weights === 'f32' ? undefined : weights }, onProgress);
  if (r === null) return null;
  state.family = 'text';
  state.loading = false;
  state.timeline.modelLoaded ??= performance.now();
  state.info = r.info;
  state.maxLength = r.maxLength;
  state.maskToken = r.maskToken;
  state.modelName = record.name;
  state.layer = 0;
  state.loadMs = r.loadMs;
  state.canGenerate = r.canGenerate;
  $('generate-box').hidden = !r.canGenerate;
  $('torch-options').hidden = true;
  $('precision').hidden = false;
  prepareInput(r);
  schedule();
  showKeptModels();
  return r;
}

// A Model choice (radio button).
export async function selectModel(kind) {
  clearErrors();  // messages about the previous model or input no longer apply
  try {
    if (bundledModel(kind)) await loadBundled(kind);
    else if (kind === 'reverse') await loadReverse();
    else if (kind === 'random') await loadRandom();
    else {
      beginLoad({ choice: 'file', name: '', help: FILE_HELP, status: 'no model loaded yet' });
      state.loading = false;
    }
  } catch (e) {
    clearPicture();
    showError(`cannot load the model: ${e.message}`, 'page');
  }
}

async function loadBundled(kind) {
  const m = bundledModel(kind);
  const record = { choice: kind, name: m.url.split('/').at(-2), help: m.help };
  $('text').value = takeInitialText() ?? m.example;
  describeBundled(m.url).then((d) => updateLoaded(record, { about: d.metrics, heads: d.heads, measured: d.measured, thresholds: d.thresholds }));
  await loadText({ kind: 'hf-url', url: m.url }, record);
}

async function loadReverse() {
  const record = { choice: 'reverse', name: 'reverse digits', help: '2 to 10 digits: the model writes them backwards' };
  beginLoad(record);  // the previous model's picture, errors and labels go now, not once the config is here
  const linked = takeInitialText();
  if (linked !== null) $('text').value = linked;
  else if (!/^[0-9]{2,10}$/.test($('text').value)) $('text').value = '0123456789';
  const [config, vocab] = await Promise.all([fetchKept('models/reverse/config.json').then((r) => r.json()),
                                             fetchKept('models/reverse/vocab.json').then((r) => r.json())]);
  if (!isCurrent(record)) return;  // another model was chosen meanwhile
  await loadTorch({ kind: 'url', url: 'models/reverse/model.safetensors', config }, vocab, record);
}

export async function loadRandom() {
  const d = Number($('rand-d').value), h = Number($('rand-h').value);
  const record = { choice: 'random', name: `random d${d} h${h}`, help: 'any text (up to 48 characters); weights are random' };
  if (d % h) { beginLoad(record); state.loading = false; showError(`d_model=${d} is not divisible by ${h} heads`); return; }
  const linked = takeInitialText();
  if (linked !== null) $('text').value = linked;
  else if (/^[0-9]+$/.test($('text').value)) $('text').value = 'attention is all you need';
  await loadTorch({ kind: 'random', d_model: d, nhead: h, layers: Number($('rand-l').value), seed: Number($('rand-seed').value) || 0 },
                  RANDOM_VOCAB, record);
}

// Picked or dropped files: a Hugging Face folder when config.json is among them, else a torch-
// dialect .safetensors with its config .json.
export async function loadFiles(files) {
  const list = Array.from(files);
  if (!list.length) return;
  const relative = (f) => (f.webkitRelativePath ? f.webkitRelativePath.split('/').slice(1).join('/') : f.name);
  if (list.some((f) => relative(f) === 'config.json')) await loadFolderFiles(list);
  else await loadTorchFiles(list);
}

async function loadFolderFiles(list) {
  const folder = list[0].webkitRelativePath ? list[0].webkitRelativePath.split('/')[0] : 'the chosen files';
  const record = { choice: 'file', name: folder, help: FILE_HELP, status: `loading ${folder}…` };
  const progress = $('load-progress');
  progress.hidden = false;
  progress.value = 0;
  try {
    const textFor = (r) => {
      if ($('text').value.trim() && !/^[\d\s]+$/.test($('text').value)) return;
      $('text').value = r.info.has_mlm_head ? `The cat sat on the ${r.maskToken ?? '[MASK]'}.` : 'The cat sat on the mat.';
    };
    const onProgress = (p) => {
      if (!isCurrent(record)) return;
      if (p.total > 0) progress.value = p.loaded / p.total;
      updateLoaded(record, { status: `loading ${folder}: ${p.stage}${p.total ? ` ${Math.round((100 * p.loaded) / p.total)} %` : ''}` });
    };
    const r = await loadText({ kind: 'files', files: list.map((file) => ({ path: file.webkitRelativePath || '', file })) }, record, onProgress,
                             (loaded) => { textFor(loaded); updateLoaded(record, { help: textModelHelp(loaded.info, loaded.maskToken) }); });
    if (!r) return;
    const i = r.info;
    updateLoaded(record, { status: `${folder}: ${i.architecture}, ${i.n_layers} layers × ${i.n_heads} heads, d_model ${i.d_model}, ${i.parameters.toLocaleString('en')} parameters, ${i.dtype} → ${i.weights}` });
  } catch (e) {
    clearPicture();
    updateLoaded(record, { status: '' });
    showError(`cannot load ${folder}: ${e.message}`, 'file');
  } finally {
    progress.hidden = true;
  }
}

async function loadTorchFiles(list) {
  const weights = list.find((f) => f.name.endsWith('.safetensors'));
  const configFile = list.find((f) => f.name.endsWith('.json'));
  if (!weights) {
    beginLoad({ choice: 'file', name: '', help: FILE_HELP });
    state.loading = false;
    showError('choose a model folder with config.json, or a .safetensors file with its config .json', 'file');
    return;
  }
  const record = { choice: 'file', name: weights.name, help: FILE_HELP, status: `loading ${weights.name}…` };
  beginLoad(record);  // the previous model's picture and labels go now, not once the bytes are read
  try {
    const bytes = new Uint8Array(await weights.arrayBuffer());
    const config = configFile ? JSON.parse(await configFile.text()) : undefined;
    // Token-id models keep typed ids; vector models take a sequence length.
    const inputFor = ({ config: c }) => {
      if (!(c.src_vocab_size > 0 || c.tgt_vocab_size > 0)) $('text').value = '6';
      else if (!/^[\d\s]+$/.test($('text').value) || !$('text').value.trim()) $('text').value = '3 4 5 6';
      updateLoaded(record, { help: torchModelHelp(c) });
    };
    const r = await loadTorch({ kind: 'bytes', bytes, config }, null, record, inputFor);
    if (!r) return;
    updateLoaded(record, { status: `${weights.name}: ${r.config.model_type}, d_model ${r.config.d_model}, ${r.config.nhead} heads, ${r.parameterCount} parameters` });
  } catch (e) {
    clearPicture();
    updateLoaded(record, { status: '' });
    showError(`cannot load ${weights.name}: ${e.message}`, 'file');
  }
}

// A dropped folder arrives as directory entries: walk them so every file keeps its path
// relative to the folder (as the folder picker gives it in webkitRelativePath).
export async function droppedFiles(transfer) {
  const entries = Array.from(transfer.items ?? []).map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.some((e) => e.isDirectory)) return Array.from(transfer.files);
  const out = [];
  const walk = async (entry, path) => {
    if (entry.isFile) {
      const file = await new Promise((ok, fail) => entry.file(ok, fail));
      Object.defineProperty(file, 'webkitRelativePath', { value: `${path}${entry.name}` });
      out.push(file);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
        if (!batch.length) break;
        for (const child of batch) await walk(child, `${path}${entry.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}
