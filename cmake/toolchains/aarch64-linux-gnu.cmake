# arm64 Linux (AArch64, NEON: xsimd's neon64) cross-compiled on x86-64 with Debian's
# g++-aarch64-linux-gnu; the tests run under qemu-user (qemu-aarch64, with the cross C library as
# its sysroot), as CTest's emulator: preset native-arm64, packages from `scripts/setup.sh arm64`.
# Header-only dependencies (xsimd, nlohmann-json) and the GoogleTest sources are the host's, as
# for the wasm build; GoogleTest is compiled with the cross compiler (SIMDFORMER_GTEST_FROM_SOURCE).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
