// The thread pool and the multi-threaded kernels: the static partition covers every task once,
// results are bit-identical for 1, 2 and 3 threads (GEMMs and whole models: encoder, decoder with
// generate(), a Hugging Face BERT), nested and concurrent calls are safe, and the pool survives
// many calls and resizes. Builds without threads check the one-thread contract.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "simdformer/kernels/kernels.h"
#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/runtime/thread_pool.h"
#include "simdformer/runtime/worker_judge.h"
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
    std::atomic<int> started{0};
    rt::parallel_for(3, [&](size_t b, size_t e) {
        for (size_t t = b; t < e; ++t) {
            ids[t] = std::this_thread::get_id();
            ++started;
            // Every range waits until all three have started, so no thread can run a second range
            // before each has a thread of its own: three distinct threads must run them (a late
            // worker's range may be taken by any free thread, range 0 included, so which thread
            // runs which range is not fixed).
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (started.load() < 3 && std::chrono::steady_clock::now() < deadline)
                std::this_thread::yield();
            EXPECT_EQ(rt::in_parallel_task(), true);
            // A nested parallel_for runs on this thread: plain writes are race-free.
            rt::parallel_for(10, [&](size_t b2, size_t e2) {
                for (size_t i = b2; i < e2; ++i) inner[t * 10 + i] += 1;
            });
        }
    });
    EXPECT_EQ(started.load(), 3);
    EXPECT_FALSE(rt::in_parallel_task());
    EXPECT_NE(ids[0], ids[1]);
    EXPECT_NE(ids[0], ids[2]);
    EXPECT_NE(ids[1], ids[2]);
    for (int x : inner) EXPECT_EQ(x, 1);
}

TEST(RangeClaims, EachRangeOfAJobIsClaimedOnceAndOlderJobsClaimNothing) {
    rt::RangeClaims claims;
    for (uint64_t job = 1; job <= 3; ++job) {
        for (size_t u = 0; u < 4; ++u) {
            EXPECT_FALSE(claims.claim(u, job + 1)) << "a job that has not been posted yet";
            EXPECT_TRUE(claims.claim(u, job)) << "range " << u << " of job " << job;
            EXPECT_FALSE(claims.claim(u, job)) << "claimed twice";
            if (job > 1) EXPECT_FALSE(claims.claim(u, job - 1)) << "a worker still on the last job";
        }
    }
    // A worker that slept through two jobs and wakes holding the first one's number claims nothing.
    EXPECT_FALSE(claims.claim(0, 1));
    EXPECT_TRUE(claims.claim(0, 4));
}

