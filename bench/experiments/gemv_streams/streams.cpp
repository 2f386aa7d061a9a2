// Read patterns of the GEMV's weight stream in wasm (BENCHMARKS.md "Session 17"): a packed B of
// panels of 8 columns (k rows each, one after the other, as kernels/gemm.cpp packs them for
// SIMD128) read by a one-row product in different orders. Built by run.sh with em++ -O3 -msimd128.
#include <emscripten.h>
#include <stdlib.h>
#include <wasm_simd128.h>

namespace {
constexpr size_t kNr = 8;

// G panels p[0..G) at once: one broadcast of x[i], 2 G loads and multiply-adds per row.
template <int G>
void panels(const float* x, const float* const* p, size_t k, float* const* y) {
    v128_t acc[G][2];
    for (int g = 0; g < G; ++g) acc[g][0] = acc[g][1] = wasm_f32x4_splat(0);
    for (size_t i = 0; i < k; ++i) {
        const v128_t s = wasm_v128_load32_splat(x + i);
        for (int g = 0; g < G; ++g) {
            acc[g][0] = wasm_f32x4_add(acc[g][0], wasm_f32x4_mul(s, wasm_v128_load(p[g] + i * kNr)));
            acc[g][1] = wasm_f32x4_add(acc[g][1], wasm_f32x4_mul(s, wasm_v128_load(p[g] + i * kNr + 4)));
        }
    }
    for (int g = 0; g < G; ++g) {
        wasm_v128_store(y[g], acc[g][0]);
        wasm_v128_store(y[g] + 4, acc[g][1]);
    }
}

// Panels visited G at a time: neighbours (stride 1) or G ranges far apart (stride panels / G).
template <int G, bool kFar>
void gemv(const float* x, const float* b, size_t n, size_t k, float* y) {
    const size_t count = n / kNr, groups = count / G, stride = kFar ? groups : 1;
    for (size_t j = 0; j < groups; ++j) {
        const float* p[G];
        float* out[G];
        const size_t first = kFar ? j : j * G;
        for (int g = 0; g < G; ++g) {
            p[g] = b + (first + g * stride) * k * kNr;
            out[g] = y + (first + g * stride) * kNr;
        }
        panels<G>(x, p, k, out);
    }
}
}  // namespace

extern "C" {
EMSCRIPTEN_KEEPALIVE float* alloc_filled(size_t n) {
    float* p = static_cast<float*>(aligned_alloc(64, n * sizeof(float)));
    if (p)
        for (size_t i = 0; i < n; ++i) p[i] = float(i % 7) * 0.01f;
    return p;
}
EMSCRIPTEN_KEEPALIVE void one_panel(const float* x, const float* b, size_t n, size_t k, float* y) { gemv<1, false>(x, b, n, k, y); }
EMSCRIPTEN_KEEPALIVE void two_neighbours(const float* x, const float* b, size_t n, size_t k, float* y) { gemv<2, false>(x, b, n, k, y); }
EMSCRIPTEN_KEEPALIVE void four_neighbours(const float* x, const float* b, size_t n, size_t k, float* y) { gemv<4, false>(x, b, n, k, y); }
EMSCRIPTEN_KEEPALIVE void two_far(const float* x, const float* b, size_t n, size_t k, float* y) { gemv<2, true>(x, b, n, k, y); }
EMSCRIPTEN_KEEPALIVE void four_far(const float* x, const float* b, size_t n, size_t k, float* y) { gemv<4, true>(x, b, n, k, y); }
// The same bytes summed as one sequential stream with 8 accumulators: no arithmetic chain.
EMSCRIPTEN_KEEPALIVE float sum_stream(const float* b, size_t n) {
    v128_t acc[8];
    for (auto& a : acc) a = wasm_f32x4_splat(0);
    for (size_t i = 0; i + 32 <= n; i += 32)
        for (int j = 0; j < 8; ++j) acc[j] = wasm_f32x4_add(acc[j], wasm_v128_load(b + i + 4 * j));
    for (int j = 1; j < 8; ++j) acc[0] = wasm_f32x4_add(acc[0], acc[j]);
    return wasm_f32x4_extract_lane(acc[0], 0);
}
}
