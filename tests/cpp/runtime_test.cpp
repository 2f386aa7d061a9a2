// The thread pool and the multi-threaded kernels: the static partition covers every task once,
// results are bit-identical for 1, 2 and 3 threads, nested and concurrent calls are safe, and
// the pool survives many calls and resizes. Builds without threads check the one-thread contract.
#include <atomic>
#include <thread>
#include <vector>

#include "simdformer/kernels/kernels.h"
#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/runtime/thread_pool.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

namespace k = kernels;
namespace rt = runtime;

// Restores one thread when a test ends, whatever it did.
struct ThreadsGuard {
    ~ThreadsGuard() { EXPECT_TRUE(rt::set_threads(1).is_ok()); }
};

#define SKIP_WITHOUT_THREADS() \
    if (!rt::threads_supported()) GTEST_SKIP() << "built with SIMDFORMER_THREADS=OFF"

TEST(StaticRange, CoversEveryTaskOnceInOrder) {
    for (size_t n_threads = 1; n_threads <= 9; ++n_threads) {
        for (size_t n : {0, 1, 2, 3, 7, 8, 96, 1000}) {
            size_t next = 0;
            for (size_t t = 0; t < n_threads; ++t) {
                const auto r = rt::static_range(n, t, n_threads);
                ASSERT_EQ(r.begin, next) << n << " tasks, thread " << t << " of " << n_threads;
                ASSERT_LE(r.begin, r.end);
                ASSERT_LE(r.end - r.begin, n / n_threads + 1);  // balanced within one task
                next = r.end;
            }
            ASSERT_EQ(next, n);
        }
    }
}

TEST(ThreadPool, SetThreadsValidatesItsArgument) {
    ThreadsGuard guard;
    EXPECT_EQ(rt::set_threads(0).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(rt::set_threads(rt::kMaxThreads + 1).code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(rt::set_threads(1).is_ok());
    EXPECT_EQ(rt::threads(), 1u);
    if (!rt::threads_supported()) {
        const Status s = rt::set_threads(2);
        EXPECT_EQ(s.code(), StatusCode::kUnsupported);
        EXPECT_NE(s.message().find("SIMDFORMER_THREADS"), std::string::npos) << s.message();
        EXPECT_EQ(rt::threads(), 1u);
    }
}

TEST(ThreadPool, ParallelForRunsEveryTaskExactlyOnce) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    for (size_t n_threads : {1, 2, 3, 4}) {
        ASSERT_TRUE(rt::set_threads(n_threads).is_ok());
        EXPECT_EQ(rt::threads(), n_threads);
        for (size_t n : {0, 1, 2, 5, 97}) {
            std::vector<std::atomic<int>> hits(n);
            std::atomic<int> calls{0};
            rt::parallel_for(n, [&](size_t b, size_t e) {
                ++calls;
                for (size_t i = b; i < e; ++i) ++hits[i];
            });
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "task " << i << " of " << n;
            EXPECT_LE(calls.load(), static_cast<int>(std::min(n, n_threads)));
        }
    }
}

TEST(ThreadPool, UsesSeveralThreadsAndNestedCallsRunInline) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(3).is_ok());
    std::vector<std::thread::id> ids(3);
    std::vector<int> inner(3 * 10, 0);
    rt::parallel_for(3, [&](size_t b, size_t e) {
        for (size_t t = b; t < e; ++t) {
            ids[t] = std::this_thread::get_id();
            EXPECT_EQ(rt::in_parallel_task(), true);
            // A nested parallel_for runs on this thread: plain writes are race-free.
            rt::parallel_for(10, [&](size_t b2, size_t e2) {
                for (size_t i = b2; i < e2; ++i) inner[t * 10 + i] += 1;
            });
        }
    });
    EXPECT_FALSE(rt::in_parallel_task());
    EXPECT_NE(ids[0], ids[1]);
    EXPECT_NE(ids[1], ids[2]);
    EXPECT_EQ(ids[0], std::this_thread::get_id());  // range 0 runs on the caller
    for (int x : inner) EXPECT_EQ(x, 1);
}

// C for one GEMM call with every epilogue part, at the given thread count.
std::vector<float> gemm_at(size_t n_threads, size_t m, size_t n, size_t kk) {
    EXPECT_TRUE(rt::set_threads(n_threads).is_ok());
    const auto a = random_vector(m * kk, 11);
    const auto b = random_vector(kk * n, 12);
    const auto bias = random_vector(n, 13);
    const auto residual = random_vector(m * n, 14);
    std::vector<float> packed(k::packed_b_size(kk, n)), c(m * (n + 3), -7.0f);
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    k::Epilogue ep;
    ep.bias = bias.data();
    ep.activation = k::Activation::kGeluErf;
    ep.residual = residual.data();
    ep.ld_residual = n;
    rt::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n + 3, ep);
    // The same call on one thread through the kernel directly is the reference.
    std::vector<float> want(c.size(), -7.0f);
    k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), want.data(), n + 3, ep);
    EXPECT_EQ(c, want) << m << "x" << n << "x" << kk << " on " << n_threads << " threads";
    return c;
}

TEST(ParallelGemm, BitIdenticalForOneTwoAndThreeThreads) {
    ThreadsGuard guard;
    const size_t n_threads_max = rt::threads_supported() ? 3 : 1;
    // Column split (many panels, odd width), row split (fewer panels than threads), below the
    // cut-over, and more rows than one packed A block.
    const size_t shapes[][3] = {{64, 203, 96}, {130, 8, 256}, {67, 12, 700}, {3, 5, 7}, {1, 768, 64}, {150, 64, 40}};
    for (const auto& s : shapes) {
        const auto one = gemm_at(1, s[0], s[1], s[2]);
        for (size_t t = 2; t <= n_threads_max; ++t) {
            const auto many = gemm_at(t, s[0], s[1], s[2]);
            ASSERT_EQ(one, many) << s[0] << "x" << s[1] << "x" << s[2] << " on " << t << " threads";
        }
    }
}

TEST(ParallelGemm, StressManyCallsAndResizes) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    const size_t m = 24, n = 72, kk = 200;
    const auto a = random_vector(m * kk, 21);
    const auto b = random_vector(kk * n, 22);
    std::vector<float> packed(k::packed_b_size(kk, n)), want(m * n), c(m * n);
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), want.data(), n);
    for (int round = 0; round < 60; ++round) {
        ASSERT_TRUE(rt::set_threads(1 + round % 4).is_ok());
        for (int call = 0; call < 20; ++call) {
            std::fill(c.begin(), c.end(), 0.0f);
            rt::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n);
            ASSERT_EQ(c, want) << "round " << round << " call " << call;
        }
    }
}

TEST(ParallelGemm, ConcurrentCallersShareThePoolSafely) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const size_t m = 16, n = 96, kk = 128;
    const auto a = random_vector(m * kk, 31);
    const auto b = random_vector(kk * n, 32);
    std::vector<float> packed(k::packed_b_size(kk, n)), want(m * n);
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), want.data(), n);
    // Two callers at once: one gets the pool, the other runs inline; both must be right.
    std::atomic<int> wrong{0};
    auto caller = [&] {
        std::vector<float> c(m * n);
        for (int i = 0; i < 200; ++i) {
            rt::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n);
            if (c != want) ++wrong;
        }
    };
    std::thread other(caller);
    caller();
    other.join();
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace simdformer::test