TEST(RangeClaims, ConcurrentClaimersGetEachRangeExactlyOnce) {
    SKIP_WITHOUT_THREADS();
    constexpr size_t kRanges = 8, kJobs = 2000, kThreads = 3;
    rt::RangeClaims claims;
    std::vector<std::atomic<int>> wins(kRanges * kJobs);
    std::atomic<uint64_t> job{1};
    std::atomic<size_t> finished{0};
    auto claimer = [&](size_t first) {
        for (uint64_t g = 1; g <= kJobs; ++g) {
            while (job.load() < g) std::this_thread::yield();
            for (size_t i = 0; i < kRanges; ++i) {
                const size_t u = (first + i) % kRanges;
                if (claims.claim(u, g) && ++wins[(g - 1) * kRanges + u] == 1 &&
                    finished.fetch_add(1) + 1 == g * kRanges)
                    job.store(g + 1);  // every range of job g claimed: post the next
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) threads.emplace_back(claimer, t * 2);
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < wins.size(); ++i) ASSERT_EQ(wins[i].load(), 1) << "job " << i / kRanges + 1 << " range " << i % kRanges;
}

// A PoolLease holds the pool (its job scratch) for one caller: empty on one thread, inside a task
// and while another caller holds it; that caller's parallel_for calls still work (inline).
// A worker that finishes its part of a job and looks for more while the caller is already posting
// the next job (more threads than cores make that interleaving common) must not take a part of
// the new job under the old one: that part would run twice and the job's count of unfinished
// tasks would never reach zero again (the join would hang; session 19 found exactly that in a
// chunked pool). Back-to-back jobs whose task counts change every time, each task counted.
TEST(ThreadPool, BackToBackJobsOfChangingSizesRunEachTaskOnce) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    for (size_t n_threads : {2, 3, 5}) {
        ASSERT_TRUE(rt::set_threads(n_threads).is_ok());
        std::vector<std::atomic<uint32_t>> hits(64);
#if defined(__EMSCRIPTEN__)
        const uint32_t jobs = 3000;  // wasm's threads join tens of times slower with more threads than cores
#else
        const uint32_t jobs = 20000;
#endif
        for (uint32_t job = 1; job <= jobs; ++job) {
            const size_t n = 1 + (job * 2654435761u >> 26);  // 1..64, changing every job
            rt::parallel_for(n, [&](size_t b, size_t e) {
                for (size_t i = b; i < e; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
            });
            for (size_t i = 0; i < n; ++i) {
                const uint32_t h = hits[i].exchange(0, std::memory_order_relaxed);
                ASSERT_EQ(h, 1u) << "task " << i << " of job " << job << " (" << n << " tasks, "
                                 << n_threads << " threads)";
            }
        }
    }
}

// ---- WorkerJudge: when the workers stop helping (another process has their core) -------------
constexpr int64_t kMs = 1'000'000;

// A made-up machine for the judge: a job takes parallel_ns with the threads (which the caller
// alone would have run in estimate_ns at its pace in that job) or alone_ns on the caller alone,
// then gap_ns pass before the next (the work between jobs). Every job does 1e6 multiply-adds.
struct Machine {
    int64_t parallel_ns, estimate_ns, alone_ns, gap_ns = 100'000;
};

// Runs `jobs` jobs on `m` from *now; returns how many ran alone.
int feed(rt::WorkerJudge& judge, int64_t* now, int jobs, const Machine& m) {
    int alone = 0;
    for (int i = 0; i < jobs; ++i) {
        const int64_t start = *now;
        if (judge.alone()) {
            ++alone;
            *now += m.alone_ns;
            judge.job(start, *now, 1e6, 0);
        } else {
            *now += m.parallel_ns;
            judge.job(start, *now, 1e6, m.estimate_ns);
        }
        *now += m.gap_ns;
    }
    return alone;
}

// Idle 2 cores: jobs at 0.55 of their one-thread time.
const Machine kIdle{300'000, 550'000, 550'000};
// One core busy: the jobs still look a little faster with the threads (0.9 of the caller's
// pace), but between jobs the caller loses its core to the busy process and the third thread:
// with the threads each job and gap take longer than alone.
const Machine kBusy{900'000, 1'000'000, 800'000, 400'000};

TEST(WorkerJudge, OnAnIdleMachineNothingIsEverTriedAlone) {
    rt::WorkerJudge judge;
    int64_t now = 0;
    EXPECT_EQ(feed(judge, &now, 20000, kIdle), 0);
    // Tiny jobs near the cut-over, 2 threads barely faster, are not suspicious either.
    EXPECT_EQ(feed(judge, &now, 20000, Machine{20'000, 30'000, 30'000, 5'000}), 0);
    // Jobs without a work count are not judged at all.
    rt::WorkerJudge blind;
    for (int i = 0; i < 1000; ++i) blind.job(i * kMs, i * kMs + kMs / 2, 0, kMs / 4);
    EXPECT_FALSE(blind.alone());
}

TEST(WorkerJudge, UnderLoadItRunsAloneAndRechecksLessAndLessOften) {
    rt::WorkerJudge judge;
    int64_t now = 0;
    // One window with the threads (16 ms), one alone that wins, then stretches alone of 64, 128,
    // 256, ... ms, each followed by one window (16 jobs, 16 ms+) with the threads.
    const int jobs = 20000;
    const int alone = feed(judge, &now, jobs, kBusy);
    EXPECT_GT(alone, jobs * 95 / 100) << "alone " << alone << " of " << jobs;
    EXPECT_TRUE(judge.alone());
    // The load goes away: at the next recheck the threads win and stay.
    const int64_t t0 = now;
    while (judge.alone() && now - t0 < 2 * rt::WorkerJudge::kMaxStretchNs) feed(judge, &now, 1, kIdle);
    EXPECT_FALSE(judge.alone()) << "still alone " << (now - t0) / kMs << " ms after the load went";
    EXPECT_LE(now - t0, rt::WorkerJudge::kMaxStretchNs + 100 * kMs);
    EXPECT_EQ(feed(judge, &now, 20000, kIdle), 0);
}

TEST(WorkerJudge, SuspiciousJobsThatStillWinKeepTheThreads) {
    rt::WorkerJudge judge;
    int64_t now = 0;
    // The threads' jobs at 0.9 of the caller's estimate (suspicious) but alone is slower: each
    // exploration costs one window alone, and they come further and further apart.
    const Machine kSlowAlone{900'000, 1'000'000, 1'000'000, 100'000};
    const int jobs = 20000;
    const int alone = feed(judge, &now, jobs, kSlowAlone);
    EXPECT_GT(alone, 0);
    EXPECT_LT(alone, jobs * 3 / 100) << "alone " << alone << " of " << jobs;
}

TEST(WorkerJudge, APauseBetweenJobsIsNobodysThroughput) {
    rt::WorkerJudge judge;
    int64_t now = 0;
    // Into the window alone that will decide ...
    for (int i = 0; i < 100 && !judge.alone(); ++i) feed(judge, &now, 1, kBusy);
    ASSERT_TRUE(judge.alone());
    EXPECT_EQ(feed(judge, &now, 5, kBusy), 5);
    now += 2'000 * kMs;  // ... the page does nothing for 2 s ...
    // ... and the window starts again after it: alone still wins and stays for a stretch (the
    // window's 16 jobs, then 64 ms of 1.2 ms jobs), where counting the pause would have made it
    // lose at once.
    EXPECT_EQ(feed(judge, &now, 60, kBusy), 60);
}

#if !defined(__EMSCRIPTEN__)
TEST(ThreadPool, AWorkerThatStallsEveryJobIsLeftOutThenTriedAgain) {
    // A worker that takes 4 ms for a range the caller runs in 0.4 ms (as one descheduled by the
    // scheduler would): the pool must notice within a window and run jobs on the caller alone,
    // each task still exactly once, and later give the worker another chance. (The caller's
    // range is long enough for a sleeping worker to wake and claim its own.)
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const std::thread::id caller = std::this_thread::get_id();
    std::vector<std::atomic<uint32_t>> hits(8);
    std::vector<bool> worker_ran_in;  // per job
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int job = 0; std::chrono::steady_clock::now() < deadline; ++job) {
        std::atomic<bool> worker_ran{false};
        rt::parallel_for(8, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) {
                if (std::this_thread::get_id() != caller) {
                    worker_ran = true;
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                } else {
                    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
                    while (std::chrono::steady_clock::now() < until) {}
                }
                hits[i].fetch_add(1, std::memory_order_relaxed);
            }
        }, 1e6);
        for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].exchange(0), 1u) << "job " << job;
        worker_ran_in.push_back(worker_ran);
        if (worker_ran_in.size() > 300 && worker_ran) break;
    }
    // The first stretch of at least 12 jobs in a row on the caller alone (the window alone and
    // the 64 ms stretch after it: 100 jobs of 0.8 ms; a late worker's range taken by the caller
    // makes one such job, and on a loaded machine a few in a row): it starts within a few windows
    // of 16 jobs and the worker runs again after it.
    size_t run = 0, stretch_end = 0;
    for (size_t j = 0; j < worker_ran_in.size() && !stretch_end; ++j) {
        run = worker_ran_in[j] ? 0 : run + 1;
        if (run == 12) stretch_end = j;
    }
    ASSERT_GT(stretch_end, 0u) << "never ran alone in " << worker_ran_in.size() << " jobs";
    const size_t stretch_begin = stretch_end - 11;
    EXPECT_LE(stretch_begin, 64u);
    bool tried_again = false;
    for (size_t j = stretch_end; j < worker_ran_in.size(); ++j) tried_again = tried_again || worker_ran_in[j];
    EXPECT_TRUE(tried_again) << "the worker was never tried again";
}
#endif

