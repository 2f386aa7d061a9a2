#!/usr/bin/env bash
# The main job: installs what is missing (apt packages, npm and the npm dependencies), builds the
# npm package when it is missing or older than its sources, then serves the demo page (web/ +
# dist/ + the tokenizer library from node_modules/) on 127.0.0.1 and prints its URL.
# The test command runs this on a clean clone (tests/e2e/main-job.test.mjs).
#   scripts/demo.sh [--port 8080]   (--port 0: any free port; the printed URL has it)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh npm  # the served page imports the tokenizer library from node_modules/
stale=0
if [ ! -f dist/simdformer.wasm ] || [ ! -f dist/simdformer-scalar.wasm ] || [ ! -f dist/browser.bundle.mjs ]; then
  stale=1
elif [ -n "$(find src bindings CMakeLists.txt cmake -newer dist/simdformer.wasm -type f -print -quit)" ]; then
  stale=1
fi
if [ "$stale" -eq 1 ]; then
  echo "building the package (first run takes a few minutes)…"
  # The page runs the wasm builds only: the Node addon (scripts/build-native.sh) is not built here.
  SIMDFORMER_NATIVE=0 bash scripts/build-package.sh
fi
exec node web/serve.mjs "$@"
