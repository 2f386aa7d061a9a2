// The loaded model as the page describes it: which Model choice is marked, the note under it
// (a bundled model's held-out metrics), the input hint, the file status and the measured-pattern
// line under the model view. All of them are written here, and only from one record that a load
// sets when it starts (state.loaded), so no text of the previous model survives a model change.
import { $, state } from './state.mjs';

const ARCHITECTURE_NAMES = { gpt2: 'GPT-2', bert: 'BERT', roberta: 'RoBERTa', distilbert: 'DistilBERT' };

// record: { choice: 'gpt2' | 'bert' | 'reverse' | 'random' | 'file', help, about?, heads?, status? }
export function showLoaded(record) {
  state.loaded = record;
  state.model = record.choice;
  const radio = document.querySelector(`input[name=model][value="${record.choice}"]`);
  if (radio) radio.checked = true;
  $('random-options').hidden = record.choice !== 'random';
  $('file-options').hidden = record.choice !== 'file';
  $('input-help').textContent = record.help ?? '';
  $('model-about').textContent = record.about ?? '';
  $('heads-about').textContent = record.heads ?? '';
  $('file-status').textContent = record.status ?? '';
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
