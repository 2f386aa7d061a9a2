// The README's main job on a clean clone: `bash scripts/demo.sh` must install what it needs (npm
// and the npm dependencies included), build the package, serve the page on 127.0.0.1; the page
// loads its first model and draws it; the server stops when asked to.
//
// MAIN_JOB_DIR names the clone (scripts/test.sh passes a checkout with no node_modules/, build/ or
// dist/: the CI clone itself, or a fresh clone of HEAD). The test refuses a dirty folder, since a
// leftover node_modules/ or dist/ would hide exactly the bug this test is here to catch.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const DIR = process.env.MAIN_JOB_DIR;
const BUILD_LIMIT_MS = 30 * 60 * 1000;  // apt + npm + three wasm builds on a fresh 2-core machine

// Starts demo.sh in its own process group and resolves with the URL it prints.
function startDemo(dir) {
  const child = spawn('bash', ['scripts/demo.sh', '--port', '0'], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after ${BUILD_LIMIT_MS / 60000} min:\n${output.slice(-4000)}`)), BUILD_LIMIT_MS);
    const read = (chunk) => {
      output += chunk;
      const m = output.match(/simdformer demo: (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`demo.sh exited (${code ?? signal}) before serving:\n${output.slice(-4000)}`)); });
  });
  return { child, url, output: () => output };
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  return exited;
}

test('scripts/demo.sh on a clean clone installs, builds, serves the page, and stops', { timeout: BUILD_LIMIT_MS + 120000 }, async () => {
  assert.ok(DIR, 'MAIN_JOB_DIR must name a clean clone');
  for (const leftover of ['node_modules', 'build', 'dist']) {
    assert.ok(!existsSync(join(DIR, leftover)), `${DIR}/${leftover} exists: not a clean clone`);
  }
  const demo = startDemo(DIR);
  let browser;
  try {
    const url = await demo.url;
    for (const built of ['node_modules/@huggingface/tokenizers', 'dist/simdformer.wasm', 'dist/browser.bundle.mjs']) {
      assert.ok(existsSync(join(DIR, built)), `demo.sh served without ${built}`);
    }
    // Chromium through the clone's own test helper: playwright-core from the npm dependencies
    // the main job installed.
    const { launch } = await import(pathToFileURL(join(DIR, 'tests', 'js', 'chromium.mjs')).href);
    browser = await launch();
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 120000 });
    const state = await page.evaluate(() => ({ error: window.__demo.error, model: window.__demo.model, errors: window.__demo.errorsShown }));
    assert.equal(state.error, '', `page error: ${state.error}`);
    assert.equal(state.errors, 0);
    assert.ok(state.model, 'a model is loaded');
    assert.deepEqual(page.errors.filter((e) => !/status of 404/.test(e)), []);
  } finally {
    await browser?.close();
    await stop(demo.child);
  }
  // Stopped: the port no longer answers.
  const url = await demo.url;
  await assert.rejects(fetch(url), 'the server still answers after SIGTERM');
});
