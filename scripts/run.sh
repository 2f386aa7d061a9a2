#!/usr/bin/env bash
# The main job: builds simdformer natively and encodes with a model, printing its attention.
#   scripts/run.sh [model.safetensors [config.json [tokens...]]]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh core
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target simdformer_encode >/dev/null
if [ "$#" -eq 0 ]; then set -- tests/data/seq2seq.safetensors tests/data/seq2seq.json 3 4 5 6 7 8; fi
exec build/native-release/examples/simdformer_encode "$@"
