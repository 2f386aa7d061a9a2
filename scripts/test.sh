#!/usr/bin/env bash
# Runs every simdformer test suite from a clean checkout: installs what is missing, builds the
# native (SSE2 baseline, AVX2 + FMA, AVX-512) and wasm (SIMD128, scalar, and SIMD128 + pthreads:
# its runtime tests only) configurations, and runs their Google Test suites through CTest (wasm
# under node, a suite per process), plus
# native ASan + UBSan and wasm ASan + UBSan (wasm-asan: 32-bit size_t, as shipped); then the fuzz
# targets (scripts/fuzz.sh) and the JavaScript suites.
# Ends with one summary line: "N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="${JOBS:-$(nproc)}"

# Is this checkout clean (a CI clone)? Decided before anything below installs or builds.
clean_checkout=1
for leftover in node_modules build dist; do [ -e "$leftover" ] && clean_checkout=0; done

passed=0
failed=0
failures=()
stage_start=$SECONDS
record() {  # record <suite> <passed> <failed>   (with the minutes since the previous record)
  passed=$((passed + $2)); failed=$((failed + $3))
  [ "$3" -eq 0 ] || failures+=("$1")
  echo "== $1: $2 passed, $3 failed ($(( (SECONDS - stage_start) / 60 )) min $(( (SECONDS - stage_start) % 60 )) s)"
  stage_start=$SECONDS
}

run_ctest_preset() {  # run_ctest_preset <build and test preset>
  local preset="$1" log="build/$1.ctest.log"
  # A build preset named <configure preset>-tests builds everything in that configure preset's
  # tree (native-addon-tests: the tests in the tree whose library the package build compiled).
  local configure="${preset%-tests}"
  echo "== building $preset"
  if ! { cmake --preset "$configure" >/dev/null && cmake --build --preset "$preset" -j "$JOBS"; } > "build/$preset.build.log" 2>&1; then
    tail -40 "build/$preset.build.log"
    record "$preset (build)" 0 1
    return
  fi
  local xml_dir="build/$preset/gtest-xml"
  rm -rf "$xml_dir"
  ctest --preset "$preset" -j "$JOBS" > "$log" 2>&1
  grep -E "tests passed|FAILED|Failed|\*\*\*" "$log" | tail -20
  local line total bad
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
  if [ -z "$line" ]; then tail -40 "$log"; record "$preset (ctest)" 0 1; return; fi
  bad=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
  total=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/' <<<"$line")
  local ok=$((total - bad))
  # The wasm builds run a whole suite as one CTest test (tests/CMakeLists.txt) and leave its
  # Google Test report in gtest-xml/<test>.xml: such a test counts as its Google Tests, as the
  # native builds' one CTest test per Google Test does. A failing suite without a failing Google
  # Test in its report (a crash, a sanitizer report at exit) stays one failure.
  local failed_names x name t f d
  failed_names=$(sed -n '/The following tests FAILED:/,$p' "$log" | sed -nE 's/^[[:space:]]*[0-9]+ - (.+) \([^)]*\)$/\1/p')
  for x in "$xml_dir"/*.xml; do
    [ -f "$x" ] || continue
    name=$(basename "$x" .xml)
    read -r t f d < <(grep -m1 -o '<testsuites [^>]*>' "$x" |
      sed -E 's/.* tests="([0-9]+)".* failures="([0-9]+)".* disabled="([0-9]+)".* errors="([0-9]+)".*/\1 \2+\4 \3/' |
      awk '{ split($2, e, "+"); print $1, e[1] + e[2], $3 }')
    [ -n "$t" ] || continue
    if grep -qxF "$name" <<<"$failed_names"; then
      [ "$f" -gt 0 ] || continue
      ok=$((ok + t - f - d)); bad=$((bad - 1 + f))
    else
      ok=$((ok - 1 + t - d))
    fi
  done
  record "$preset" "$ok" "$bad"
}

run_node_tests() {  # run_node_tests <suite> <files...>; node's own flags in NODE_FLAGS
  local suite="$1" log="build/$1.node.log"; shift
  node ${NODE_FLAGS:-} --test --test-concurrency=1 "$@" > "$log" 2>&1
  run_node_tests_log "$suite" "$log"
}

run_node_tests_log() {  # run_node_tests_log <suite> <log of node --test>
  local suite="$1" log="$2"
  local pass fail
  pass=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
  fail=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
  if [ -z "$pass" ]; then tail -40 "$log"; record "$suite" 0 1; return; fi
  if [ "$fail" != "0" ]; then grep -E '^not ok|Error|error' "$log" | head -40; fi
  record "$suite" "$pass" "$fail"
}

# The README's main job, first: scripts/demo.sh on a clean clone must install everything it needs
# (npm and the npm dependencies too), build the package and serve the page. In a clean checkout
# (CI) that clone is this one, so its build is reused below; elsewhere a fresh clone of HEAD.
bash scripts/setup.sh browser || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
main_job_dir="$ROOT"
if [ "$clean_checkout" -eq 0 ]; then
  main_job_dir="$(mktemp -d)/simdformer"
  git clone --quiet "$ROOT" "$main_job_dir"
  echo "== main job: this checkout has node_modules/, build/ or dist/; a fresh clone of HEAD in $main_job_dir"
