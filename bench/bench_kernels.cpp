// Native Google Benchmark of the kernels on the shapes of the wasm benchmark (for comparing the
// SIMD code generation natively; the headline numbers are the wasm ones from bench.mjs).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <vector>

#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd.h"
#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/runtime/thread_pool.h"
#include "simdformer/threads.h"

namespace k = simdformer::kernels;

namespace {

std::vector<float> random_vector(size_t n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

void BM_GemmPacked(benchmark::State& state) {
    const size_t m = state.range(0), kk = state.range(1), n = state.range(2);
    const auto a = random_vector(m * kk), b = random_vector(kk * n), bias = random_vector(n);
    std::vector<float> packed(k::packed_b_size(kk, n)), c(m * n);
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    k::Epilogue ep;
    ep.bias = bias.data();
    for (auto _ : state) {
        k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n, ep);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * kk, benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
}
// BERT-base's projections at 128 tokens, and MiniLM-L6's FFN at 5 / 23 / 46 tokens (the tails).
BENCHMARK(BM_GemmPacked)->Args({128, 768, 768})->Args({128, 768, 3072})->Args({128, 3072, 768})->Args({64, 256, 1024})
    ->Args({5, 384, 1536})->Args({23, 384, 1536})->Args({46, 384, 1536});

// The single-thread ceiling at this build's SIMD level (issue 31: the native GEMM as a fraction of
// the machine's measured FMA peak): 12 independent chains of multiply-adds on registers, no
// memory traffic, as many as hide the FMA latency on two FMA ports. 2 flops per lane per
// multiply-add (the SSE2 build's "fma" is a multiply and an add: its ceiling is that pair's).
void BM_FmaPeak(benchmark::State& state) {
    namespace simd = simdformer::simd;
    constexpr int kChains = 12, kSteps = 4096;
    simd::vf32 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = simd::splat(1e-3f * float(c));
    const simd::vf32 a = simd::splat(0.9999f), b = simd::splat(1e-4f);
    for (auto _ : state) {
        for (int s = 0; s < kSteps; ++s)
            for (int c = 0; c < kChains; ++c) acc[c] = simd::fma(acc[c], a, b);
        for (int c = 0; c < kChains; ++c) benchmark::DoNotOptimize(acc[c]);
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * simd::kLanes * kChains * kSteps, benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
    state.SetLabel(simd::arch_name());
}
BENCHMARK(BM_FmaPeak);

// The thread pool's GEMM at 1 and 2 threads (wall time), split whatever the size (cut-over 0):
// the speed-up on the model's shapes and the cost of a split of a tiny one.
void BM_GemmThreads(benchmark::State& state) {
    const size_t m = state.range(0), kk = state.range(1), n = state.range(2), threads = state.range(3);
    if (!simdformer::set_threads(threads).is_ok()) {
        state.SkipWithError("set_threads failed");
        return;
    }
    const auto a = random_vector(m * kk), b = random_vector(kk * n), bias = random_vector(n);
    std::vector<float> packed(k::packed_b_size(kk, n)), c(m * n);
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    k::Epilogue ep;
    ep.bias = bias.data();
    const double cut_over = simdformer::runtime::set_parallel_min_macs(0);  // split every size
    for (auto _ : state) {
        simdformer::runtime::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n, ep);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * kk, benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
    simdformer::runtime::set_parallel_min_macs(cut_over);
    (void)simdformer::set_threads(1);
}
BENCHMARK(BM_GemmThreads)
    ->ArgsProduct({{128}, {768}, {768, 3072}, {1, 2}})
    ->ArgsProduct({{1, 4, 16}, {64, 256}, {64, 256}, {1, 2}})
    ->UseRealTime();

// The int8 GEMM of the thread pool (wall time), split whatever the size (cut-over 0), on MiniLM-L6's
// and BERT-base's weight shapes: threads 1 or 2, and once = 1 when the column split quantizes A once
// for both threads, 0 when each thread quantizes all of A for its columns (the split before issue
// 29's change, runtime::set_i8_quantize_once). Run with --benchmark_enable_random_interleaving and
// repetitions for same-process A/B ratios.
void BM_GemmI8Threads(benchmark::State& state) {
    const size_t m = state.range(0), kk = state.range(1), n = state.range(2), threads = state.range(3);
    if (!simdformer::set_threads(threads).is_ok()) {
        state.SkipWithError("set_threads failed");
        return;
    }
    const auto a = random_vector(m * kk), b = random_vector(kk * n), bias = random_vector(n);
    std::vector<uint8_t> packed(k::packed_i8_size(kk, n) + 64);
    void* p = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;  // 64-aligned
    k::pack_i8(kk, n, b.data(), n, 1, p);
    std::vector<float> c(m * n);
    k::Epilogue ep;
    ep.bias = bias.data();
    const double cut_over = simdformer::runtime::set_parallel_min_macs(0);
    const bool saved = simdformer::runtime::set_i8_quantize_once(state.range(4) != 0);
    for (auto _ : state) {
        simdformer::runtime::gemm_qd8_qc8w(m, n, kk, a.data(), kk, p, c.data(), n, ep);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GMAC/s"] = benchmark::Counter(double(m) * n * kk, benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
    simdformer::runtime::set_i8_quantize_once(saved);
    simdformer::runtime::set_parallel_min_macs(cut_over);
    (void)simdformer::set_threads(1);
}
BENCHMARK(BM_GemmI8Threads)
    ->ArgsProduct({{1, 5, 23, 128}, {384}, {1536}, {1, 2}, {0, 1}})
    ->ArgsProduct({{1, 5, 23, 128}, {1536}, {384}, {1, 2}, {0, 1}})
    ->ArgsProduct({{5, 128}, {768}, {768, 3072}, {1, 2}, {0, 1}})
    ->ArgsProduct({{5, 128}, {3072}, {768}, {1, 2}, {0, 1}})
    ->UseRealTime();

// Quantizing and packing A alone (kernels::quantize_a_rows, design (b)'s layout): the work a
// column split used to repeat in every thread, to set against BM_GemmI8Threads' one-thread time.
void BM_QuantizeA(benchmark::State& state) {
    const size_t m = state.range(0), kk = state.range(1);
    const auto a = random_vector(m * kk);
    const k::I8Kernel kernel = k::I8Kernel::kPairs16;
    std::vector<uint8_t> memory(k::quantized_a_bytes(kernel, m, kk) + 64);
    void* data = memory.data() + (64 - reinterpret_cast<uintptr_t>(memory.data()) % 64) % 64;
    const k::QuantizedA qa{kernel, m, kk, data};
    for (auto _ : state) {
        k::quantize_a_rows(qa, a.data(), kk, 0, m);
        benchmark::DoNotOptimize(memory.data());
    }
}
BENCHMARK(BM_QuantizeA)->ArgsProduct({{5, 23, 128}, {384, 768, 1536, 3072}});

// Few rows (short texts, decoding steps, batches of short texts) against the weight shapes of
// BERT-base (768 x 768, 768 x 3072, 3072 x 768) and MiniLM-L6 (384 x 384, 384 x 1536, 1536 x 384):
// the time a Linear layer takes (runtime::gemm_f32_packed with the cut-over in effect) and the
// rate at which it streams the packed weights (GB/s). Several copies of the weight are cycled
// so that at least 64 MiB of weights pass per round: the weights come from L3 or memory, not
// from L2, as in a model whose layers each read their own weights once per forward.
struct RotatingWeights {
    std::vector<std::vector<float>> copies;
    size_t next = 0;
    RotatingWeights(size_t kk, size_t n) {
        const auto b = random_vector(kk * n);
        const size_t bytes = k::packed_b_size(kk, n) * sizeof(float);
        const size_t count = std::min<size_t>(128, std::max<size_t>(1, (64u << 20) / bytes));
        copies.resize(count, std::vector<float>(k::packed_b_size(kk, n)));
        for (auto& c : copies) k::pack_b(kk, n, b.data(), n, 1, c.data());
    }
    const float* take() {
        const float* p = copies[next].data();
        next = (next + 1) % copies.size();
        return p;
    }
};

void BM_GemmSmallM(benchmark::State& state) {
    const size_t m = state.range(0), kk = state.range(1), n = state.range(2), threads = state.range(3);
    if (!simdformer::set_threads(threads).is_ok()) {
        state.SkipWithError("set_threads failed");
        return;
    }
    RotatingWeights w(kk, n);
    const auto a = random_vector(m * kk), bias = random_vector(n);
    std::vector<float> c(m * n);
    k::Epilogue ep;
    ep.bias = bias.data();
    for (auto _ : state) {
        simdformer::runtime::gemm_f32_packed(m, n, kk, a.data(), kk, w.take(), c.data(), n, ep);
        benchmark::DoNotOptimize(c.data());
    }
    const double weight_bytes = double(k::packed_b_size(kk, n)) * sizeof(float);
    state.counters["GB/s"] = benchmark::Counter(weight_bytes, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * kk, benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
    (void)simdformer::set_threads(1);
}
BENCHMARK(BM_GemmSmallM)
    ->ArgsProduct({{1, 2, 3, 5, 8}, {768}, {768, 3072}, {1, 2}})
    ->ArgsProduct({{1, 2, 3, 5, 8}, {3072}, {768}, {1, 2}})
    ->ArgsProduct({{1, 2, 3, 5, 8}, {384}, {384, 1536}, {1, 2}})
    ->ArgsProduct({{1, 2, 3, 5, 8}, {1536}, {384}, {1, 2}})
    ->UseRealTime();

// The one-row GEMV of decoding steps, as Linear called it for a single row before the small-M
// GEMM (kept for comparison with BM_GemmSmallM/1/...).
void BM_Gemv(benchmark::State& state) {
    const size_t kk = state.range(0), n = state.range(1);
    RotatingWeights w(kk, n);
    const auto x = random_vector(kk), bias = random_vector(n);
    std::vector<float> y(n);
    k::Epilogue ep;
    ep.bias = bias.data();
    for (auto _ : state) {
        k::gemv_f32_packed(n, kk, x.data(), w.take(), y.data(), ep);
        benchmark::DoNotOptimize(y.data());
    }
    state.counters["GB/s"] = benchmark::Counter(double(k::packed_b_size(kk, n)) * sizeof(float),
                                                benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Gemv)->Args({768, 768})->Args({768, 3072})->Args({3072, 768})->Args({384, 384});

// The fork-join of the pool alone: an empty parallel_for over two tasks.
void BM_ForkJoin(benchmark::State& state) {
    if (!simdformer::set_threads(state.range(0)).is_ok()) {
        state.SkipWithError("set_threads failed");
        return;
    }
    std::atomic<size_t> sink{0};
    for (auto _ : state) {
        simdformer::runtime::parallel_for(2, [&](size_t b, size_t e) { sink.fetch_add(e - b, std::memory_order_relaxed); });
    }
    benchmark::DoNotOptimize(sink.load());
    (void)simdformer::set_threads(1);
}
BENCHMARK(BM_ForkJoin)->Arg(2)->UseRealTime();

// The cut-over set_threads measured (runtime/parallel_gemm.h): fork-join cost, the kernels'
// one-thread speed, and the multiply-adds below which a GEMM stays on one thread.
void BM_CutOver(benchmark::State& state) {
    if (!simdformer::set_threads(2).is_ok()) {
        state.SkipWithError("set_threads failed");
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(simdformer::runtime::parallel_min_macs());
    const auto cut = simdformer::runtime::measured_cut_over();
    state.counters["fork_join_us"] = cut.fork_join_seconds * 1e6;
    state.counters["f32_GMAC/s"] = cut.f32_macs_per_second * 1e-9;
    state.counters["i8_GMAC/s"] = cut.i8_macs_per_second * 1e-9;
    state.counters["f32_min_macs"] = cut.f32_min_macs;
    state.counters["i8_min_macs"] = cut.i8_min_macs;
    (void)simdformer::set_threads(1);
}
BENCHMARK(BM_CutOver)->Iterations(1);

void BM_Softmax(benchmark::State& state) {
    const size_t rows = 128, cols = state.range(0);
    auto x = random_vector(rows * cols);
    for (auto _ : state) {
        k::softmax_rows_f32(rows, cols, x.data(), cols);
        benchmark::DoNotOptimize(x.data());
    }
    state.SetItemsProcessed(state.iterations() * rows * cols);
}
BENCHMARK(BM_Softmax)->Arg(128)->Arg(512);

void BM_LayerNorm(benchmark::State& state) {
    const size_t rows = 128, d = state.range(0);
    const auto x = random_vector(rows * d), g = random_vector(d), b = random_vector(d);
    std::vector<float> y(rows * d);
    for (auto _ : state) {
        k::layernorm_rows_f32(rows, d, x.data(), d, g.data(), b.data(), 1e-5f, y.data(), d);
        benchmark::DoNotOptimize(y.data());
    }
    state.SetItemsProcessed(state.iterations() * rows * d);
}
BENCHMARK(BM_LayerNorm)->Arg(256)->Arg(768);

void BM_GeluErf(benchmark::State& state) {
    const auto x = random_vector(state.range(0));
    std::vector<float> y(x.size());
    for (auto _ : state) {
        k::activation_f32(k::Activation::kGeluErf, x.size(), x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
    }
    state.SetItemsProcessed(state.iterations() * x.size());
}
BENCHMARK(BM_GeluErf)->Arg(128 * 3072);

}  // namespace

BENCHMARK_MAIN();
