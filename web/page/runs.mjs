// Running the loaded model on the page's input: one run at a time (a newer run supersedes an
// older one still in flight), then the picture is drawn and the output shown.
import { tokenLabels } from '../labels.mjs';
import { drawSteps } from '../views/steps.mjs';
import { drawClassification, drawEntities } from '../views/task-output.mjs';
import { architectureName } from './loaded-model.mjs';
import { render, renderKinds } from './render.mjs';
import { call } from './rpc.mjs';
import { $, TEXT_TOKENS, clearErrors, note, showError, state } from './state.mjs';
import { readTorchInput } from './torch-input.mjs';

// Removes every trace of the previous model's run: a failed load or a new model never leaves
// an old picture on the page.
export function clearPicture() {
  state.result = null;
  state.labels = null;
  state.steps = null;
  state.predictions = null;
  state.classes = null;
  state.entities = null;
  state.output = '';
  const canvas = $('heatmap');
  canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  canvas.height = 0;
  const lines = $('headview-canvas');
  lines.getContext('2d').clearRect(0, 0, lines.width, lines.height);
  lines.height = 0;
  for (const id of ['headview', 'modelview', 'steps', 'colorbar', 'mask-tokens', 'head-toggles', 'output', 'query', 'generated']) $(id).replaceChildren();
  $('heatmap-title').textContent = 'Heatmap';
  $('steps-panel').hidden = true;
  note('');
}

let scheduled = false;
let runSerial = 0;
export function schedule() {
  if (scheduled || !state.family) return;
  scheduled = true;
  queueMicrotask(async () => {
    scheduled = false;
    await (state.family === 'text' ? runText() : runTorch());
  });
}

async function runTorch() {
  const serial = ++runSerial;
  let input;
  try {
    input = readTorchInput();
  } catch (e) {
    clearPicture();
    showError(e.message);
    return;
  }
  const mask = (labels, set) => {
    const m = labels.map((_, i) => set.has(i));
    if (m.every(Boolean)) m[0] = false;  // keep at least one key
    return m.some(Boolean) ? m : undefined;
  };
  const srcPadding = mask(input.srcLabels, state.masked.src);
  const tgtPadding = input.mode === 'forward' ? mask(input.tgtLabels, state.masked.tgt) : undefined;
  const options = { score: $('score').value, normalize: $('normalize').value, causal: $('causal').checked };
  try {
    const r = await call('run', { mode: input.mode, options, input: { ...input, padding: srcPadding, tgtPadding } });
    if (serial !== runSerial) return;  // a newer run superseded this one
    clearErrors();
    state.result = r;
    state.labels = torchLabels(input, r);
    state.input = input;
    finishRun(r.ms);
    renderTorchOutput(input, r);
  } catch (e) {
    if (serial === runSerial) { clearPicture(); showError(e.message); }
  }
}

async function runText() {
  const serial = ++runSerial;
  const text = $('text').value;
  if (!text.trim()) { clearPicture(); showError('type some text'); return; }
  const maxLength = Math.min(state.maxLength, TEXT_TOKENS);
  try {
    const r = await call('text', { text, maxLength });
    if (serial !== runSerial) return;
    const replied = performance.now();
    clearErrors();
    const labels = tokenLabels(text, r.tokens, r.offsets);
    state.text = { text, maxLength, tokens: r.tokens, ids: r.ids, labels };
    state.result = { encoder: r.attentions };
    state.labels = { encoder: [labels, labels] };
    note(r.truncated
      ? `Input cut: the text has ${r.originalLength} tokens, the page shows the first ${r.length} (at most ${maxLength}${maxLength < state.maxLength ? ` here; the model takes ${state.maxLength}` : ''}), special tokens kept.`
      : '');
    state.predictions = r.fill ?? null;
    state.classes = r.classes ?? null;
    state.entities = r.entities ?? null;
    if (r.fill?.length) state.query = r.fill[0].index;
    // A classifier's step view opens on token 0, the position its head reads: per layer and
    // head, what the deciding position attends to.
    else if (r.classes) state.query = 0;
    else if (state.query >= r.tokens.length || state.queryText !== text) state.query = state.info.causal ? r.tokens.length - 1 : Math.min(1, r.tokens.length - 1);
    state.queryText = text;
    finishRun(r.ms);
    renderTextOutput(r, labels);
    state.drawMs = performance.now() - replied;  // every view of every layer and head, after the encode returned
    await runSteps();
  } catch (e) {
    if (serial === runSerial) { clearPicture(); showError(e.message); }
  }
}

