// Checks the bundled text models as the page loads them.
//   1. tokenizer.json through npm @huggingface/tokenizers gives the ids that
//      scripts/training/train_text_models.py's Python oracle wrote into metrics.json ("tokenizer_check":
//      held-out fortunes and the prompts / fill-mask texts of the samples).
//   2. With --engine DIST/node.mjs: simdformer's loadPretrained on the folder (F16 weights as
//      shipped) gives the PyTorch reference's last hidden state and attentions on those texts
//      (`train_text_models.py reference`, float32 scripts/reference/hf_reference.py on the same F16
//      weights), and for a masked LM the same top-5 fill-mask tokens and probabilities; for a
//      folder with heldout.json (GPT-2), the same greedy continuations (and how many int8 keeps).
//   node scripts/training/check_model_tokenizers.mjs [--engine dist/node.mjs] [path/to/tokenizers.mjs] [model folder]...
// Default folders: web/models/fortune-gpt2 and web/models/fortune-bert.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const engineAt = args.indexOf("--engine");
const engine = engineAt >= 0 ? pathToFileURL(path.resolve(args.splice(engineAt, 2)[1])).href : null;
const spec = args[0] && args[0].endsWith(".mjs") ? pathToFileURL(path.resolve(args.shift())).href
                                                   : "@huggingface/tokenizers";
const folders = args.length ? args : ["fortune-gpt2", "fortune-bert"].map((m) => path.join(here, "..", "..", "web", "models", m));
const { Tokenizer } = await import(spec);
const sf = engine ? await (await import(engine)).init() : null;

// Tolerances: hidden states are O(1) after the final LayerNorm; float32 sums in another order.
const HIDDEN_TOL = 1e-4, ATTENTION_TOL = 1e-5, PROB_TOL = 1e-5;

let passed = 0, failed = 0;
const report = (ok, what) => {
  if (ok) passed++;
  else { failed++; console.log(`FAIL ${what}`); }
};
const maxAbsDiff = (a, b) => {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

for (const folder of folders) {
  const name = path.basename(folder);
  const read = (f) => JSON.parse(fs.readFileSync(path.join(folder, f), "utf8"));
  const tok = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
  const metrics = read("metrics.json");
  const cases = metrics.tokenizer_check;
  if (!cases || !cases.length) throw new Error(`${folder}/metrics.json has no tokenizer_check list`);
  for (const { text, ids } of cases) {
    const got = tok.encode(text).ids;
    report(JSON.stringify(got) === JSON.stringify(ids),
           `${name} tokenizer ${JSON.stringify(text)}\n  js:     ${JSON.stringify(got)}\n  oracle: ${JSON.stringify(ids)}`);
  }
  if (!sf) continue;

  const model = await sf.loadPretrained(folder);
  const texts = cases.map((c) => c.text);
  const runs = texts.map((t) => model.encodeText(t, { returnAttention: true }));
  const ref = JSON.parse(execFileSync("/usr/bin/python3", [path.join(here, "train_text_models.py"), "reference", folder],
                                      { input: JSON.stringify(runs.map((r) => Array.from(r.ids))), maxBuffer: 1 << 28,
                                        env: { ...process.env, SF_TRAIN_THREADS: "1" } }));
  let worstHidden = 0, worstAttention = 0;
  runs.forEach((r, i) => {
    const h = maxAbsDiff(r.lastHiddenState, ref[i].last_hidden_state);
    let a = 0;
    ref[i].attentions.forEach((layer, l) => layer.forEach((head, k) => { a = Math.max(a, maxAbsDiff(r.attentions[l][k].data, head)); }));
    worstHidden = Math.max(worstHidden, h);
    worstAttention = Math.max(worstAttention, a);
    report(h <= HIDDEN_TOL && a <= ATTENTION_TOL, `${name} engine vs PyTorch on ${JSON.stringify(texts[i])}: hidden ${h}, attention ${a}`);
  });
  console.log(`${name}: ${runs.length} texts, max |engine - PyTorch| hidden ${worstHidden.toExponential(2)}, attention ${worstAttention.toExponential(2)}`);

  if (metrics.fill_mask_examples) {
    const masked = metrics.fill_mask_examples.map((e) => e.text);
    const enc = masked.map((t) => model.encodeText(t));
    const mref = JSON.parse(execFileSync("/usr/bin/python3", [path.join(here, "train_text_models.py"), "reference", folder],
                                         { input: JSON.stringify(enc.map((r) => Array.from(r.ids))), maxBuffer: 1 << 28,
                                           env: { ...process.env, SF_TRAIN_THREADS: "1" } }));
    let worst = 0;
    masked.forEach((t, i) => {
      const preds = model.fillMask(t, { topK: 5 }).masks[0].predictions;  // each text has one [MASK]
      const want = mref[i].masks[0];
      const sameIds = JSON.stringify(preds.map((p) => p.id)) === JSON.stringify(want.map((w) => w.id));
      const d = Math.max(...preds.map((p, k) => Math.abs(p.score - want[k].score)));
      worst = Math.max(worst, d);
      report(sameIds && d <= PROB_TOL, `${name} fillMask ${JSON.stringify(t)}: ${JSON.stringify(preds.map((p) => [p.token, p.score]))} vs ${JSON.stringify(want)}`);
    });
    console.log(`${name}: ${masked.length} fill-mask texts, max |engine - PyTorch| probability ${worst.toExponential(2)}`);
  }
  model.dispose();

  // heldout.json (GPT-2): engine greedy decoding = PyTorch's, token for token (the engine's ids
  // end with the stop token, PyTorch's list leaves it out). int8 weights are reported, not
  // required to match: quantization may flip a near-tie.
  const heldPath = path.join(folder, "heldout.json");
  if (fs.existsSync(heldPath)) {
    const items = JSON.parse(fs.readFileSync(heldPath, "utf8")).items;
    const runs = {};
    for (const weights of ["f32", "int8"]) {
      const m = await sf.loadPretrained(folder, { weights });
      runs[weights] = [];
      for (const it of items) {
        const ids = Array.from((await m.generateText(it.prompt_ids, { maxNewTokens: it.greedy_ids.length + (it.stopped_at_eos ? 1 : 0) })).ids);
        runs[weights].push(it.stopped_at_eos && ids.length === it.greedy_ids.length + 1 ? ids.slice(0, -1) : ids);
      }
      m.dispose();
    }
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    items.forEach((it, i) => report(same(runs.f32[i], it.greedy_ids),
      `${name} greedy f32 ${JSON.stringify(it.prompt)}: ${JSON.stringify(runs.f32[i])} vs PyTorch ${JSON.stringify(it.greedy_ids)}`));
    const int8Same = items.filter((_, i) => same(runs.int8[i], runs.f32[i])).length;
    console.log(`${name}: greedy continuations of ${items.length} held-out prompts, f32 = PyTorch on ${items.filter((it, i) => same(runs.f32[i], it.greedy_ids)).length}, int8 = f32 on ${int8Same}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
