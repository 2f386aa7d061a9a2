# Every build switch of simdformer, with defaults for a top-level build.
option(SIMDFORMER_BUILD_TESTS    "Build the Google Test suites"                      ${PROJECT_IS_TOP_LEVEL})
option(SIMDFORMER_BUILD_EXAMPLES "Build the native examples"                         ${PROJECT_IS_TOP_LEVEL})
set(SIMDFORMER_TEST_SUITES "" CACHE STRING "The Google Test suites to build and run, e.g. kernels_test;layers_test (empty: all)")
option(SIMDFORMER_BUILD_BENCH    "Build the native Google Benchmark kernels bench"   OFF)
option(SIMDFORMER_BUILD_FUZZERS  "Build the libFuzzer targets (clang)"               OFF)
option(SIMDFORMER_SIMD           "Vectorize kernels with xsimd (OFF: scalar kernels)" ON)
# Threads: ON natively (std::thread; nothing starts until set_threads(n > 1) is called, so
# one-thread users pay nothing). OFF by default under Emscripten, where ON means the pthreads
# build (-pthread: shared memory, worker pool; preset wasm-threads) that needs cross-origin
# isolation in browsers, so it is the third wasm build rather than the default one.
if(EMSCRIPTEN)
  set(_sf_threads_default OFF)
else()
  set(_sf_threads_default ON)
endif()
option(SIMDFORMER_THREADS        "Multi-threaded kernels (thread pool; -pthread under Emscripten)" ${_sf_threads_default})
option(SIMDFORMER_NATIVE_ARCH    "Compile for the build machine (-march=native)"     OFF)
# A fixed x86-64 level for every target of a native build (the addon's AVX2 + FMA build uses
# x86-64-v3); empty: the compiler's default (x86-64: SSE2).
set(SIMDFORMER_MARCH "" CACHE STRING "Native: -march value for the whole build, e.g. x86-64-v3 (empty: compiler default)")
# The SIMD level the native tests must see (build_info_test): checks the build really runs it.
set(SIMDFORMER_EXPECT_ARCH "" CACHE STRING "Native tests: the simd_arch() name this build must report (empty: not checked)")
option(SIMDFORMER_NODE_ADDON     "Build the Node-API addon (bindings/node; needs PIC and node-addon-api)" OFF)
option(SIMDFORMER_WERROR         "Treat warnings as errors"                          OFF)
option(SIMDFORMER_INSTALL        "Install the library, public headers and CMake package" ${PROJECT_IS_TOP_LEVEL})
option(SIMDFORMER_M32           "Native 32-bit build (-m32 -msse2): the same 32-bit size_t as wasm32"  OFF)
option(SIMDFORMER_GTEST_FROM_SOURCE "Build GoogleTest from its sources (always for wasm; -m32 needs it too)" ${SIMDFORMER_M32})
option(SIMDFORMER_WASM_EXCEPTIONS "wasm: compile with C++ exceptions, so an allocation failing inside a std container or the JSON parser becomes out_of_memory instead of an abort" ON)
# How those exceptions are implemented. Native wasm exception handling (-fwasm-exceptions: the
# tag section and try/catch opcodes) is 31 KB gzip smaller than Emscripten's JavaScript-based
# emulation (-fexceptions: an invoke_* JS trampoline around every call that may throw) and needs
# Chrome 95, Firefox 100, Safari 15.2 or Node 17 -- every engine that has SIMD128 except a few
# versions, which the loader's probe sends to the scalar build (bindings/js/lib/wasm-build.mjs).
# So the SIMD128 builds use it and the scalar build, the one for old engines, keeps JS exceptions.
option(SIMDFORMER_WASM_NATIVE_EH "wasm: native wasm exception handling (-fwasm-exceptions) instead of JS-based (-fexceptions)" ${SIMDFORMER_SIMD})
# Link-time optimization of the wasm builds (issue 30): clang's bitcode for every object, optimized
# and compiled as one module by wasm-ld, which drops and merges code across translation units. The
# per-file -Oz of the cold code survives as the minsize / optsize attributes of its functions (the
# LTO inliner and loop passes respect them), but the LTO pipeline runs once over everything at
# wasm-ld's default level (--lto-O2), the -O3 kernels and forward passes included: the hot path's
# inlining changes, so an idle speed A/B decides whether it ships. Not with the sanitizers.
option(SIMDFORMER_WASM_LTO "wasm: link-time optimization (-flto) of every object" ON)
# The int8 GEMM's relaxed-SIMD k-loop (issue 29, VNNI) is a module of its own, compiled by a clang
# that emits the final relaxed-SIMD opcodes (Emscripten 3.1.6's clang 14 cannot; bookworm's clang-19
# and lld-19 can: scripts/setup.sh installs them) and embedded in the SIMD128 builds' .wasm.
option(SIMDFORMER_WASM_RELAXED "wasm: embed the relaxed-SIMD kernel module (int8 and f32 k-loops) (needs clang-19 and wasm-ld-19)" ON)
set(SIMDFORMER_SANITIZE "" CACHE STRING "Sanitizers, e.g. address;undefined (native, and wasm: preset wasm-asan)")
set(SIMDFORMER_DEPS_PREFIX "${PROJECT_SOURCE_DIR}/.deps/prefix" CACHE PATH
    "Prefix holding xsimd >= 11 and xtl unpacked by scripts/setup.sh")

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