// The step-by-step numbers for the selected layer, head and query token (text models).
export async function runSteps() {
  if (state.family !== 'text' || !state.text) return;
  const serial = runSerial;
  const { text, maxLength, labels } = state.text;
  try {
    const s = await call('steps', { text, maxLength, layer: state.layer, head: state.head });
    if (serial !== runSerial) return;
    state.steps = s;
    state.stepRuns++;
    $('steps-panel').hidden = false;
    $('query').replaceChildren(...labels.map((l, i) => new Option(`pos ${i} "${l}"`, i)));
    $('query').value = String(state.query);
    const started = performance.now();
    drawSteps($('steps'), s, labels, state.query);
    state.stepsDrawMs = performance.now() - started;
  } catch (e) {
    if (serial === runSerial) showError(`step-by-step view: ${e.message}`, 'page');
  }
}

function finishRun(ms) {
  state.runs++;
  $('timing').textContent = `${ms.toFixed(2)} ms`;
  renderKinds();
  render();
  if (state.firstPictureMs === null) {
    state.firstPictureMs = performance.now();
    state.timeline.firstPicture = state.firstPictureMs;
    console.info(`simdformer demo: first picture ${state.firstPictureMs.toFixed(0)} ms after navigation`);
  }
}

function torchLabels(input, r) {
  const src = input.srcLabels;
  if (input.mode === 'generate') {
    const vocab = state.vocab;
    const name = (t) => (vocab ? vocab[t] ?? String(t) : String(t));
    const steps = r.tokens.slice(0, -1).map(name);  // decoder inputs: bos + all but the last output
    return { encoder: [src, src], decoder: [steps, steps], cross: [steps, src] };
  }
  if (input.mode === 'forward') return { encoder: [src, src], decoder: [input.tgtLabels, input.tgtLabels], cross: [input.tgtLabels, src] };
  return { encoder: [src, src], decoder: [src, src], cross: [src, src] };
}

function renderTorchOutput(input, r) {
  const out = $('output');
  out.replaceChildren();
  state.correct = undefined;
  if (state.model === 'reverse') {
    const digits = r.tokens.slice(1).filter((t) => t >= 3).map((t) => String(t - 3)).join('');
    const expected = input.srcLabels.slice().reverse().join('');
    const span = document.createElement('span');
    span.className = digits === expected ? 'ok' : 'bad';
    span.textContent = `→ ${digits} ${digits === expected ? '✓' : '✗'}`;
    out.appendChild(span);
    state.output = digits;
    state.correct = digits === expected && state.masked.src.size === 0 && $('score').value === 'scaled-dot'
      && $('normalize').value === 'softmax' && !$('causal').checked;
  } else if (r.tokens) {
    out.textContent = `→ ${r.tokens.join(' ')}`;
    state.output = r.tokens.join(' ');
  } else {
    state.output = '';
  }
}

function renderTextOutput(r, labels) {
  const out = $('output');
  out.replaceChildren();
  state.output = '';
  if (r.fill) {
    for (const m of r.fill) {
      const p = document.createElement('div');
      p.className = 'predictions';
      p.append(`pos ${m.index} ${labels[m.index]} → `);
      m.predictions.forEach((x, i) => {
        const s = document.createElement('span');
        s.className = 'prediction';
        s.textContent = `${x.token.trim()} ${(100 * x.score).toFixed(1)} %`;
        p.append(i ? ', ' : '', s);
      });
      out.appendChild(p);
    }
    state.output = r.fill.map((m) => m.predictions.map((x) => x.token.trim()).join(' ')).join(' | ');
  } else if (state.info?.has_mlm_head && state.maskToken) {
    out.textContent = `type ${state.maskToken} where a word is missing to see ${architectureName(state.info)}'s guesses`;
  }
  if (r.classes) {
    drawClassification(out, r.classes.predictions, labels, r.classes.rollout);
    state.output = r.classes.predictions[0].label;
  }
  if (r.entities) {
    drawEntities(out, state.text.text, r.entities);
    state.output = r.entities.map((e) => `${e.entityGroup}:${e.word}`).join(' ');
  }
}
