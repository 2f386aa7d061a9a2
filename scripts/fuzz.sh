#!/usr/bin/env bash
# Builds the fuzz targets and runs each for a bounded time, starting from the committed seed
# corpus (copied, so the repository's corpus is never modified).
#   scripts/fuzz.sh [seconds per target, default 60]      e.g. scripts/fuzz.sh 3600 for a long run
#   FUZZ_PRESETS="fuzz wasm-asan" scripts/fuzz.sh 30       presets to run, default "fuzz":
#     fuzz       libFuzzer (clang, coverage-guided), ASan + UBSan, native 64-bit.
#     wasm-asan  the same targets compiled to wasm with Emscripten's ASan + UBSan and run under
#                node: size_t and pointers are 32 bits, as in the shipped module, so size arithmetic
#                that wraps at 2^32 wraps here too. libFuzzer does not exist for wasm; each target is
#                linked with tests/fuzz/wasm_driver.cpp, which runs the seeds, then mutations of them
#                (bit flips, splices, boundary integers such as 2^31 and 2^32 - 1 as 4/8-byte
#                little-endian or decimal text) and random inputs, without coverage feedback.
#                FUZZ_SEED=<n> picks its random seed (default: the time; printed, so a run replays).
#     fuzz32     libFuzzer, 32-bit i386: needs i386 libraries (g++-multilib lib32asan8 lib32ubsan1)
#                and a kernel that runs i386 binaries, which the development and CI machines lack
#                ("Exec format error"); wasm-asan is the 32-bit run that works there.
# Targets: fuzz_load (safetensors + configs), fuzz_api (the C++ API), fuzz_entry (the entry points
# JavaScript calls, with sizes near 2^31 and 2^32).
# Prints "<preset>/fuzz_<name>: N executions, OK" per target; exits non-zero on any crash, leak,
# sanitizer finding or timeout, and leaves the failing input in build/<preset>/run-<name>/.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-60}"
seed="${FUZZ_SEED:-$(date +%s)}"
mkdir -p build
status=0
for preset in ${FUZZ_PRESETS:-fuzz}; do
  if ! { cmake --preset "$preset" >/dev/null &&
         cmake --build --preset "$preset" -j "${JOBS:-2}" --target fuzz_load fuzz_api fuzz_entry; } > "build/$preset.fuzz-build.log" 2>&1; then
    tail -30 "build/$preset.fuzz-build.log"
    echo "$preset: build FAILED"
    status=1
    continue
  fi
  for name in load api entry; do
    work="build/$preset/run-$name"
    rm -rf "$work" && mkdir -p "$work/corpus" && cp tests/fuzz/corpus/$name/* "$work/corpus/"
    log="$work/fuzz.log"
    case "$preset" in
      wasm*)
        # The sanitizer options are compiled in (tests/sanitizer_options.cpp). No per-input
        # timeout: the whole run is bounded instead (fixture set-up and seeds included).
        timeout $((SECONDS_PER_TARGET + 300)) node "build/$preset/tests/fuzz/fuzz_$name.js" "$work/corpus" \
          -max_total_time="$SECONDS_PER_TARGET" -seed="$seed" -max_len=65536 -artifact_prefix="$work/" > "$log" 2>&1
        rc=$?
        execs=$(sed -nE 's/^fuzz_[a-z]+: ([0-9]+) executions.*/\1/p' "$log")
        [ "$rc" -eq 0 ] || echo "$preset/fuzz_$name: seed $seed; replay with FUZZ_SEED=$seed, or node" \
          "build/$preset/tests/fuzz/fuzz_$name.js <the crash- file written to $work/>" ;;
      *)
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
          "build/$preset/tests/fuzz/fuzz_$name" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
          -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" > "$log" 2>&1
        rc=$?
        execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') ;;
    esac
    if [ "$rc" -ne 0 ]; then
      status=1
      echo "$preset/fuzz_$name: FAILED after ${execs:-?} executions (exit $rc)"
      grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written|runtime error|RuntimeError|wasm_driver' "$log" | head -20
    else
      echo "$preset/fuzz_$name: ${execs:-0} executions, OK"
    fi
  done
done
exit $status
