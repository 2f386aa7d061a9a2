#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time, starting
# from the committed seed corpus (copied, so the repository's corpus is never modified).
#   scripts/fuzz.sh [seconds per target, default 60]      e.g. scripts/fuzz.sh 3600 for a long run
#   FUZZ_PRESETS="fuzz fuzz32" scripts/fuzz.sh 30          also the 32-bit build (size_t of 32 bits,
#       as in wasm32): needs i386 libraries (g++-multilib lib32asan8 lib32ubsan1) and a kernel that
#       runs i386 binaries, which the development machines lack ("Exec format error"): not default
# Targets: fuzz_load (safetensors + configs), fuzz_api (the C++ API), fuzz_entry (the entry points
# JavaScript calls, with sizes near 2^31 and 2^32).
# Prints "<preset>/fuzz_<name>: N executions, OK" per target; exits non-zero on any crash, leak or
# timeout.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-60}"
mkdir -p build
status=0
for preset in ${FUZZ_PRESETS:-fuzz}; do
  if ! { cmake --preset "$preset" >/dev/null && cmake --build --preset "$preset" -j "${JOBS:-2}"; } > "build/$preset.build.log" 2>&1; then
    tail -30 "build/$preset.build.log"
    echo "$preset: build FAILED"
    status=1
    continue
  fi
  for name in load api entry; do
    work="build/$preset/run-$name"
    rm -rf "$work" && mkdir -p "$work/corpus" && cp tests/fuzz/corpus/$name/* "$work/corpus/"
    log="$work/fuzz.log"
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "build/$preset/tests/fuzz/fuzz_$name" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" > "$log" 2>&1
    rc=$?
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    if [ "$rc" -ne 0 ]; then
      status=1
      echo "$preset/fuzz_$name: FAILED after ${execs:-?} executions (exit $rc)"
      grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20
    else
      echo "$preset/fuzz_$name: ${execs:-0} executions, OK"
    fi
  done
done
exit $status
