// The demo page served from this checkout (web/ + dist/ + the tokenizer library) on 127.0.0.1,
// open in a fresh headless Chromium profile once its first model is drawn: the set-up the page
// suites share.
import { demoMounts, startServer } from '../../web/serve.mjs';
import { launch } from '../js/chromium.mjs';
import { ROOT } from '../js/helpers.mjs';

// -> { server, browser, page }; close them with closeDemo(). onRequest(req) sees every request
// the server gets (before it is answered); path (e.g. '#model=bert') is opened instead of '/';
// the other options are startServer's (prefix: serve the page from a sub-path; answer:
// misbehave for some paths).
export async function openDemo(launchOptions, { onRequest, path = '', ...serverOptions } = {}) {
  const server = await startServer({ mounts: demoMounts(ROOT), ...serverOptions });
  if (onRequest) server.server.prependListener('request', onRequest);
  const browser = await launch(launchOptions);
  const page = await browser.newPage();
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
  return { server, browser, page };
}

export async function closeDemo({ server, browser } = {}) {
  await browser?.close();
  await server?.close();
}