TEST(ThreadPool, ALeaseHoldsThePoolAndItsScratchForOneCaller) {
    ThreadsGuard guard;
    {
        rt::PoolLease one_thread;
        EXPECT_FALSE(one_thread);
    }
    SKIP_WITHOUT_THREADS();
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    rt::PoolLease lease;
    ASSERT_TRUE(lease);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(lease.scratch()) % 64, 0u);
    lease.scratch()[rt::kJobScratchBytes - 1] = 1;  // all of it is ours (ASan checks)
    bool other_got_it = true;
    size_t other_sum = 0;
    std::thread other([&] {
        rt::PoolLease second;
        other_got_it = bool(second);
        rt::parallel_for(10, [&](size_t b, size_t e) { other_sum += e - b; });  // inline
    });
    other.join();
    EXPECT_FALSE(other_got_it);
    EXPECT_EQ(other_sum, 10u);
    std::atomic<int> nested{0};
    lease.run(2, [&](size_t, size_t) {
        rt::PoolLease inside;
        if (inside) ++nested;
    });
    EXPECT_EQ(nested.load(), 0);
}

// Every unit of a SharedPhase runs once, and no task goes on before all have finished.
TEST(ThreadPool, ASharedPhaseRunsEachUnitOnceBeforeAnyTaskGoesOn) {
    ThreadsGuard guard;
    for (size_t n_threads = 1; n_threads <= (rt::threads_supported() ? 3u : 1u); ++n_threads) {
        ASSERT_TRUE(rt::set_threads(n_threads).is_ok());
        for (int round = 0; round < 50; ++round) {
            const size_t units = size_t(round % 7);  // 0 .. 6: fewer and more units than threads
            std::vector<std::atomic<int>> runs(units);
            std::atomic<int> early{0};
            rt::SharedPhase phase(units);
            rt::parallel_for(n_threads, [&](size_t, size_t) {
                phase.run([&](size_t u) { ++runs[u]; });
                for (auto& r : runs)
                    if (r.load() != 1) ++early;
            });
            for (size_t u = 0; u < units; ++u) ASSERT_EQ(runs[u].load(), 1) << "unit " << u;
            ASSERT_EQ(early.load(), 0);
        }
    }
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
    // Column split (many panels, odd width), a C narrower than a panel per thread (one thread), more rows
    // than one packed A block, and the few-row shapes of short texts and decoding steps (1, 3
    // and 5 rows: GEMV shares, 2 x 2 and 1 x 4 panel tiles cut at a thread's first panel). Each
    // shape split whatever its size (cut-over 0) and with the measured cut-over.
    const size_t shapes[][3] = {{64, 203, 96}, {130, 8, 256}, {67, 12, 700}, {3, 5, 7},   {1, 768, 64},
                                {150, 64, 40}, {1, 203, 96}, {3, 203, 96}, {5, 203, 96}, {5, 77, 1030}};
    for (double cut_over : {0.0, -1.0}) {
        const double saved = rt::set_parallel_min_macs(cut_over);
        for (const auto& s : shapes) {
            const auto one = gemm_at(1, s[0], s[1], s[2]);
            for (size_t t = 2; t <= n_threads_max; ++t) {
                const auto many = gemm_at(t, s[0], s[1], s[2]);
                ASSERT_EQ(one, many) << s[0] << "x" << s[1] << "x" << s[2] << " on " << t << " threads";
            }
        }
        rt::set_parallel_min_macs(saved);
    }
}

