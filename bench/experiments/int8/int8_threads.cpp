// The int8 GEMM's thread split (issue 29): one thread against two, and kernels::quantize_a_rows
// alone (the quantization a column split used to repeat in every thread), on MiniLM-L6's and
// BERT-base's shapes, interleaved rounds, medians. Natively the two-thread split also runs with
// each thread quantizing all of A for its columns (runtime::set_i8_quantize_once(false)); wasm
// builds have only the split that quantizes once, so compare two builds there: this program
// built with -DSF_BEFORE_QUANTIZE_ONCE against the library of 23e687f (before the change: no
// QuantizedA, every 2-thread time is the per-thread split) and as it is against today's, run
// alternately. A plain program, built by hand against
// the wasm-threads library (after `cmake --build --preset wasm-threads --target simdformer`), one
// command line from the repository's root:
//   NODE_PATH=/usr/share/nodejs em++ -O3 -DNDEBUG -DSIMDFORMER_SIMD=1 -fwasm-exceptions -flto
//     -fno-rtti -msimd128 -pthread -std=gnu++17 -Isrc bench/experiments/int8/int8_threads.cpp
//     build/wasm-threads/src/libsimdformer.a -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
//     -sWASM_ASYNC_COMPILATION=0 -sPTHREAD_POOL_SIZE=2 -sEXIT_RUNTIME=1 -sENVIRONMENT=node,worker
//     -o /tmp/int8_threads.js   then   node /tmp/int8_threads.js
// or natively (one line): g++ -O3 -DNDEBUG -DSIMDFORMER_SIMD=1 -DSIMDFORMER_THREADS=1 -std=gnu++17
//     -Isrc bench/experiments/int8/int8_threads.cpp build/native-release/src/libsimdformer.a
//     -pthread -o /tmp/int8_threads   then   /tmp/int8_threads
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "simdformer/kernels/kernels.h"
#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/runtime/thread_pool.h"

namespace k = simdformer::kernels;
namespace rt = simdformer::runtime;

namespace {
double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}
// 64-byte aligned storage of `bytes` inside `v`.
void* aligned_in(std::vector<uint8_t>& v, size_t bytes) {
    v.resize(bytes + 64);
    return v.data() + (64 - reinterpret_cast<uintptr_t>(v.data()) % 64) % 64;
}
}  // namespace

int main() {
    const size_t shapes[][3] = {{128, 384, 1536}, {128, 1536, 384}, {128, 768, 768}, {128, 768, 3072},
                                {23, 384, 1536},  {5, 384, 1536},   {1, 768, 768}};  // m, k, n
    if (!rt::set_threads(2).is_ok()) return 1;
    rt::set_parallel_min_macs(0);  // split every shape
    for (const auto& s : shapes) {
        const size_t m = s[0], kk = s[1], n = s[2];
        std::vector<float> a(m * kk), b(kk * n), c(m * n);
        for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 7919 % 1001) - 500) / 500;
        for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 104729 % 997) - 498) / 5000;
        std::vector<uint8_t> packed_memory, qa_memory;
        void* packed = aligned_in(packed_memory, k::packed_i8_size(kk, n));
        k::pack_i8(kk, n, b.data(), n, 1, packed);
#if !defined(SF_BEFORE_QUANTIZE_ONCE)
        const k::QuantizedA qa{k::I8Kernel::kPairs16, m, kk, aligned_in(qa_memory, k::quantized_a_bytes(k::I8Kernel::kPairs16, m, kk))};
#endif
        std::vector<double> one, quantize, once, per_thread;
        const int rounds = m >= 100 ? 21 : 101;
        for (int r = -3; r < rounds; ++r) {  // 3 warm-up rounds
            double t = now_us();
            k::gemm_qd8_qc8w(m, n, kk, a.data(), kk, packed, c.data(), n);  // one thread
            if (r >= 0) one.push_back(now_us() - t);
#if !defined(SF_BEFORE_QUANTIZE_ONCE)
            t = now_us();
            k::quantize_a_rows(qa, a.data(), kk, 0, m);
            if (r >= 0) quantize.push_back(now_us() - t);
#endif
            for (int variant = 0; variant < 2; ++variant) {  // order alternates by round
                const bool quantize_once = (r + variant) % 2 == 0;
#if !defined(SF_BEFORE_QUANTIZE_ONCE)
                rt::set_i8_quantize_once(quantize_once);  // ignored by wasm builds: always once
#endif
                t = now_us();
                rt::gemm_qd8_qc8w(m, n, kk, a.data(), kk, packed, c.data(), n);
                if (r >= 0) (quantize_once ? once : per_thread).push_back(now_us() - t);
            }
        }
        std::printf("%zux%zux%zu: 1 thread %.1f us; quantize A %.1f us (%.2f%%); 2 threads, A once %.1f us (x%.2f), "
                    "per thread %.1f us (x%.2f); once / per thread %.3f\n",
                    m, kk, n, median(one), median(quantize), 100 * median(quantize) / median(one), median(once),
                    median(one) / median(once), median(per_thread), median(one) / median(per_thread),
                    median(once) / median(per_thread));
    }
#if !defined(SF_BEFORE_QUANTIZE_ONCE)
    rt::set_i8_quantize_once(true);
#endif
    return rt::set_threads(1).is_ok() ? 0 : 1;
}
