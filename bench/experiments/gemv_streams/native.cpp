// This core's memory read ceiling natively, to set the wasm GEMV's rate against (BENCHMARKS.md
// "Session 26"): a sum over a buffer of MB megabytes (beyond the caches at 2048) with 128-bit
// loads and with AVX-512 loads when the CPU has them, without and with a prefetch 2 KB ahead, on
// one thread and on two (each half of the buffer). native.sh builds it with g++ -O2.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
template <bool kPrefetch>
float sum128(const float* b, size_t n) {
    __m128 s[8];
    for (auto& v : s) v = _mm_setzero_ps();
    for (size_t i = 0; i + 64 <= n; i += 64) {  // 256 bytes per step
        if (kPrefetch)
            for (int l = 0; l < 4; ++l) _mm_prefetch(reinterpret_cast<const char*>(b + i) + 2048 + 64 * l, _MM_HINT_T0);
        for (int j = 0; j < 16; ++j) s[j % 8] = _mm_add_ps(s[j % 8], _mm_loadu_ps(b + i + 4 * j));
    }
    float out = 0;
    for (auto& v : s) out += _mm_cvtss_f32(v);
    return out;
}

template <bool kPrefetch>
__attribute__((target("avx512f"))) float sum512(const float* b, size_t n) {
    __m512 w[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (size_t i = 0; i + 64 <= n; i += 64) {
        if (kPrefetch)
            for (int l = 0; l < 4; ++l) _mm_prefetch(reinterpret_cast<const char*>(b + i) + 2048 + 64 * l, _MM_HINT_T0);
        for (int j = 0; j < 4; ++j) w[j] = _mm512_add_ps(w[j], _mm512_loadu_ps(b + i + 16 * j));
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(w[0], w[1]), _mm512_add_ps(w[2], w[3])));
}

template <bool kWide, bool kPrefetch>
float sum(const float* b, size_t n) {
    return kWide ? sum512<kPrefetch>(b, n) : sum128<kPrefetch>(b, n);
}

template <bool kWide, bool kPrefetch>
void measure(const float* b, size_t n, const char* name) {
    volatile float sink = 0;
    for (int threads : {1, 2}) {
        std::vector<double> t;
        for (int r = 0; r < 7; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            if (threads == 1) {
                sink = sum<kWide, kPrefetch>(b, n);
            } else {
                std::thread other([&] { sink = sum<kWide, kPrefetch>(b + n / 2, n / 2); });
                sink = sum<kWide, kPrefetch>(b, n / 2);
                other.join();
            }
            t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        std::printf("%-28s %d thread(s): %5.1f GB/s\n", name, threads, double(n) * 4 / t[3] / 1e9);
    }
}
}  // namespace

int main(int argc, char** argv) {
    const size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2048;
    const size_t n = mb * (1u << 20) / sizeof(float);
    auto* b = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float) + 4096));
    if (!b) return 1;
    for (size_t i = 0; i < n + 1024; ++i) b[i] = float(i % 7) * 0.01f;
    std::printf("%zu MB\n", mb);
    measure<false, false>(b, n, "128-bit loads");
    measure<false, true>(b, n, "128-bit loads, prefetch");
    if (__builtin_cpu_supports("avx512f")) {
        measure<true, false>(b, n, "512-bit loads");
        measure<true, true>(b, n, "512-bit loads, prefetch");
    }
    std::free(b);
}
