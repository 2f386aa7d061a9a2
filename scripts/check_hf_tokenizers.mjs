// Cross-checks every tests/data/hf/<case>/tokenizer.json, as loaded by the npm package
// @huggingface/tokenizers, against the ids that the independent Python oracle wrote into
// texts.json (scripts/hf_tokenizers.py). Truncation is not checked here: the package has none,
// the expectation in texts.json is for simdformer's own truncation.
//   node scripts/check_hf_tokenizers.mjs [path/to/@huggingface/tokenizers/dist/tokenizers.mjs]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "tests", "data", "hf");
const spec = process.argv[2] ? pathToFileURL(path.resolve(process.argv[2])).href : "@huggingface/tokenizers";
const { Tokenizer } = await import(spec);

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
let passed = 0, failed = 0;
for (const name of fs.readdirSync(root).sort()) {
  const texts = path.join(root, name, "texts.json");
  if (!fs.existsSync(texts)) continue;
  const exp = JSON.parse(fs.readFileSync(texts, "utf8")).tokenizer;
  const read = (f) => JSON.parse(fs.readFileSync(path.join(root, name, f), "utf8"));
  const tok = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
  const check = (label, got, want) => {
    if (same(got.ids, want.ids) && (!want.type_ids || same(got.token_type_ids, want.type_ids))) { passed++; return; }
    failed++;
    console.log(`FAIL ${name} ${label}\n  js:     ${JSON.stringify(got.ids)} ${JSON.stringify(got.tokens)}\n` +
                `  oracle: ${JSON.stringify(want.ids)} ${JSON.stringify(want.tokens)}`);
  };
  const opts = { add_special_tokens: exp.add_special_tokens, return_token_type_ids: true };
  exp.single.forEach((w, i) => check(`single ${i} ${JSON.stringify(w.text)}`, tok.encode(w.text, opts), w));
  exp.pairs.forEach((w, i) => check(`pair ${i}`, tok.encode(w.text, { ...opts, text_pair: w.text_pair }), w));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
