// Time to the demo's first picture (GPT-2), in fresh headless Chromium profiles: a measurement,
// not a test. Several checkouts (each with web/, dist/ and node_modules/) are measured in turn,
// round after round, so that a busy machine slows all of them alike.
//   node bench/first-picture.mjs [--runs 7] [ROOT ...]   (default ROOT: this checkout)
import { demoMounts, startServer } from '../web/serve.mjs';
import { launch } from '../tests/js/chromium.mjs';
import { ROOT } from '../tests/js/helpers.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 7;
const roots = args.length ? args : [ROOT];

// One page load: ms after navigation start at which the engine was ready, the model loaded and
// the first picture drawn (the page's own timeline).
async function measure(root) {
  const server = await startServer({ mounts: demoMounts(root) });
  const browser = await launch({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => window.__demo?.timeline?.firstPicture, null, { timeout: 60000 });
    return await page.evaluate(() => window.__demo.timeline);
  } finally {
    await browser.close();
    await server.close();
  }
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const seen = roots.map(() => []);
for (let r = 0; r < runs; r++) {
  for (const [i, root] of roots.entries()) seen[i].push(await measure(root));
}
for (const [i, root] of roots.entries()) {
  const m = (key) => median(seen[i].map((t) => t[key])).toFixed(0);
  console.log(`${root}: median of ${runs}: first picture ${m('firstPicture')} ms (engine ready ${m('engineReady')} ms, `
    + `model loaded ${m('modelLoaded')} ms); all first pictures: ${seen[i].map((t) => t.firstPicture.toFixed(0)).join(' ')}`);
}
