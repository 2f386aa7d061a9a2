// A link reproduces a view: the model choice, the text, the attention view, layer and head live in
// the page's URL fragment (#model=bert&text=...&view=encoder&layer=1&head=2), which browsers never
// send to a server (index.html moves an old link's ?model=...&text=... there before anything is
// requested). It is rewritten in place (history.replaceState: no history entry per keystroke)
// after every picture. On opening, the text is used by the first load instead of the model's
// example, and view / layer / head are applied to the first picture that has them (clamped to
// what the model has).
import { $, state } from './state.mjs';

const opened = new URLSearchParams(location.hash.slice(1));
let initialText = opened.get('text');
let pendingView = ['view', 'layer', 'head'].some((k) => opened.has(k))
  ? { kind: opened.get('view'), layer: Number(opened.get('layer') ?? 0), head: Number(opened.get('head') ?? 0) } : null;
// Changing only the fragment does not reload a page: a link pasted over this one (or an edited
// fragment) opens its view as a fresh page would. replaceState below fires no hashchange.
addEventListener('hashchange', () => location.reload());

// The Model choice the link names ('' without one); the caller matches it against the page's
// choices, never looks it up in a table.
export const linkedModel = () => opened.get('model') ?? '';

// The text the first load should show (the link's), once; null afterwards or without one.
export function takeInitialText() {
  const t = initialText;
  initialText = null;
  return t;
}

// Called with the views the current result has: moves state.kind / layer / head to the link's
// view once, when the result can show it.
export function applyPendingView(available, layersOf) {
  if (!pendingView) return;
  const { kind, layer, head } = pendingView;
  pendingView = null;
  if (kind && available.includes(kind)) state.kind = kind;
  const layers = layersOf(state.kind);
  if (Number.isInteger(layer)) state.layer = Math.min(Math.max(layer, 0), layers.length - 1);
  if (Number.isInteger(head)) state.head = Math.min(Math.max(head, 0), layers[0].length - 1);
}

// The URL of the view on the page now. A user's own folder or file cannot be put in a link: its
// URL names the choice only.
export function syncUrl() {
  const p = new URLSearchParams();
  const choice = state.loaded?.choice ?? state.model;
  p.set('model', choice);
  if (choice === 'random') for (const id of ['rand-d', 'rand-h', 'rand-l', 'rand-seed']) p.set(id.slice(5), $(id).value);
  if (choice !== 'file') p.set('text', $('text').value);
  p.set('view', state.kind);
  p.set('layer', String(state.layer));
  p.set('head', String(state.head));
  const hash = `#${p}`;
  if (hash !== location.hash) history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
}

// The playground's sizes from a link, before its first load.
export function applyRandomOptions() {
  for (const [key, id] of [['d', 'rand-d'], ['h', 'rand-h'], ['l', 'rand-l'], ['seed', 'rand-seed']]) {
    const v = opened.get(key);
    if (v !== null && [...($(id).options ?? [])].some((o) => o.value === v || o.text === v)) $(id).value = v;
    else if (v !== null && id === 'rand-seed' && /^\d{1,5}$/.test(v)) $(id).value = v;
  }
}