// An int8 GEMM's operands, packed, with every epilogue part (pointing into its own vectors).
struct Int8Case {
    size_t m, n, kk;
    std::vector<float> a, b, bias, residual;
    std::vector<uint8_t> packed;
    void* p;
    k::Epilogue ep;

    Int8Case(size_t m_, size_t n_, size_t kk_)
        : m(m_), n(n_), kk(kk_), a(random_vector(m * kk, 21)), b(random_vector(kk * n, 22)), bias(random_vector(n, 23)),
          residual(random_vector(m * n, 24)), packed(k::packed_i8_size(kk, n) + 64) {
        p = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;  // 64-aligned
        k::pack_i8(kk, n, b.data(), n, 1, p);
        ep.bias = bias.data();
        ep.activation = k::Activation::kGeluErf;
        ep.residual = residual.data();
        ep.ld_residual = n;
    }
    std::vector<float> one_thread() const {
        std::vector<float> c(m * n);
        k::gemm_qd8_qc8w(m, n, kk, a.data(), kk, p, c.data(), n, ep);
        return c;
    }
    std::vector<float> pooled() const {
        std::vector<float> c(m * n, -7.0f);
        rt::gemm_qd8_qc8w(m, n, kk, a.data(), kk, p, c.data(), n, ep);
        return c;
    }
};

// The k-loops a build has: design (b), and the quad ones (portable: 7-bit, unsigned and signed
// 8-bit bytes) where SIMD is built.
std::vector<k::I8Kernel> int8_kernels() {
    std::vector<k::I8Kernel> all = {k::I8Kernel::kPairs16};
    for (const k::I8Kernel quads :
         {k::I8Kernel::kQuads7Portable, k::I8Kernel::kQuadsU8Portable, k::I8Kernel::kQuadsS8Portable})
        if (k::set_i8_kernel(quads)) all.push_back(quads);
    k::set_i8_kernel(k::I8Kernel::kPairs16);
    return all;
}

TEST(ParallelGemm, Int8BitIdenticalForOneTwoAndThreeThreads) {
    ThreadsGuard guard;
    const size_t n_threads_max = rt::threads_supported() ? 3 : 1;
    // Column split (1, 3, 5 and 64 rows over many panels, cut inside the last panel; more rows
    // than one block of 64, k over several blocks of 1024 and odd), a C narrower than a panel
    // per thread (one thread); every shape split whatever
    // its size (cut-over 0), with A quantized once for all threads and by each thread, under each
    // k-loop.
    const double saved = rt::set_parallel_min_macs(0);
    const size_t shapes[][3] = {{64, 203, 96}, {37, 12, 300}, {1, 768, 64}, {9, 5, 7},    {1, 203, 96},
                                {3, 203, 96},  {5, 203, 1030}, {70, 41, 2051}, {6, 40, 0}};
    std::vector<Int8Case> cases;
    cases.reserve(std::size(shapes));  // never moved: a case points into its own vectors
    for (const auto& s : shapes) cases.emplace_back(s[0], s[1], s[2]);
    const std::vector<k::I8Kernel> kernels = int8_kernels();
    std::vector<std::vector<float>> want;  // [kernel][case] on one thread through the kernel
    for (const k::I8Kernel kernel : kernels) {
        ASSERT_TRUE(k::set_i8_kernel(kernel));
        for (const Int8Case& g : cases) want.push_back(g.one_thread());
    }
    for (size_t t = 1; t <= n_threads_max; ++t) {  // few pool starts: each measures the machine
        ASSERT_TRUE(rt::set_threads(t).is_ok());
        for (size_t ki = 0; ki < kernels.size(); ++ki) {
            ASSERT_TRUE(k::set_i8_kernel(kernels[ki]));
            for (size_t ci = 0; ci < cases.size(); ++ci) {
                const Int8Case& g = cases[ci];
                for (const bool once : {true, false}) {
                    const bool before = rt::set_i8_quantize_once(once);
                    ASSERT_EQ(g.pooled(), want[ki * cases.size() + ci])
                        << g.m << "x" << g.n << "x" << g.kk << " on " << t << " threads, A quantized "
                        << (once ? "once" : "per thread") << ", k-loop " << int(kernels[ki]);
                    rt::set_i8_quantize_once(before);
                }
            }
        }
    }
    k::set_i8_kernel(k::I8Kernel::kPairs16);
    rt::set_parallel_min_macs(saved);
}

