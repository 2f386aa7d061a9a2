#!/usr/bin/env bash
# The JavaScript suites that run again on the native addon (issue 31): the API against the goldens,
# the boundary's hostile sizes, validation, hardening, callbacks and re-entrancy, generation,
# pretrained folders, classification, int8, the robustness suites and the loading fuzzer, each with
# SIMDFORMER_BACKEND=native, so init() takes the addon and nothing else changes (where the addon
# cannot load, init() then fails with 'unsupported' instead of running wasm: a suite cannot pass
# on wasm by accident; calls that ask for a wasm build -- simd: false, wasmBinary -- still get it). (tests/js/native.test.mjs,
# run with every suite by scripts/test.sh, covers what only the addon has: the backend choice, its
# levels, parity with wasm, the addon hidden, its memory checks and allocation limit.) Browser,
# size, threads-build and wasm-heap suites are wasm-only. Needs dist/ with dist/prebuilds
# (scripts/build-package.sh). scripts/test.sh runs this as its js-native stage; on its own:
#   bash scripts/test-native.sh          # ~2 minutes on two cores
#   bash scripts/test-native.sh --asan   # the addon under ASan + UBSan (not part of scripts/test.sh)
# Ends with "N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p build
SUITES="api boundary validation hardening callbacks generate attention-steps pretrained classify length-groups int8-option
        pretrained-int8 robust-text robust-files fuzz-loading cjs"
# --asan: the same suites (and native.test.mjs) against the addon built with ASan + UBSan (preset
# native-addon-asan), node running with the sanitizer runtimes preloaded. A memory error or
# undefined behaviour in the addon or the core aborts the suite. Leak detection is off: Node
# itself does not free everything at exit (the suites' mallocBytes checks cover the addon's).
if [ "${1:-}" = "--asan" ]; then
  echo "== building native-addon-asan"
  cmake --preset native-addon-asan >/dev/null && cmake --build --preset native-addon-asan -j "${JOBS:-$(nproc)}" >/dev/null || {
    echo "native-addon-asan does not build"; echo "0 passed, 1 failed"; exit 1; }
  export SIMDFORMER_NATIVE_PATH="$ROOT/build/native-addon-asan/bindings/node/simdformer.node"
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  SUITES="native $SUITES"
fi
if [ ! -e dist/prebuilds ]; then echo "dist/prebuilds is missing: run scripts/build-package.sh"; echo "0 passed, 1 failed"; exit 1; fi
passed=0; failed=0; failures=()
for name in $SUITES; do
  f=$(ls tests/js/"$name".test.* 2>/dev/null | head -1)
  log="build/js-native-$name.node.log"
  start=$SECONDS
  SIMDFORMER_BACKEND=native node --test --test-concurrency=1 "$f" > "$log" 2>&1
  pass=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
  fail=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
  if [ -z "$pass" ]; then tail -40 "$log"; pass=0; fail=1; fi
  if [ "$fail" != "0" ]; then grep -E '^not ok|Error|error' "$log" | head -40; failures+=("$name"); fi
  passed=$((passed + pass)); failed=$((failed + fail))
  echo "== js-native-$name: $pass passed, $fail failed ($((SECONDS - start)) s)"
done
if [ "${#failures[@]}" -gt 0 ]; then echo "failing native suites: ${failures[*]}"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
