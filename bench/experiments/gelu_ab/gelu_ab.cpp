// Exact GELU before / after the erf of kernels/vector_math.h, in one process: the previous
// erf (xsimd::erf behind simd.h's clamp, as it was until this experiment) and the new one,
// timed in interleaved rounds (order alternated) over one FFN activation (128 x 3072 floats,
// values of a BERT FFN's pre-activation spread, N(0, 1.5)). Prints the median time per call of
// each and the ratio new / old; checks both against erf in double on the same data.
// Built and run natively and in wasm by bench/experiments/gelu_ab/run.sh.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "simdformer/kernels/vector_math.h"

namespace sk = simdformer::kernels::detail;
namespace simd = simdformer::simd;
using simd::kLanes;
using simd::vf32;

namespace {

#if SIMDFORMER_SIMD
// The exact GELU as it was before: xsimd's erf, with simd.h's clamp and NaN pass-through.
vf32 old_erf(vf32 x) {
    const auto nan = x != x;
    const vf32 c = xsimd::select(nan, vf32(0.0f), xsimd::min(xsimd::max(x, vf32(-16.0f)), vf32(16.0f)));
    return xsimd::select(nan, x, xsimd::erf(c));
}
#else
vf32 old_erf(vf32 x) { return std::erf(x.x); }
#endif
vf32 old_gelu(vf32 x) {
    const vf32 half(0.5f), one(1.0f), inv_sqrt2(0.70710678118654752f);
    return half * x * (one + old_erf(x * inv_sqrt2));
}

template <class F>
__attribute__((noinline)) void run(F f, const float* x, float* y, size_t n) {
    for (size_t i = 0; i < n; i += kLanes) simd::store(y + i, f(simd::load(x + i)));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 41;
    const size_t n = 128 * 3072;
    std::vector<float> x(n), y_old(n), y_new(n);
    std::mt19937 rng(29);
    std::normal_distribution<float> dist(0.0f, 1.5f);
    for (float& v : x) v = dist(rng);
    auto f_old = [](vf32 v) { return old_gelu(v); };
    auto f_new = [](vf32 v) { return sk::gelu_erf(v); };
    std::vector<double> t_old, t_new;
    const int reps = 4;
    for (int r = 0; r < rounds + 3; ++r) {
        for (int j = 0; j < 2; ++j) {
            const bool is_new = (j + r) % 2 == 1;
            const auto t0 = std::chrono::steady_clock::now();
            for (int k = 0; k < reps; ++k)
                is_new ? run(f_new, x.data(), y_new.data(), n) : run(f_old, x.data(), y_old.data(), n);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
            if (r >= 3) (is_new ? t_new : t_old).push_back(ms);  // 3 warm-up rounds
        }
    }
    double err_old = 0, err_new = 0;
    for (size_t i = 0; i < n; ++i) {
        const double want = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
        err_old = std::max(err_old, std::fabs(y_old[i] - want));
        err_new = std::max(err_new, std::fabs(y_new[i] - want));
    }
    const double mo = median(t_old), mn = median(t_new);
    std::printf("gelu_erf %s (%zu lanes), %zu floats, %d rounds: old %.3f ms, new %.3f ms, new/old %.3f; "
                "max |err| vs double: old %.3g, new %.3g\n",
                simd::arch_name(), kLanes, n, rounds, mo, mn, mn / mo, err_old, err_new);
}