// More rows than the pool's job scratch holds quantized (k = 3072: 170 rows of 6 KiB per MiB):
// the column split quantizes and computes A in chunks of rows, the same bits.
TEST(ParallelGemm, Int8ChunksOfRowsBeyondTheJobScratch) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    const size_t kk = 3072;
    const size_t row_bytes = k::quantized_a_row_bytes(k::I8Kernel::kPairs16, kk);
    ASSERT_LT(rt::kJobScratchBytes / row_bytes, size_t(200));
    const Int8Case g(2 * rt::kJobScratchBytes / row_bytes + 5, 24, kk);
    const std::vector<k::I8Kernel> kernels = int8_kernels();
    std::vector<std::vector<float>> want;
    for (const k::I8Kernel kernel : kernels) {
        ASSERT_TRUE(k::set_i8_kernel(kernel));
        want.push_back(g.one_thread());
    }
    for (size_t t : {2, 3}) {
        ASSERT_TRUE(rt::set_threads(t).is_ok());
        for (size_t ki = 0; ki < kernels.size(); ++ki) {
            ASSERT_TRUE(k::set_i8_kernel(kernels[ki]));
            ASSERT_EQ(g.pooled(), want[ki]) << g.m << " rows on " << t << " threads, k-loop " << int(kernels[ki]);
        }
    }
    k::set_i8_kernel(k::I8Kernel::kPairs16);
}

// The rows of a QuantizedA may be quantized in any ranges by any threads: the kernel's columns
// from it equal gemm_qd8_qc8w_cols's, for any column range starting on a panel.
TEST(ParallelGemm, Int8QuantizedAMatchesTheColumnKernel) {
    for (const k::I8Kernel kernel : int8_kernels()) {
        ASSERT_TRUE(k::set_i8_kernel(kernel));
        const Int8Case g(13, 35, 1500);
        std::vector<uint8_t> memory(k::quantized_a_bytes(kernel, g.m, g.kk) + 64);
        ASSERT_LE(k::quantized_a_bytes(kernel, g.m, g.kk), 64 + g.m * k::quantized_a_row_bytes(kernel, g.kk));
        void* data = memory.data() + (64 - reinterpret_cast<uintptr_t>(memory.data()) % 64) % 64;
        const k::QuantizedA qa{kernel, g.m, g.kk, data};
        for (const size_t cut : {size_t(0), size_t(3), size_t(8), size_t(13)}) {  // two ranges of rows, any cut
            std::fill(memory.begin(), memory.end(), uint8_t(0xA5));
            k::quantize_a_rows(qa, g.a.data(), g.kk, cut, g.m);
            k::quantize_a_rows(qa, g.a.data(), g.kk, 0, cut);
            for (const size_t col0 : {size_t(0), size_t(8), size_t(32)}) {
                std::vector<float> want(g.m * g.n, 3.0f), got(g.m * g.n, 3.0f);
                k::gemm_qd8_qc8w_cols(g.m, g.n, g.kk, g.a.data(), g.kk, g.p, col0, g.n, want.data(), g.n, g.ep);
                k::gemm_qd8_qc8w_quantized_cols(qa, g.n, g.p, col0, g.n, got.data(), g.n, g.ep);
                ASSERT_EQ(got, want) << "rows cut at " << cut << ", columns from " << col0 << ", k-loop " << int(kernel);
            }
        }
    }
    k::set_i8_kernel(k::I8Kernel::kPairs16);
}

