// GEMV: one row times a packed B, the shape of every projection during token-by-token decoding
// (x [1, k] · W [k, n]). gemm_f32_packed would copy the row into its A block and run its
// micro-kernel with a single row, i.e. 2 accumulator vectors: a multiply-add chain that waits on
// its own latency. Here the row is read in place and G panels are streamed at once (G x 2
// independent accumulators), so the loop is limited by loading the weights, which is all a
// single row can hope for.
//
// Every element of y sees exactly the operations gemm_f32_packed gives it (one multiply-add per
// p, in order p = 0 .. k-1, then alpha, bias, activation, residual), so a row's result does not
// depend on which of the two kernels computed it (tested bit for bit).
#include <algorithm>
#include <cstdint>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

// How the weights are streamed, chosen per target by A/B timing of whole decoding steps
// (GPT-2-small, SmolLM2-135M; BENCHMARKS.md "Session 16"). The panels of a packed B lie one
// after the other in memory.
// - wasm: one panel at a time, i.e. the matrix is read as one sequential stream, and 2
//   accumulators per step. V8 ran 4 panels at once (8 accumulators, 4 streams) 1.1-1.5x slower.
// - natively (AVX2, AVX-512): 4 panels at once (8 independent FMA chains), each stream also
//   prefetched kPrefetchBytes ahead: the hardware prefetcher alone left the 1-thread GPT-2 step
//   at ~35 GB/s. SSE2's panels are 32 B wide, where the prefetch measured slower: none there.
#ifndef SIMDFORMER_GEMV_GROUP
#if defined(__wasm__)
#define SIMDFORMER_GEMV_GROUP 1
#else
#define SIMDFORMER_GEMV_GROUP 4
#endif
#endif
constexpr size_t kGroup = SIMDFORMER_GEMV_GROUP;  // panels streamed together
#if defined(__wasm__)
constexpr size_t kPrefetchBytes = 0;
#else
constexpr size_t kPrefetchBytes = 1024;
#endif

// Panels [jp0, jp0 + G) of a packed [k, n] operand whose panels hold V vectors (V * kLanes columns).
template <size_t V, size_t G>
void gemv_panels(size_t jp0, size_t n, size_t k, const float* x, const float* packed_b, float* y, const Epilogue& ep) {
    constexpr size_t w = V * kLanes;  // panel width
    const float* panel[G];
    for (size_t g = 0; g < G; ++g) panel[g] = packed_b + (jp0 + g) * k * w;
    vf32 acc[G][V];
    for (size_t g = 0; g < G; ++g)
        for (size_t v = 0; v < V; ++v) acc[g][v] = vf32(0.0f);

    // HOT LOOP: one broadcast of x[p], G * V loads of weights and multiply-adds (and natively the
    // prefetch of each stream's row `ahead` rows on: a prefetch never faults, so past a panel's end
    // it simply requests the start of the panels after it).
    constexpr size_t row_bytes = w * sizeof(float);
    constexpr size_t ahead = row_bytes >= 64 ? kPrefetchBytes / row_bytes : 0;
    for (size_t p = 0; p < k; ++p) {
        if constexpr (ahead > 0)
            for (size_t g = 0; g < G; ++g)
                for (size_t line = 0; line < row_bytes; line += 64)
                    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(panel[g]) + (p + ahead) * row_bytes + line), 0, 0);
        const vf32 a = simd::splat(x[p]);
        for (size_t g = 0; g < G; ++g)
            for (size_t v = 0; v < V; ++v) acc[g][v] = simd::fma(a, simd::load(panel[g] + p * w + v * kLanes), acc[g][v]);
    }

    const vf32 alpha(ep.alpha);
    for (size_t g = 0; g < G; ++g) {
        const size_t col0 = (jp0 + g) * w;
        const size_t ncols = std::min(w, n - col0);
        float out[w];
        for (size_t v = 0; v < V; ++v) {
            // The epilogue of gemm.cpp's tile, element by element: zero-filled past the edge.
            vf32 t = acc[g][v] * alpha;
            const size_t c = v * kLanes;
            const size_t valid = c < ncols ? std::min(kLanes, ncols - c) : 0;
            if (ep.bias) t = t + detail::load_partial(ep.bias + col0 + c, valid, 0.0f);
            t = detail::activate(ep.activation, t);
            if (ep.residual) t = t + detail::load_partial(ep.residual + col0 + c, valid, 0.0f);
            simd::store(out + c, t);
        }
        std::copy(out, out + ncols, y + col0);
    }
}

template <size_t V>
void gemv(size_t n, size_t k, const float* x, const float* packed_b, float* y, const Epilogue& ep) {
    const size_t panels = (n + V * kLanes - 1) / (V * kLanes);
    size_t jp = 0;
    for (; jp + kGroup <= panels; jp += kGroup) gemv_panels<V, kGroup>(jp, n, k, x, packed_b, y, ep);
    for (; jp < panels; ++jp) gemv_panels<V, 1>(jp, n, k, x, packed_b, y, ep);
}

}  // namespace

void gemv_f32_packed(size_t n, size_t k, const float* x, const float* packed_b, float* y, const Epilogue& ep) {
    // The panel width is gemm.cpp's choice; every width it may pick has an instance here.
    switch (gemm_panel_width() / kLanes) {
        case 1: gemv<1>(n, k, x, packed_b, y, ep); break;
        case 2: gemv<2>(n, k, x, packed_b, y, ep); break;
        case 3: gemv<3>(n, k, x, packed_b, y, ep); break;
        case 4: gemv<4>(n, k, x, packed_b, y, ep); break;
        default: gemm_f32_packed(1, n, k, x, k, packed_b, y, n, ep); break;
    }
}

}  // namespace simdformer::kernels
