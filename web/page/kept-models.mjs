// "Kept in this browser": the models the page loaded and keeps for the next visit
// (web/model-store.mjs keeps them), each with its size and date and a button that forgets it, and
// the total. The list and the forgetting are the library's keptModels / forgetModel, in the worker.
import { call } from './rpc.mjs';
import { $ } from './state.mjs';

// [{ folder (path), name, bytes, date }] from the library's [{ url, files, bytes, date }].
async function keptModels() {
  const { models } = await call('kept');
  return models.map((m) => {
    const folder = new URL(m.url).pathname;
    return { ...m, folder, name: folder.split('/').filter(Boolean).pop() };
  });
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;

export async function showKeptModels() {
  const list = $('kept-list');
  const models = await keptModels().catch(() => []);
  list.replaceChildren(...models.map((m) => {
    const li = document.createElement('li');
    li.dataset.folder = m.folder;
    const date = m.date ? new Date(m.date).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }) : '';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'delete';
    button.title = `forget ${m.name} (it is downloaded again when the page needs it)`;
    button.addEventListener('click', async () => { await call('forget', { url: m.url }); await showKeptModels(); });
    li.append(`${m.name} · ${mb(m.bytes)} · ${date} `, button);
    return li;
  }));
  const total = models.reduce((s, m) => s + m.bytes, 0);
  $('kept-total').textContent = models.length ? `${models.length} model${models.length > 1 ? 's' : ''}, ${mb(total)} in all` : 'none yet';
}
