#!/usr/bin/env bash
# Builds the npm package into dist/: the three wasm builds of the Embind module (SIMD128, scalar,
# SIMD128 + pthreads) plus the JavaScript entry points and types from bindings/js, and on
# linux-x64 the prebuilt Node-API addon (scripts/build-native.sh: dist/prebuilds/linux-x64-gnu/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh core npm
for preset in wasm-release wasm-scalar wasm-threads; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target simdformer_js >/dev/null
done
for glue in simdformer.mjs simdformer-scalar.mjs simdformer-threads.mjs; do  # the Emscripten glue owns these names in dist/
  if [[ -e "bindings/js/$glue" ]]; then echo "bindings/js/$glue would overwrite the wasm glue" >&2; exit 1; fi
done
rm -rf dist && mkdir -p dist
cp build/wasm-release/bindings/simdformer.mjs build/wasm-release/bindings/simdformer.wasm dist/
cp build/wasm-scalar/bindings/simdformer-scalar.mjs build/wasm-scalar/bindings/simdformer-scalar.wasm dist/
# The pthreads build also needs its worker script next to the glue. Node loads a .cjs copy: in
# this "type": "module" package a .js worker would be parsed as an ES module and fail.
T=build/wasm-threads/bindings/simdformer-threads
cp $T.mjs $T.wasm $T.worker.js dist/
cp $T.worker.js dist/simdformer-threads.worker.cjs
# The entries and types at the top of dist/, the library, the Node.js parts and the CLI in
# their folders, as in bindings/js (the entries find the wasm glue beside them).
cp bindings/js/*.mjs bindings/js/*.cjs bindings/js/*.d.ts bindings/js/*.d.cts dist/
cp -r bindings/js/lib bindings/js/node bindings/js/cli dist/
chmod +x dist/cli.mjs
# The demo page's worker imports the browser entry as one file: served unbundled, its ~25 modules
# arrive in 4-5 rounds of requests before the engine can even start compiling. The wasm glue and
# the tokenizer library stay separate files, loaded on demand as from dist/browser.mjs.
# --minify-whitespace drops the comments and indentation esbuild otherwise keeps (34.8 -> 28.4 KB
# gzip); --minify-syntax folds constants and shortens statements (42,109 -> 41,444 B gzip on
# 2026-12-02). Identifiers are not minified: names stay, so errors and stack traces read as in
# dist/lib.
ESBUILD=node_modules/.bin/esbuild
if [[ ! -x "$ESBUILD" ]]; then echo "$ESBUILD is missing after scripts/setup.sh npm" >&2; exit 1; fi
"$ESBUILD" dist/browser.mjs --bundle --format=esm --platform=browser --log-level=warning --minify-whitespace --minify-syntax \
  '--external:./simdformer*.mjs' --external:@huggingface/tokenizers --external:@huggingface/jinja --outfile=dist/browser.bundle.mjs
# The one-thread builds' Emscripten glue, minified with its identifiers (issue 30: init() <= 20 ms).
# Emscripten 3.1.6 without Closure emits its runtime with every name and line break: the scalar
# glue is 68 KB that each init() reads, parses (the factory eagerly: a parenthesized function) and
# holds as source through the scavenge that falls inside init(). Minified: simdformer-scalar.mjs
# 68,337 -> 37,612 B (15,351 -> 11,876 B gzip), simdformer.mjs 53,184 -> 28,911 B (13,489 ->
# 10,263 B gzip);
# the scalar build's init() 1.17 ms faster (median of paired differences, faster in 45 of 61
# alternated fresh processes, idle; BENCHMARKS.md, issue 30, session 19). What callers see stays:
# the names Embind gives bound functions and classes, the exports and Module fields (quoted
# strings), the .wasm's new URL(..., import.meta.url) for bundlers; only frames inside the glue
# itself get short names in stack traces. The threads build's glue, which its workers load too,
# is left as emitted.
for glue in simdformer.mjs simdformer-scalar.mjs; do
  "$ESBUILD" "dist/$glue" --minify --format=esm --log-level=warning --allow-overwrite --outfile="dist/$glue"
done
# The Node-API addon, for Node.js on the platform the package ships prebuilt (linux-x64-gnu).
# SIMDFORMER_NATIVE=0 skips it (the package then runs wasm everywhere).
if [[ "${SIMDFORMER_NATIVE:-1}" != 0 && "$(uname -sm)" == "Linux x86_64" ]]; then
  bash scripts/build-native.sh
fi
echo "dist/ built: $(du -sh dist | cut -f1)"