# Warnings as an INTERFACE target, so third-party code (GoogleTest) is not affected.
add_library(simdformer_warnings INTERFACE)
target_compile_options(simdformer_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                       -Wno-sign-conversion $<$<BOOL:${SIMDFORMER_WERROR}>:-Werror>)

# GCC 12's AVX-512 intrinsics headers trip -W(maybe-)uninitialized on their own _mm512_undefined_ps()
# (a false positive inside avx512fintrin.h, once per xsimd max/min): off for AVX-512 builds only.
if(SIMDFORMER_MARCH MATCHES "x86-64-v4|avx512" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT EMSCRIPTEN)
  add_compile_options(-Wno-maybe-uninitialized -Wno-uninitialized)
endif()

# 32-bit x86 with SSE2 (xsimd needs a SIMD level; i386's default has none). Everything in the
# build, GoogleTest included, is compiled this way.
if(SIMDFORMER_M32 AND NOT EMSCRIPTEN)
  add_compile_options(-m32 -msse2)
  add_link_options(-m32)
endif()

# Sanitizers apply to everything in the build (library, tests and GoogleTest), as ASan requires.
# -fno-sanitize-recover=all: a UBSan finding aborts, so the test or fuzz run fails.
if(SIMDFORMER_SANITIZE)
  list(JOIN SIMDFORMER_SANITIZE "," _sf_san)
  add_compile_options(-fsanitize=${_sf_san} -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_sf_san})
  if(EMSCRIPTEN)
    # Emscripten ships ASan/UBSan runtimes for wasm32, where size_t and pointers are 32 bits as
    # in the shipped module (preset wasm-asan). Function names stay in the binary so that
    # sanitizer reports name the frames without the cost of DWARF (-g). -O1 at link time (after
    # the build type's -O2, so it wins) only skips binaryen's wasm-opt passes: on these
    # instrumented binaries they took 4x the CPU time of the rest of the link (15 s vs 3.7 s for
    # kernels_test), for code that V8 compiles anyway.
    add_link_options(--profiling-funcs -O1)
  else()
    add_compile_options(-fno-omit-frame-pointer)
  endif()
endif()

if(EMSCRIPTEN)
  # Test binaries run under node (CTest's emulator for gtest discovery and runs).
  if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    find_program(SIMDFORMER_NODE node REQUIRED)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${SIMDFORMER_NODE}" CACHE FILEPATH "Runs the wasm test binaries" FORCE)
  endif()
  # Debian's emscripten runs acorn from Debian's node modules in its optimizing linker (emsdk
  # ships its own and needs nothing). Set for every link: a build step does not inherit the
  # configure environment.
  set(_sf_node_path "$ENV{NODE_PATH}")
  if(NOT _sf_node_path AND EXISTS "/usr/share/nodejs/acorn")
    set(_sf_node_path "/usr/share/nodejs")
  endif()
  set(SIMDFORMER_NODE_PATH "${_sf_node_path}" CACHE PATH "NODE_PATH for Emscripten's linker (node modules it needs)")
  if(SIMDFORMER_NODE_PATH)
    set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=${SIMDFORMER_NODE_PATH})
  endif()
  # Emscripten's default compiles exceptions away (a throw aborts). With -fexceptions or
  # -fwasm-exceptions at compile and link time (both, and in every object of the module: one
  # mechanism per module), a std::bad_alloc unwinds through RAII owners to the entry points'
  # guarded() (bindings/entry/reply.h), which reports out_of_memory. Its cost in speed and size
  # is measured side by side by bench/experiments/eh-cost.mjs (a build with and one without).
  if(SIMDFORMER_WASM_EXCEPTIONS AND SIMDFORMER_WASM_NATIVE_EH)
    add_compile_options(-fwasm-exceptions)
    add_link_options(-fwasm-exceptions)
  elseif(SIMDFORMER_WASM_EXCEPTIONS)
    add_compile_options(-fexceptions)
    add_link_options(-fexceptions)
  endif()
  if(SIMDFORMER_WASM_LTO AND NOT SIMDFORMER_SANITIZE)
    add_compile_options(-flto)
    add_link_options(-flto)
  endif()
  # No RTTI in the wasm builds (issue 30): nothing calls typeid or dynamic_cast, and exceptions
  # keep the type_info of what they throw and catch either way. It drops the type_info and names
  # of every polymorphic class and links Embind's library without RTTI, which needs the bindings
  # compiled with EMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0 (Embind then names types by its own ids).
  # Not with the sanitizers: UBSan's vptr check needs RTTI.
  if(NOT SIMDFORMER_SANITIZE)
    add_compile_options(-fno-rtti -DEMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0)
    add_link_options(-fno-rtti)
  endif()
  # The scalar wasm build must not contain a single SIMD opcode: it is the fallback for engines
  # without SIMD128. xsimd cannot compile without -msimd128, so it is only added when SIMD is on.
  if(SIMDFORMER_SIMD)
    add_compile_options(-msimd128)
  endif()
  # Every object of a pthreads module (GoogleTest included) must be compiled with atomics and
  # bulk memory, so -pthread goes to the whole build, not only the library.
  if(SIMDFORMER_THREADS)
    add_compile_options(-pthread)
    add_link_options(-pthread)
  endif()
endif()