TEST(ParallelGemm, CutOverIsMeasuredWhenThePoolStarts) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const rt::CutOver cut = rt::measured_cut_over();
    EXPECT_GT(cut.fork_join_seconds, 0.0);
    EXPECT_LT(cut.fork_join_seconds, 0.1);
    EXPECT_GT(cut.f32_macs_per_second, 1e6);
    EXPECT_GT(cut.i8_macs_per_second, 1e6);
    EXPECT_DOUBLE_EQ(cut.f32_min_macs, rt::cut_over_macs(cut.fork_join_seconds, cut.f32_macs_per_second));
    EXPECT_DOUBLE_EQ(cut.i8_min_macs, rt::cut_over_macs(cut.fork_join_seconds, cut.i8_macs_per_second));
    EXPECT_GE(cut.fork_join_measurements, 1);
    EXPECT_LE(cut.fork_join_measurements, 1 + rt::kForkJoinRetries);
    EXPECT_DOUBLE_EQ(rt::parallel_min_macs(), cut.f32_min_macs);  // no override set
    const double saved = rt::set_parallel_min_macs(123);
    EXPECT_LT(saved, 0.0);
    EXPECT_EQ(rt::parallel_min_macs(), 123.0);
    rt::set_parallel_min_macs(saved);
}

// A fork-join of 5 ms is what a pool measures while another process has the cores: taken as it
// is, it would keep every GEMM below 3 * 5 ms of work (hundreds of millions of multiply-adds) on
// one thread for the pool's life. The cut-over stays at most 2^24 multiply-adds whatever was
// measured.
TEST(ParallelGemm, ABusyForkJoinMeasurementDoesNotKeepGemmsOnOneThread) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const double measured = rt::measured_cut_over().fork_join_seconds;
    rt::calibrate_parallel_cut_over(5e-3);  // a fake measurement, as a busy machine gives
    const rt::CutOver busy = rt::measured_cut_over();
    EXPECT_LE(busy.f32_min_macs, double(1 << 24));
    EXPECT_LE(busy.i8_min_macs, double(1 << 24));
    EXPECT_LE(rt::parallel_min_macs(), double(1 << 24));
    rt::calibrate_parallel_cut_over(measured);  // the pool's own measurement again
}

TEST(ParallelGemm, CutOverIsClampedToASaneRange) {
    EXPECT_EQ(rt::cut_over_macs(1e-5, 1e10), rt::kPayback * 1e-5 * 1e10);  // healthy: as measured
    EXPECT_EQ(rt::cut_over_macs(5e-3, 1e10), rt::kMaxCutOverMacs);          // a busy machine's F
    EXPECT_EQ(rt::cut_over_macs(1.0, 1e12), rt::kMaxCutOverMacs);
    EXPECT_EQ(rt::cut_over_macs(1e-9, 1e9), rt::kMinCutOverMacs);           // timer noise
    for (double nonsense : {0.0, -1e-5, std::nan(""), std::numeric_limits<double>::infinity()}) {
        EXPECT_EQ(rt::cut_over_macs(nonsense, 1e10), rt::kParallelMinMacs) << nonsense;
    }
    EXPECT_EQ(rt::cut_over_macs(1e-5, std::numeric_limits<double>::infinity()), rt::kParallelMinMacs);
}

// Fake fork-join measurements (injected as the pool's measure_again): a busy first one is taken
// again, the smallest kept; a healthy first one is never taken again; one that stays wrong is
// retried kForkJoinRetries times, then clamped.
TEST(ParallelGemm, AForkJoinThatLooksWrongIsMeasuredAgain) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const double measured = rt::measured_cut_over().fork_join_seconds;
    std::vector<double> fakes;
    int calls = 0;
    auto again = [&] { return fakes[std::min<size_t>(calls++, fakes.size() - 1)]; };

    // "Busy" is relative to this build's kernel speed (an ASan build's GEMM is many times slower,
    // so 5 ms of fork-join can still give a sane cut-over there): 10x past the largest cut-over.
    const double busy = 10 * rt::kMaxCutOverMacs / (rt::kPayback * rt::measured_cut_over().f32_macs_per_second);
    fakes = {busy, 8e-6};
    rt::calibrate_parallel_cut_over(busy, again);
    rt::CutOver cut = rt::measured_cut_over();
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(cut.fork_join_measurements, 3);
    EXPECT_EQ(cut.fork_join_seconds, 8e-6);
    EXPECT_EQ(cut.f32_min_macs, rt::cut_over_macs(8e-6, cut.f32_macs_per_second));
    EXPECT_EQ(rt::parallel_min_macs(), cut.f32_min_macs);

    calls = 0;
    rt::calibrate_parallel_cut_over(1e-5, again);
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(rt::measured_cut_over().fork_join_measurements, 1);

    calls = 0;
    fakes = {1.0};
    rt::calibrate_parallel_cut_over(1.0, again);
    cut = rt::measured_cut_over();
    EXPECT_EQ(calls, rt::kForkJoinRetries);
    EXPECT_EQ(cut.f32_min_macs, rt::kMaxCutOverMacs);
    EXPECT_EQ(cut.i8_min_macs, rt::kMaxCutOverMacs);

    calls = 0;
    fakes = {std::nan(""), 2e-5};
    rt::calibrate_parallel_cut_over(std::nan(""), again);  // no measurement at first
    EXPECT_EQ(rt::measured_cut_over().fork_join_seconds, 2e-5);
    rt::calibrate_parallel_cut_over(measured);  // the pool's own measurement again
}

