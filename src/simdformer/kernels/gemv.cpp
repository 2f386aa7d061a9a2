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
#include "simdformer/kernels/relaxed_module.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

// How the weights are streamed, chosen per target by A/B timing of whole decoding steps
// (GPT-2-small, SmolLM2-135M; BENCHMARKS.md "Session 16", "Session 17"). The panels of a packed
// B lie one after the other in memory. G panels are streamed at once (G x V independent
// accumulators), and the G panels are taken from G separate ranges of the matrix (panels j,
// j + s, j + 2s, ... for a stride s of panels / G): G streams far apart in memory.
// - wasm has no prefetch instruction, so the hardware prefetcher and the number of streams in
//   flight set the bandwidth. A wasm microbenchmark on Zen 5 (Node 20 and Chromium, matrices of
//   the SmolLM2 / GPT-2 shapes, 400 MB per round): one panel at a time ~21-28 GB/s (a plain sum
//   of the matrix, one stream with 8 accumulators, no faster), 4 far-apart streams ~30-35 GB/s.
//   Neighbouring panels read together are the slowest of all (2 neighbours 8.9 GB/s where one
//   panel read 12.8 in the same loaded process): why V8 looked bad at 4 neighbouring panels and
//   session 16 chose one panel at a time. Whole decoding steps: 1.16-1.30x over one panel.
// - natively (AVX2, AVX-512) each stream is also prefetched kPrefetchBytes ahead: the hardware
//   prefetcher alone left the 1-thread GPT-2 step at ~35 GB/s. SSE2's panels are 32 B wide,
//   where the prefetch measured slower: none there. Far-apart streams 1.02-1.06x over
//   neighbouring ones there.
#ifndef SIMDFORMER_GEMV_GROUP
#define SIMDFORMER_GEMV_GROUP 4
#endif
constexpr size_t kGroup = SIMDFORMER_GEMV_GROUP;  // panels streamed together
#if defined(__wasm__)
constexpr size_t kPrefetchBytes = 0;
#else
constexpr size_t kPrefetchBytes = 1024;
#endif

// The epilogue of one panel's columns [col0, col0 + w) of y (those inside n), as gemm.cpp's tile
// applies it, element by element, zero-filled past the edge. Out of line: inlined once per panel
// of a group, with the activations, it cost 0.5 KB gzip in wasm and runs once per k rows.
template <size_t V>
[[gnu::noinline]] void finish_panel(const vf32* acc, size_t col0, size_t n, float* y, const Epilogue& ep) {
    constexpr size_t w = V * kLanes;
    const size_t ncols = std::min(w, n - col0);
    const vf32 alpha(ep.alpha);
    float out[w];
#if SIMDFORMER_ACTIVATE_ROWS
    // In three passes, as gemm.cpp's epilogue_tile: the same operations per element.
    const auto valid = [&](size_t c) { return c < ncols ? std::min(kLanes, ncols - c) : 0; };
    for (size_t c = 0; c < w; c += kLanes) {
        vf32 t = acc[c / kLanes] * alpha;
        if (ep.bias) t = t + detail::load_partial(ep.bias + col0 + c, valid(c), 0.0f);
        simd::store(out + c, t);
    }
    detail::activate_rows(ep.activation, out, w);
    if (ep.residual)
        for (size_t c = 0; c < w; c += kLanes)
            simd::store(out + c, simd::load(out + c) + detail::load_partial(ep.residual + col0 + c, valid(c), 0.0f));
#else
    for (size_t v = 0; v < V; ++v) {
        vf32 t = acc[v] * alpha;
        const size_t c = v * kLanes;
        const size_t valid = c < ncols ? std::min(kLanes, ncols - c) : 0;
        if (ep.bias) t = t + detail::load_partial(ep.bias + col0 + c, valid, 0.0f);
        t = detail::activate(ep.activation, t);
        if (ep.residual) t = t + detail::load_partial(ep.residual + col0 + c, valid, 0.0f);
        simd::store(out + c, t);
    }
#endif
    std::copy(out, out + ncols, y + col0);
}

// Panels jp0, jp0 + stride, ..., jp0 + (G - 1) * stride of a packed [k, n] operand whose panels
// hold V vectors (V * kLanes columns).
// With the relaxed f32 k-loops on (kloops), the module's 1 x G tile loop runs instead: a GEMV row
// is a GEMM tile of one row whose A is the row itself.
template <size_t V, size_t G>
void gemv_panels(size_t jp0, size_t stride, size_t n, size_t k, const float* x, const float* packed_b, float* y,
                 const Epilogue& ep, const relaxed::F32KLoop* kloops) {
    constexpr size_t w = V * kLanes;  // panel width
    const float* panel[G];
    for (size_t g = 0; g < G; ++g) panel[g] = packed_b + (jp0 + g * stride) * k * w;
    vf32 acc[G][V];
    for (size_t g = 0; g < G; ++g)
        for (size_t v = 0; v < V; ++v) acc[g][v] = vf32(0.0f);
    if constexpr (relaxed::kF32KLoops) {
        static_assert(V == 2 && kLanes == 4 && (G == 4 || G == 2 || G == 1), "the module's 1 x G tiles");
        if (kloops) {
            float sums[G][w];
            kloops[relaxed::f32_tile(1, G)](x, panel[0], stride * k * w, k, &sums[0][0], 1);
            for (size_t g = 0; g < G; ++g)
                for (size_t v = 0; v < V; ++v) acc[g][v] = simd::load(sums[g] + v * kLanes);
            k = 0;  // the k-loop below has nothing left to do
        }
    }

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

    for (size_t g = 0; g < G; ++g) finish_panel<V>(acc[g], (jp0 + g * stride) * w, n, y, ep);
}

template <size_t V>
void gemv(size_t n, size_t k, const float* x, const float* packed_b, float* y, const Epilogue& ep) {
    const size_t panels = (n + V * kLanes - 1) / (V * kLanes);
    const size_t stride = panels / kGroup;  // panels per stream; the last panels % kGroup go alone
    const relaxed::F32KLoop* kloops = relaxed::kF32KLoops ? relaxed::f32_kloops() : nullptr;
    for (size_t jp = 0; jp < stride; ++jp) gemv_panels<V, kGroup>(jp, stride, n, k, x, packed_b, y, ep, kloops);
    for (size_t jp = stride * kGroup; jp < panels; ++jp) gemv_panels<V, 1>(jp, 0, n, k, x, packed_b, y, ep, kloops);
}

}  // namespace

void gemv_f32_packed(size_t n, size_t k, const float* x, const float* packed_b, float* y, const Epilogue& ep) {
    // One instance, of the panel width gemm.cpp packs (detail::kPanelVecs); four were compiled
    // for widths no build uses (+0.5 KB gzip once each streamed 4 panels).
    static_assert(detail::kPanelVecs * kGroup <= 16, "the accumulators of a group fit the vector registers");
    gemv<detail::kPanelVecs>(n, k, x, packed_b, y, ep);
}

}  // namespace simdformer::kernels