fi
main_job_log="$(mktemp)"
MAIN_JOB_DIR="$main_job_dir" node --test --test-concurrency=1 tests/e2e/main-job.test.mjs > "$main_job_log" 2>&1
mkdir -p build && mv "$main_job_log" build/main-job.node.log
run_node_tests_log main-job build/main-job.node.log
[ "$main_job_dir" = "$ROOT" ] || rm -rf "$(dirname "$main_job_dir")"

bash scripts/setup.sh test || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

# The Google Tests natively on the three levels the addon is built for, each in the addon's own
# build tree, whose library the package build (the main job) has compiled already:
# native-addon-tests on the x86-64 baseline (SSE2; also the examples and the installed-package
# consumer test), native-addon-avx2 (x86-64-v3: AVX2 + FMA, every suite whose arithmetic runs on
# the level: kernels, layers, int8, the models and their goldens, threads; the parsers' suites --
# checkpoint, decimal, entry, io, json_text -- would test the same code a second time) and, only
# where the CPU has it, native-addon-avx512 (x86-64-v4: the suites that run the xsimd kernels:
# CMakePresets.json), each kernels_test checking that its level is the one that runs.
# (native-release is the same SSE2 build without -fPIC, for development; it compiled the library
# a fourth time here.)
# The scalar kernels (SIMDFORMER_SIMD=OFF) run in wasm-scalar, the build that ships them; the
# preset native-scalar (the same sources for one lane, natively) is not run here: its only
# difference, scalar kernels under the native thread pool, is a build that nothing ships.
avx512_preset=""
grep -qw avx512bw /proc/cpuinfo 2>/dev/null && avx512_preset="native-addon-avx512"
for preset in ${SIMDFORMER_PRESETS:-native-addon-tests native-addon-avx2 $avx512_preset native-asan wasm-release wasm-scalar wasm-threads wasm-asan}; do
  run_ctest_preset "$preset"
done

# libFuzzer natively, then the same targets in 32-bit wasm under ASan + UBSan (wasm-asan, built
# above by its ctest preset; scripts/fuzz.sh says how it differs).
echo "== fuzzing (libFuzzer, ASan + UBSan, ${FUZZ_SECONDS:-40} s per target; wasm-asan, ${WASM_FUZZ_SECONDS:-20} s per target)"
fuzz_ok=1
bash scripts/fuzz.sh "${FUZZ_SECONDS:-40}" | tee build/fuzz.log || fuzz_ok=0
FUZZ_PRESETS=wasm-asan bash scripts/fuzz.sh "${WASM_FUZZ_SECONDS:-20}" | tee -a build/fuzz.log || fuzz_ok=0
if [ "$fuzz_ok" -eq 1 ]; then
  record fuzz "$(grep -c ', OK$' build/fuzz.log)" 0
else
  record fuzz "$(grep -c ', OK$' build/fuzz.log)" "$(grep -c 'FAILED' build/fuzz.log || true)"
fi

echo "== building the npm package"
if ! bash scripts/build-package.sh > build/package.build.log 2>&1; then
  tail -40 build/package.build.log
  record "package (build)" 0 1
else
  # Every JavaScript suite in tests/js, one at a time (each loads its own wasm modules), on the
  # wasm backend: in Node init() would pick the addon (dist/prebuilds), so SIMDFORMER_BACKEND=wasm
  # keeps these suites on the builds browsers run. native.test.mjs and package.test.mjs choose
  # their backends themselves (the addon, the installed package's default).
  for f in tests/js/*.test.mjs tests/js/*.test.cjs; do
    name=$(basename "$f"); name="js-${name%%.test.*}"
    case "$name" in
      js-native|js-package) run_node_tests "$name" "$f" ;;
      *) SIMDFORMER_BACKEND=wasm run_node_tests "$name" "$f" ;;
    esac
  done
  grep -ho -E '^# (hardening|load memory): .*' build/js-*.node.log || true
  # The suites that hold a row's bits to one value -- alone and in a batch, on any thread count,
  # in a decoding step and in the full pass -- again with the f32 GEMMs on relaxed SIMD's
  # multiply-add (kernels/relaxed_module.cpp), a second k-loop for every tile and the GEMV: Node 20
  # runs it behind V8's flag, where init()'s relaxedSimd 'auto' turns it on. ~40 s.
  for name in api generate attention-steps threads llama length-groups; do
    NODE_FLAGS=--experimental-wasm-relaxed-simd SIMDFORMER_BACKEND=wasm run_node_tests "js-relaxed-f32-$name" "tests/js/$name.test.mjs"
  done
  # The API, parity, hostile-input and callback suites again on the native addon (the default in
  # Node where a prebuilt one matches); the browser, size, threads-build and wasm-heap suites are
  # wasm-only. About 2 to 2.5 minutes (scripts/test-native.sh runs this stage alone).
  if [ -e dist/prebuilds ]; then
    bash scripts/test-native.sh > build/js-native.log 2>&1
    grep -E '^== ' build/js-native.log
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' build/js-native.log | tail -1)
    if [ -z "$summary" ]; then tail -40 build/js-native.log; record js-native-suites 0 1
    else record js-native-suites "${summary%% passed*}" "$(sed -E 's/.* ([0-9]+) failed/\1/' <<<"$summary")"; fi
  fi
  run_node_tests e2e-demo tests/e2e/demo.test.mjs tests/e2e/page-state.test.mjs tests/e2e/offline.test.mjs tests/e2e/url-privacy.test.mjs
fi

if [ "${#failures[@]}" -gt 0 ]; then echo "failing suites: ${failures[*]}"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