#if !defined(__EMSCRIPTEN__)  // clock() there does not count the workers' time
TEST(ThreadPool, IdleWorkersStopSpinning) {
    // Workers spin for up to a millisecond after a job, then sleep: 200 ms after the last job
    // the process must use next to no CPU (a spinning worker would use all 200 ms).
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(3).is_ok());
    for (int i = 0; i < 100; ++i) rt::parallel_for(3, [](size_t, size_t) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin window
    const std::clock_t c0 = std::clock();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double cpu_ms = 1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC;
    EXPECT_LT(cpu_ms, 20.0);
}
#endif

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

// The same with int8 GEMMs: the caller holding the pool quantizes A into its job scratch, the
// other quantizes per thread on its own memory; neither sees the other's rows.
TEST(ParallelGemm, ConcurrentInt8CallersKeepTheirOwnQuantizedRows) {
    SKIP_WITHOUT_THREADS();
    ThreadsGuard guard;
    ASSERT_TRUE(rt::set_threads(2).is_ok());
    const double saved = rt::set_parallel_min_macs(0);
    const Int8Case g1(40, 96, 300);
    Int8Case g3(40, 96, 300);
    for (float& x : g3.a) x = -2.0f * x;  // other rows, other results
    const auto want1 = g1.one_thread(), want3 = g3.one_thread();
    ASSERT_NE(want1, want3);
    std::atomic<int> wrong{0};
    auto caller = [&](const Int8Case& g, const std::vector<float>& want) {
        for (int i = 0; i < 200; ++i)
            if (g.pooled() != want) ++wrong;
    };
    std::thread other(caller, std::cref(g3), std::cref(want3));
    caller(g1, want1);
    other.join();
    EXPECT_EQ(wrong.load(), 0);
    rt::set_parallel_min_macs(saved);
}

// ---- whole models ------------------------------------------------------------------------------

// Every float a forward pass or generate() hands back, for bit-for-bit comparisons.
void append(std::vector<float>& out, const float* p, size_t n) {
    if (p) out.insert(out.end(), p, p + n);
}
void append_maps(std::vector<float>& out, const std::vector<AttentionMap>& maps) {
    for (const AttentionMap& m : maps) append(out, m.data, m.n_batch * m.nhead * m.n_seq_q * m.n_seq_k);
}

std::vector<float> torch_encoder_outputs() {
    const Model m = load_case("encoder");
    const Golden g = load_golden("encoder.golden.safetensors");
    const auto pad = g.mask("key_padding");
    auto ws = m.make_workspace({3, 7, 0, true});  // after set_threads: one scratch copy per thread
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    ForwardRequest r;
    r.n_batch = 3;
    r.src.n_seq = 7;
    r.src.embeddings = g.at("x").data();
    r.src.key_padding = pad.data();
    r.need_weights = true;
    SF_EXPECT_OK(m.forward(r, ws.value()));
    std::vector<float> out;
    append(out, ws.value().output(), ws.value().output_rows() * 12);
    append_maps(out, ws.value().encoder_attention());
    EXPECT_LT(max_abs_diff(ws.value().output(), g.at("out").data(), 3 * 7 * 12), 1e-4);  // still right
    return out;
}

std::vector<float> seq2seq_generate_outputs() {
    const Model m = load_case("seq2seq");
    const Golden g = load_golden("seq2seq.golden.safetensors");
    const auto src = g.tokens("src");
    const auto pad = g.mask("src_key_padding");
    auto ws = m.make_workspace({2, 6, 16, true});
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    GenerateRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.max_length = 8;
    r.need_weights = true;
    SF_EXPECT_OK(m.generate(r, ws.value()));
    const Workspace& w = ws.value();
    std::vector<float> out;
    for (size_t i = 0; i < 2 * w.generated_length(); ++i) out.push_back(float(w.generated()[i]));
    EXPECT_EQ(out.size(), g.tokens("generated").size());
    append(out, w.logits(), 2 * (w.generated_length() - 1) * 11);
    append_maps(out, w.decoder_self_attention());
    append_maps(out, w.decoder_cross_attention());
    return out;
}

