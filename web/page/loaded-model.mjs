// The loaded model as the page describes it: which Model choice is marked, the note under it
// (a bundled model's held-out metrics), the input hint, the file status and the measured-pattern
// line under the model view. All of them are written here, and only from one record that a load
// sets when it starts (state.loaded), so no text of the previous model survives a model change.
import { $, state } from './state.mjs';

const ARCHITECTURE_NAMES = { gpt2: 'GPT-2', bert: 'BERT', roberta: 'RoBERTa', distilbert: 'DistilBERT', llama: 'Llama', qwen2: 'Qwen2', mistral: 'Mistral' };

// What a click on a measured head asks for (web/main.mjs runs its sentence and selects the head).
const asked = { headExample: () => {} };
export function onHeadExample(fn) { asked.headExample = fn; }

// record: { choice: 'gpt2' | 'llama' | 'bert' | 'reverse' | 'random' | 'file', help, about?, heads?,
//          measured?: [{layer, head, pattern, score, text}], thresholds?, status? }
export function showLoaded(record) {
  state.loaded = record;
  state.model = record.choice;
  const radio = document.querySelector(`input[name=model][value="${record.choice}"]`);
  if (radio) radio.checked = true;
  $('random-options').hidden = record.choice !== 'random';
  $('file-options').hidden = record.choice !== 'file';
  $('input-help').textContent = record.help ?? '';
  $('model-about').textContent = record.about ?? '';
  showMeasuredHeads(record);
  $('file-status').textContent = record.status ?? '';
}

// The model view's list of measured heads: one button per head that passes the thresholds
// (its layer, head, pattern, score and the sentence that shows it); a click runs that sentence
// with that layer and head selected. A model without measured heads gets no list.
function showMeasuredHeads(record) {
  const box = $('heads-about');
  box.replaceChildren();
  const measured = record.measured ?? [];
  if (!measured.length) { box.textContent = record.heads ?? ''; return; }
  const title = document.createElement('div');
  title.textContent = `Measured heads${record.thresholds ? ` (thresholds: ${record.thresholds})` : ''}, on held-out text — click one to see it:`;
  const list = document.createElement('ul');
  list.className = 'measured-heads';
  for (const m of measured) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'measured-head';
    b.dataset.layer = m.layer;
    b.dataset.head = m.head;
    b.dataset.pattern = m.pattern;
    const score = m.score === null ? '' : ` ${m.score.toFixed(2)}`;
    b.textContent = `L${m.layer} H${m.head} ${m.pattern}${score}`;
    b.disabled = !m.text;
    b.addEventListener('click', () => asked.headExample(m));
    li.append(b);
    if (m.text) {
      const q = document.createElement('span');
      q.className = 'example';
      q.textContent = ` “${m.text}”`;
      li.append(q);
    }
    list.append(li);
  }
  box.append(title, list);
}

// Later facts about the same load (a bundled model's metrics, a folder's architecture once it
// loaded, its progress): dropped when another model has been chosen since.
export function updateLoaded(record, changes) {
  if (state.loaded !== record) return;
  Object.assign(record, changes);
  showLoaded(record);
}

export const isCurrent = (record) => state.loaded === record;

export const architectureName = (info) => ARCHITECTURE_NAMES[info.architecture] ?? info.architecture;

// The input hint for a Hugging Face text model, from what the loaded model is.
export function textModelHelp(info, maskToken) {
  const name = architectureName(info);
  if (info.causal) return `any text: ${name} sees each token and only the tokens before it`;
  if (info.has_mlm_head && maskToken) return `text with ${maskToken} where a word is missing: ${name} sees the whole sentence`;
  return `any text: ${name} sees the whole sentence, every token attending to every other`;
}

// The input hint for a torch-dialect file, from its config.
export function torchModelHelp(config) {
  if (config.src_vocab_size > 0 || config.tgt_vocab_size > 0) return 'token ids separated by spaces';
  return `a sequence length in [1, ${Math.min(64, config.max_len)}] (the page makes the input vectors)`;
}
