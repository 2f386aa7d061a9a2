// Checks the bundled text models' tokenizer.json as the page loads it (npm @huggingface/tokenizers)
// against the ids that scripts/train_text_models.py's Python oracle wrote into metrics.json
// ("tokenizer_check": held-out fortunes and the prompts / fill-mask texts of the samples).
//   node scripts/check_model_tokenizers.mjs [path/to/tokenizers.mjs] [model folder]...
// Default folders: web/models/fortune-gpt2 and web/models/fortune-bert.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const spec = args[0] && args[0].endsWith(".mjs") ? pathToFileURL(path.resolve(args.shift())).href
                                                   : "@huggingface/tokenizers";
const folders = args.length ? args : ["fortune-gpt2", "fortune-bert"].map((m) => path.join(here, "..", "web", "models", m));
const { Tokenizer } = await import(spec);

let passed = 0, failed = 0;
for (const folder of folders) {
  const read = (f) => JSON.parse(fs.readFileSync(path.join(folder, f), "utf8"));
  const tok = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
  const cases = read("metrics.json").tokenizer_check;
  if (!cases || !cases.length) throw new Error(`${folder}/metrics.json has no tokenizer_check list`);
  for (const { text, ids } of cases) {
    const got = tok.encode(text).ids;
    if (JSON.stringify(got) === JSON.stringify(ids)) { passed++; continue; }
    failed++;
    console.log(`FAIL ${path.basename(folder)} ${JSON.stringify(text)}\n  js:     ${JSON.stringify(got)}\n  oracle: ${JSON.stringify(ids)}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