// weights: f32 (the golden logits are checked) or int8 (quantized as they load; row-split GEMMs).
std::vector<float> hf_bert_outputs(WeightFormat weights) {
    const std::string dir = data_path("hf/bert_mlm_f16/");
    auto file = FileSource::open(dir + "model.safetensors");
    EXPECT_TRUE(file.is_ok()) << file.status().message();
    if (!file.is_ok()) return {};
    LoadOptions options;
    options.weights = weights;
    auto loaded = Model::load_checkpoint(read_text(dir + "config.json"), {{"model.safetensors", &file.value()}}, "", options);
    EXPECT_TRUE(loaded.is_ok()) << loaded.status().message();
    if (!loaded.is_ok()) return {};
    const Model& m = loaded.value();
    const Golden g = load_golden("hf/bert_mlm_f16/golden.safetensors");
    const Shape& shape = g.shapes.at("input_ids");
    const size_t B = shape[0], n = shape[1];
    const auto ids = g.tokens("input_ids");
    const auto mask = g.mask("attention_mask");
    std::vector<int32_t> types;
    if (g.values.count("token_type_ids")) types = g.tokens("token_type_ids");
    std::vector<int32_t> rows;
    for (size_t i = 0; i < B * n; ++i) rows.push_back(int32_t(i));
    WorkspaceLimits limits;
    limits.max_batch = B;
    limits.max_src_len = n;
    limits.max_logits_rows = rows.size();
    auto ws = m.make_workspace(limits);
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.token_types = types.empty() ? nullptr : types.data();
    r.attention_mask = mask.data();
    r.need_weights = true;
    r.logits_rows = rows.data();
    r.n_logits_rows = rows.size();
    SF_EXPECT_OK(m.forward_text(r, ws.value()));
    const Workspace& w = ws.value();
    std::vector<float> out;
    append(out, w.output(), w.output_rows() * m.config().d_model);
    append_maps(out, w.encoder_attention());
    append(out, w.logits(), rows.size() * w.logits_cols());
    if (weights == WeightFormat::kF32)
        EXPECT_LT(max_abs_diff(w.logits(), g.at("logits").data(), rows.size() * w.logits_cols()), 1e-4);
    return out;
}

// Runs `outputs` at 1, 2 and 3 threads with the cut-over at 0 (the test models are far below
// it, so every GEMM and attention is split) and requires identical bits.
template <class F>
void expect_same_bits_across_threads(const char* what, F outputs) {
    ThreadsGuard guard;
    const double cut_over = rt::set_parallel_min_macs(0);
    ASSERT_TRUE(rt::set_threads(1).is_ok());
    const std::vector<float> one = outputs();
    ASSERT_FALSE(one.empty());
    if (rt::threads_supported()) {
        for (size_t t : {2, 3}) {
            ASSERT_TRUE(rt::set_threads(t).is_ok());
            const std::vector<float> many = outputs();
            ASSERT_EQ(many.size(), one.size()) << what << " on " << t << " threads";
            for (size_t i = 0; i < one.size(); ++i)
                ASSERT_EQ(many[i], one[i]) << what << ": value " << i << " differs on " << t << " threads";
        }
    }
    rt::set_parallel_min_macs(cut_over);
}

TEST(ModelThreads, TorchEncoderBitIdenticalForOneTwoAndThreeThreads) {
    expect_same_bits_across_threads("encoder", torch_encoder_outputs);
}

TEST(ModelThreads, Seq2SeqGenerateBitIdenticalForOneTwoAndThreeThreads) {
    expect_same_bits_across_threads("seq2seq generate", seq2seq_generate_outputs);
}

TEST(ModelThreads, HuggingFaceBertBitIdenticalForOneTwoAndThreeThreads) {
    expect_same_bits_across_threads("hf bert_mlm_f16", [] { return hf_bert_outputs(WeightFormat::kF32); });
}

TEST(ModelThreads, Int8HuggingFaceBertBitIdenticalForOneTwoAndThreeThreads) {
    expect_same_bits_across_threads("hf bert_mlm_f16 int8", [] { return hf_bert_outputs(WeightFormat::kInt8); });
}

TEST(ModelThreads, WorkspaceMadeBeforeMoreThreadsStillWorks) {
    // A workspace sized for one thread has one attention scratch copy: heads then stay on one
    // thread while the GEMMs still split; results are unchanged.
    ThreadsGuard guard;
    const double cut_over = rt::set_parallel_min_macs(0);
    const Model m = load_case("encoder");
    const Golden g = load_golden("encoder.golden.safetensors");
    auto ws = m.make_workspace({3, 7, 0, true});
    ASSERT_TRUE(ws.is_ok());
    ForwardRequest r;
    r.n_batch = 3;
    r.src.n_seq = 7;
    r.src.embeddings = g.at("x").data();
    SF_ASSERT_OK(m.forward(r, ws.value()));
    const std::vector<float> one(ws.value().output(), ws.value().output() + 3 * 7 * 12);
    if (rt::threads_supported()) ASSERT_TRUE(rt::set_threads(3).is_ok());
    SF_ASSERT_OK(m.forward(r, ws.value()));
    EXPECT_EQ(std::vector<float>(ws.value().output(), ws.value().output() + 3 * 7 * 12), one);
    rt::set_parallel_min_macs(cut_over);
}

}  // namespace
}  // namespace simdformer::test
