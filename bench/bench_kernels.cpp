// Native Google Benchmark of the kernels on the shapes of the wasm benchmark (for comparing the
// SIMD code generation natively; the headline numbers are the wasm ones from bench.mjs).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "simdformer/kernels/kernels.h"
#include "simdformer/runtime/parallel_gemm.h"
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
BENCHMARK(BM_GemmPacked)->Args({128, 768, 768})->Args({128, 768, 3072})->Args({128, 3072, 768})->Args({64, 256, 1024});

// The thread pool's GEMM at 1 and 2 threads (wall time): the speed-up on the model's shapes and
// the cut-over below which one thread is faster (runtime::kParallelMinMacs).
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
