// The relaxed-SIMD kernel module (kernels/relaxed/: the int8 k-loop and the f32 GEMM's k-loops),
// built apart by clang-19 and run beside the engine on the same memory (issue 29). Internal to
// kernels/. This file owns the module's bytes, its instantiation in each thread and the f32
// k-loops' table slots; gemm_i8_relaxed.cpp drives the int8 k-loop, gemm.cpp and gemv.cpp the f32
// ones.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simdformer::kernels::relaxed {

// The builds whose GEMM k-loops may run in the module: wasm SIMD128 (its tiles are 8 floats wide).
#if SIMDFORMER_SIMD && defined(__wasm__)
inline constexpr bool kF32KLoops = true;
#else
inline constexpr bool kF32KLoops = false;
#endif

// ---- f32: the GEMM tiles' k-loops with f32x4.relaxed_madd (kernels/relaxed/f32_kloops.c) --------
// acc[R][G][8] = (first ? 0 : acc) + the tile's R rows of A (a: R floats per k, k-major) times G
// panels of B (b: the first panel's kc x 8 floats, the g-th at b + g * panel_stride floats), one
// multiply-add per k in order, fused or not as the engine lowers relaxed_madd -- the same in every
// loop.
using F32KLoop = void (*)(const float* a, const float* b, size_t panel_stride, size_t kc, float* acc, int first);
// The tile shapes of gemm.cpp's wasm build (R rows x G panels; 2 x 3 is the relaxed path's main
// tile); the GEMV is 1 x 4 and 1 x 1.
enum F32Tile : int { k2x2, k2x1, k1x4, k1x2, k1x1, k2x3, kF32Tiles };
constexpr F32Tile f32_tile(size_t rows, size_t panels) {
    return rows == 2 ? (panels == 3 ? k2x3 : panels == 2 ? k2x2 : k2x1) : panels == 4 ? k1x4 : panels == 2 ? k1x2 : k1x1;
}

// This thread's relaxed f32 k-loops while the f32 GEMMs run on relaxed SIMD (set_relaxed_f32),
// else null. The first call in a thread instantiates the module there and puts its loops into
// this thread's function table. Cheap after that (an atomic load and a thread_local).
const F32KLoop* f32_kloops();

// ---- the int8 k-loop (kernels/relaxed/i8_dot_block.c) -------------------------------------------
// The module's dot_block in this thread; false when the module cannot run here (the caller then
// runs the portable twin).
bool i8_dot_block(const uint8_t* a, size_t mc, size_t kq, bool odd_pair, const int8_t* b, size_t panel_stride,
                  size_t npanels, int32_t* c, size_t ldc, bool first);
// Does the module validate in this engine (WebAssembly.validate)?
bool module_validates();

}  // namespace simdformer::kernels::relaxed
