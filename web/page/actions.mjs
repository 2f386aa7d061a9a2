// What the user asks of a loaded model beyond a run: GPT-2's token-by-token generation, the f32 /
// int8 comparison, and the exports (the weights as JSON, the view as a PNG with a title band).
import { exportPng } from '../export-png.mjs';
import { loadText } from './loading.mjs';
import { kindName } from './render.mjs';
import { call } from './rpc.mjs';
import { schedule } from './runs.mjs';
import { $, TEXT_TOKENS, showError, state } from './state.mjs';

// GPT-2 writes 8 tokens greedily; each appears with its attention over the context (the chosen
// layer and head), then the whole text is drawn again.
export async function generateTokens() {
  const button = $('generate');
  const box = $('generated');
  const prompt = $('text').value;
  button.disabled = true;
  box.replaceChildren();
  const context = [...(state.text?.labels ?? [])];
  state.generated = [];
  try {
    await call('generate', { text: prompt, maxNewTokens: 8 }, (e) => {
      if (e.stage !== 'token') return;
      const weights = e.attention?.[state.layer]?.[state.head];
      const label = e.text.trim() || (e.text.includes('\n') ? '↵' : '␣');
      const line = document.createElement('div');
      line.className = 'gen-step';
      const top = weights ? Array.from(weights, (w, k) => [w, k]).sort((a, b) => b[0] - a[0]).slice(0, 3) : [];
      line.textContent = `+ "${label}" ← ${top.map(([w, k]) => `pos ${k} "${context[k] ?? '…'}" ${w.toFixed(2)}`).join(', ')}`;
      box.appendChild(line);
      context.push(label);
      state.generated.push({ text: e.text, attention: weights ? Array.from(weights) : null });
    });
    $('text').value = prompt + state.generated.map((g) => g.text).join('');
    schedule();
  } catch (e) {
    showError(`generation: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

// The f32 / int8 toggle: reload the current folder with the chosen weights, then measure both.
export async function changePrecision() {
  const last = state.textSource;
  if (!last) return;
  const report = $('precision-report');
  try {
    const r = await loadText(last.source, last.record);
    if (!r) return;
    report.textContent = 'comparing f32 and int8…';
    const n = state.runs;
    while (state.runs === n && !state.error) await new Promise((ok) => setTimeout(ok, 20));
    const c = await call('compare', { text: state.text?.text ?? $('text').value, maxLength: Math.min(state.maxLength, TEXT_TOKENS) });
    const mb = (b) => `${(b / 2 ** 20).toFixed(2)} MB`;
    state.precision = c;
    report.textContent = `weights f32 ${mb(c.f32.bytes)}, int8 ${mb(c.int8.bytes)}; one pass f32 ${c.f32.ms.toFixed(2)} ms, `
      + `int8 ${c.int8.ms.toFixed(2)} ms (median of 7); largest attention difference ${c.maxDiff.toFixed(4)} on this text`;
  } catch (e) {
    report.textContent = '';
    showError(`${$('weights').value} weights: ${e.message}`, 'page');
  }
}

function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
}

export function exportJson() {
  if (!state.result) return;
  const plain = (layers) => layers?.map((heads) => heads.map((h) => ({ shape: h.shape, data: Array.from(h.data) })));
  const json = JSON.stringify({ model: state.modelName, config: state.config ?? state.info, labels: state.labels, text: $('text').value,
                                options: { score: $('score').value, normalize: $('normalize').value },
                                encoder: plain(state.result.encoder), decoder: plain(state.result.decoder), cross: plain(state.result.cross) });
  download('attention.json', URL.createObjectURL(new Blob([json], { type: 'application/json' })));
}

export function exportView() {
  if (!state.result) return;
  const title = `${state.modelName} · ${kindName(state.kind)} · layer ${state.layer} · head ${state.head}`;
  download('attention.png', exportPng($('heatmap'), title, `“${$('text').value}”`));
}
