// `simdformer demo`: serves the demo page (web/, with its bundled models) and the package's own
// dist/ from the installed package on 127.0.0.1, until interrupted.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { UsageError } from './format.mjs';

const PACKAGE_ROOT = new URL('../../', import.meta.url);

function parsePort(text) {
  if (text === undefined) return 8080;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, not '${text}'`);
  return Number(text);
}

async function serveDemo(sf, a, { out }) {
  const port = parsePort(a.port);
  const web = fileURLToPath(new URL('web/', PACKAGE_ROOT));
  if (!existsSync(`${web}index.html`)) throw new UsageError(`the demo page is not in this installation (${web}index.html is missing)`);
  const { startServer, TOKENIZERS_URL, JINJA_URL } = await import(new URL('web/serve.mjs', PACKAGE_ROOT).href);
  // The page's worker imports @huggingface/tokenizers and @huggingface/jinja by URL (import maps
  // do not reach workers): serve the copies this installation resolves (they may be hoisted above
  // the package). Both resolve to <package>/dist/<file>.
  const require = createRequire(import.meta.url);
  const tokenizers = dirname(dirname(require.resolve('@huggingface/tokenizers')));
  const jinja = dirname(dirname(require.resolve('@huggingface/jinja')));
  let served;
  try {
    const mounts = [['/dist/', fileURLToPath(new URL('dist/', PACKAGE_ROOT))], [TOKENIZERS_URL, tokenizers], [JINJA_URL, jinja], ['/', web]];
    served = await startServer({ mounts, port });
  } catch (e) {
    if (e?.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: pick another with --port (0 = any free port)`);
    throw e;
  }
  out(a.json ? JSON.stringify({ url: served.url }) : `simdformer demo: ${served.url}  (Ctrl+C stops it)`);
  await new Promise((stop) => {
    for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, stop);
  });
  await served.close();
  return 0;
}

export const demoCommands = {
  demo: {
    summary: 'serve the demo page with its bundled models on 127.0.0.1',
    usage: ['[--port 8080]'],
    options: { port: { type: 'string', help: '--port N              port on 127.0.0.1 (default 8080; 0 picks a free one)' } },
    notes: 'Open the printed URL in a browser. Nothing leaves the machine: the page runs the models in the browser.',
    run: serveDemo,
  },
};
