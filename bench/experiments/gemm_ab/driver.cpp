// A/B driver for GEMM micro-kernel experiments: links one gemm.cpp variant into a tiny wasm
// module whose exported functions time nothing themselves; bench/experiments/gemm-ab.mjs calls them
// interleaved across variants in one Node process (same machine state for every variant).
#include <cstdlib>
#include <cmath>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace k = simdformer::kernels;

namespace {
size_t g_m, g_n, g_k;
float *g_a, *g_b, *g_c, *g_bias;  // [m, k], `copies` x packed [k, n], [m, n], [n]
int g_copies = 1, g_next = 0;
}  // namespace

extern "C" {
// Allocates and fills the operands of an m x k x n GEMM, with `copies` packed copies of B that
// successive calls cycle through (copies x k x n floats beyond the last-level cache make every
// call stream its weights from memory, as a forward pass over many layers does); returns 0 on
// failure.
int ab_setup(int m, int k, int n, int copies) {
    g_copies = copies < 1 ? 1 : copies;
    g_next = 0;
    g_m = m; g_n = n; g_k = k;
    std::free(g_a); std::free(g_b); std::free(g_c); std::free(g_bias);
    g_a = static_cast<float*>(std::malloc(sizeof(float) * m * k));
    float* w = static_cast<float*>(std::malloc(sizeof(float) * k * n));
    const size_t packed = k::packed_b_size(k, n);
    g_b = static_cast<float*>(std::malloc(sizeof(float) * (packed * g_copies + n)));
    g_c = static_cast<float*>(std::malloc(sizeof(float) * m * n));
    g_bias = static_cast<float*>(std::malloc(sizeof(float) * n));
    if (!g_a || !w || !g_b || !g_c || !g_bias) return 0;
    for (int i = 0; i < m * k; ++i) g_a[i] = std::cos(static_cast<float>(i));
    for (int i = 0; i < k * n; ++i) w[i] = std::sin(static_cast<float>(i)) * 0.01f;
    for (int i = 0; i < n; ++i) g_bias[i] = 0.1f * static_cast<float>(i % 7);
    for (int c = 0; c < g_copies; ++c) k::pack_b(k, n, w, n, 1, g_b + c * packed);
    std::free(w);
    return 1;
}
// Runs the GEMM `reps` times (with bias when bit 0 of `bias` is set, the exact GELU when bit 1 is);
// returns a checksum of C.
double ab_run(int reps, int bias) {
    k::Epilogue ep;
    if (bias & 1) ep.bias = g_bias;
    if (bias & 2) ep.activation = simdformer::Activation::kGeluErf;
    const size_t packed = k::packed_b_size(g_k, g_n);
    for (int r = 0; r < reps; ++r) {
        k::gemm_f32_packed(g_m, g_n, g_k, g_a, g_k, g_b + g_next * packed, g_c, g_n, ep);
        g_next = (g_next + 1) % g_copies;
    }
    double s = 0;
    for (size_t i = 0; i < g_m * g_n; i += 97) s += g_c[i];
    return s;
}
// The exact GELU alone (the epilogue's activate_rows) over C, `reps` times in 48-float pieces as
// the 2 x 3 tiles' epilogues call it; returns a checksum.
double ab_gelu(int reps) {
    for (int r = 0; r < reps; ++r)
        for (size_t i = 0; i + 48 <= g_m * g_n; i += 48) k::detail::activate_rows(simdformer::Activation::kGeluErf, g_c + i, 48);
    double s = 0;
    for (size_t i = 0; i < g_m * g_n; i += 97) s += g_c[i];
    return s;
}
// Runs the f32 GEMMs on the relaxed-SIMD module's k-loops (on != 0) or on SIMD128's; returns
// whether the switch took (a build without the module, or an engine without relaxed SIMD, refuses).
int ab_relaxed(int on) { return k::set_relaxed_f32(on != 0) ? 1 : 0; }
// FNV-1a hash of every bit of C (after ab_run): equal hashes across variants mean bit-identical
// results, which the rounded checksum above cannot show.
unsigned ab_bits() {
    unsigned h = 2166136261u;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(g_c);
    for (size_t i = 0; i < sizeof(float) * g_m * g_n; ++i) h = (h ^ p[i]) * 16777619u;
    return h;
}
}
