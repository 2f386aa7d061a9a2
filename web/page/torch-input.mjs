// The input of a torch-dialect model, read from the text box: digits for the reversal, printable
// characters for the playground, token ids or a sequence length for a user's file. Changes made to
// the input are announced in the note under it; what cannot be read throws a message for the user.
import { $, note, state } from './state.mjs';

export function readTorchInput() {
  const text = $('text').value;
  const c = state.config;
  if (state.model === 'reverse') {
    const all = Array.from(text);
    const dropped = all.filter((ch) => !/[0-9]/.test(ch));
    let digits = all.filter((ch) => /[0-9]/.test(ch)).join('');
    const notes = [];
    if (dropped.length) notes.push(`ignored ${dropped.length} character${dropped.length > 1 ? 's' : ''} that ${dropped.length > 1 ? 'are' : 'is'} not a digit (${[...new Set(dropped)].map((ch) => JSON.stringify(ch)).join(' ')})`);
    if (digits.length > 10) { notes.push(`kept the first 10 of ${digits.length} digits (the model was trained on 2 to 10)`); digits = digits.slice(0, 10); }
    note(notes.length ? `Input changed: ${notes.join('; ')}.` : '');
    if (digits.length < 2) throw new Error('type at least two digits (the model was trained on 2 to 10)');
    const tokens = Array.from(digits, (d) => 3 + Number(d));
    return { mode: 'generate', tokens, srcLabels: Array.from(digits), maxLength: digits.length + 2 };
  }
  if (state.model === 'random') {
    const all = Array.from(text);
    const printable = all.filter((ch) => ch >= ' ' && ch <= '~');
    const chars = printable.slice(0, 48);
    const notes = [];
    if (printable.length < all.length) notes.push(`ignored ${all.length - printable.length} character(s) outside printable ASCII`);
    if (printable.length > 48) notes.push(`kept the first 48 of ${printable.length} characters`);
    note(notes.length ? `Input changed: ${notes.join('; ')}.` : '');
    if (!chars.length) throw new Error('type some text');
    const tokens = chars.map((ch) => 3 + ch.charCodeAt(0) - 32);
    const shown = chars.map((ch) => (ch === ' ' ? '␣' : ch));
    return { mode: 'forward', tokens, target: [1, ...tokens], srcLabels: shown, tgtLabels: ['<bos>', ...shown] };
  }
  note('');
  if (c.src_vocab_size > 0 || c.tgt_vocab_size > 0) {
    const tokens = text.split(/[\s,]+/).filter(Boolean).map(Number);
    if (!tokens.length || tokens.some((t) => !Number.isInteger(t))) throw new Error('type token ids separated by spaces');
    if (c.model_type === 'transformer' && c.tgt_vocab_size) {
      return { mode: 'generate', tokens, srcLabels: tokens.map(String), maxLength: Math.min(c.max_len, tokens.length + 8) };
    }
    return { mode: 'encode', sequence: tokens, srcLabels: tokens.map(String) };
  }
  const n = Number.parseInt(text, 10);
  if (!Number.isInteger(n) || n < 1 || n > Math.min(64, c.max_len)) throw new Error(`type a sequence length in [1, ${Math.min(64, c.max_len)}]`);
  const vectors = Float32Array.from({ length: n * c.d_model }, (_, i) => Math.sin(i * 0.731 + 0.3) * Math.cos(i * 0.117));
  const labels = Array.from({ length: n }, (_, i) => `p${i}`);
  const decoder = c.model_type === 'decoder' || c.model_type === 'decoder_layer';
  return { mode: 'encode', sequence: vectors, memory: decoder ? vectors : undefined, srcLabels: labels };
}
