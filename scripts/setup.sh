#!/usr/bin/env bash
# Installs what simdformer needs on a fresh Debian machine, and nothing that is already there.
# Safe to re-run. Usage: scripts/setup.sh [core|npm|test|bench|goldens|train]...
#   core    : compilers, CMake, Ninja, Emscripten, GoogleTest sources, nlohmann-json, xsimd >= 11,
#             clang-19, lld-19 and llvm-19 (the relaxed-SIMD int8 kernel module of the SIMD128 builds)
#   npm     : npm itself (Debian's package, if the machine's Node.js came without it) and the
#             repository's npm dependencies (`npm ci` when node_modules/ is missing or older than
#             package-lock.json): the tokenizer library, esbuild for the package build, the test tools
#   browser : Chromium (the page tests drive Debian's chromium with playwright-core)
#   test    : core + npm + what the browser/package/fuzz tests need
#   bench   : core + Google Benchmark, wabt, python3-torch (exports the benchmark weights)
#   goldens : python3-torch (regenerates tests/data with PyTorch)
#   train   : python3-torch + fortunes (English text for scripts/training/train_text_models.py)
#   arm64   : the arm64 cross compiler and qemu-user (preset native-arm64: the C++ tests on NEON)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"

want=()
want_npm=0
add() { want+=("$@"); }
for role in "${@:-core}"; do
  case "$role" in
    core)    add cmake ninja-build g++ googletest libgtest-dev nlohmann-json3-dev emscripten nodejs clang-19 lld-19 llvm-19 ;;
    npm)     want_npm=1 ;;
    browser) add chromium ;;
    test)    want_npm=1
             add cmake ninja-build g++ googletest libgtest-dev nlohmann-json3-dev emscripten nodejs clang-19 lld-19 llvm-19 \
                 chromium clang libclang-rt-14-dev ;;
    bench)   add cmake ninja-build g++ googletest libgtest-dev nlohmann-json3-dev emscripten nodejs \
                 libbenchmark-dev wabt python3-torch python3-onnx ;;
    goldens) add python3-torch libopenblas0-pthread python3-jinja2 ;;
    train)   add python3-torch libopenblas0-pthread fortunes ;;
    arm64)   add cmake ninja-build googletest nlohmann-json3-dev g++-aarch64-linux-gnu qemu-user ;;
    *) echo "setup.sh: unknown role '$role' (expected core, npm, browser, test, bench, goldens, train or arm64)" >&2; exit 2 ;;
  esac
done

missing=()
for p in $(printf '%s\n' "${want[@]}" | sort -u); do
  # nodejs may come from another repository under the same name; any installed version will do.
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm and the repository's npm dependencies. Node.js from another repository (nodesource) brings
# its own npm; Debian's nodejs does not, so its npm package is installed then. `npm ci` installs
# exactly package-lock.json; it runs again only when the lock file is newer than the last install
# (node_modules/.package-lock.json is npm's own record of it).
if [ "$want_npm" -eq 1 ]; then
  if ! command -v npm >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing npm"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  record="$ROOT/node_modules/.package-lock.json"
  if [ ! -f "$record" ] || [ "$ROOT/package-lock.json" -nt "$record" ]; then
    echo "setup: installing the npm dependencies (npm ci)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# xsimd >= 11 (the first release with a WebAssembly architecture). Bookworm ships 8.1, so unless
# the system already has a newer one, unpack trixie's header-only packages into a private prefix
# through a private apt configuration. The system's apt sources are never touched.
system_xsimd_ok() {
  local v; v=$(dpkg-query -W -f='${Version}' libxsimd-dev 2>/dev/null || true)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 11
}
# The Debian archive this machine's apt already uses (one-line or deb822 sources, mirrors and
# proxies included): the repository that serves the system's own release, else any Debian
# repository that is not the security archive. Nothing is hard-coded, so a mirror keeps working.
debian_mirror() {
  local codename; codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | sort -u | awk -v c="$codename" '
    $2 == c { exact = $1 } $2 !~ /-security$/ && !any { any = $1 }
    END { print (exact != "" ? exact : any) }'
}
if ! system_xsimd_ok && [ ! -f "$DEPS/prefix/usr/share/cmake/xsimd/xsimdConfig.cmake" ]; then
  echo "setup: fetching xsimd and xtl headers (trixie) into .deps/"
  mkdir -p "$DEPS/apt/lists/partial" "$DEPS/apt/cache/archives/partial" "$DEPS/prefix"
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || { echo "setup.sh: no Debian archive found in this machine's apt sources" >&2; exit 1; }
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$DEPS/apt/trixie.list"
  O=(-o "Dir::Etc::sourcelist=$DEPS/apt/trixie.list" -o Dir::Etc::sourceparts=- \
     -o "Dir::State::Lists=$DEPS/apt/lists" -o "Dir::Cache=$DEPS/apt/cache")
  apt-get "${O[@]}" update -qq
  rm -f "$DEPS"/apt/*.deb
  (cd "$DEPS/apt" && apt-get "${O[@]}" download libxsimd-dev/trixie xtl-dev/trixie 2>&1 | grep -v unsandboxed || true)
  for f in "$DEPS"/apt/*.deb; do dpkg -x "$f" "$DEPS/prefix"; done
fi
