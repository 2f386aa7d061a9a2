// A small pool of parked worker threads and the process-wide parallel_for the layers use.
//
// Work is split statically: parallel_for(n_tasks, fn) cuts [0, n_tasks) into threads()
// contiguous ranges, range t = [n*t/T, n*(t+1)/T), and calls fn(begin, end) once per non-empty
// range: range 0 on the calling thread, range t on worker t unless worker t is late (another
// process has its core, or it is still waking up), in which case a thread that has finished its
// own range runs it (RangeClaims below). Tasks never combine results across ranges (every output
// element is computed by exactly one task, with the same arithmetic whichever thread runs it), so
// results are bit-for-bit identical for every thread count.
//
// When another process keeps a core busy, a worker preempted in the middle of its range holds up
// the join for a scheduler slice, and 2 threads become slower than 1. The pool notices from its
// jobs' own timings and the work its callers say they do (runtime/worker_judge.h) and then runs
// jobs on the caller alone for a while, trying its workers again later (same results: a job
// alone is the one-thread loop).
//
// Workers spin for a short window (kSpinWindow in thread_pool.cpp, tens of microseconds) after a
// job, so the fork-joins of one forward pass cost about a microsecond, then sleep on a condition
// variable: an idle pool uses no CPU. With one thread there is no pool at
// all and parallel_for is a plain loop. A parallel_for issued from inside a task, or while another
// thread's parallel_for holds the pool, runs inline on its caller (same results, no deadlock).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "simdformer/status.h"

namespace simdformer::runtime {

// A non-owning reference to a callable `void(size_t begin, size_t end)`: no allocation per call
// (std::function may allocate), valid only while the referenced callable lives.
class RangeFn {
public:
    template <class F>
    RangeFn(const F& f)  // NOLINT: implicit, so lambdas can be passed directly
        : obj_(&f), call_([](const void* o, size_t b, size_t e) { (*static_cast<const F*>(o))(b, e); }) {}
    void operator()(size_t begin, size_t end) const { call_(obj_, begin, end); }

private:
    const void* obj_;
    void (*call_)(const void*, size_t, size_t);
};

// The range [begin, end) of task indices that thread t of n_threads runs (static partition).
struct TaskRange {
    size_t begin, end;
};
TaskRange static_range(size_t n_tasks, size_t t, size_t n_threads);

// Largest thread count set_threads accepts.
constexpr size_t kMaxThreads = 64;

// Who runs each range of a job. Jobs are numbered 1, 2, ... (the pool's generation); claim(u, g)
// is true for exactly one caller per range u of job g, provided every range of job g - 1 was
// claimed (a job ends only when all its ranges have run), and false for a thread still acting on
// an older job: a worker that wakes after its job ended touches nothing of the next.
class RangeClaims {
public:
    bool claim(size_t range, uint64_t job) {
        uint64_t previous = job - 1;
        return last_[range].compare_exchange_strong(previous, job);
    }

private:
    std::atomic<uint64_t> last_[kMaxThreads] = {};  // the last job that claimed each range
};

class ThreadPool {
public:
    // A pool of n_threads - 1 workers (the caller of run() is thread 0). n_threads >= 2.
    static Result<std::unique_ptr<ThreadPool>> create(size_t n_threads);
    ~ThreadPool();  // wakes, stops and joins every worker
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    size_t size() const;  // threads including the caller
    // Runs fn over the static partition of [0, n_tasks) into size() ranges and returns when all
    // ranges are done. One run() at a time (the process-wide parallel_for guarantees that).
    // `work`: the job's multiply-adds, by which the pool judges whether its workers help (0:
    // unknown; runtime/worker_judge.h).
    void run(size_t n_tasks, RangeFn fn, double work = 0);
    // Seconds one run() of empty tasks takes while the workers are spinning (the median of a
    // few back-to-back runs): the fixed cost a split must save to pay.
    double measure_fork_join();
    // The pool's job scratch: kJobScratchBytes, 64-byte aligned, for the tasks of one job to
    // share (only through a PoolLease, which keeps other jobs off the pool meanwhile).
    uint8_t* job_scratch();

    struct Shared;

private:
    explicit ThreadPool(std::unique_ptr<Shared> shared);
    std::unique_ptr<Shared> shared_;
};

// ---- process-wide pool -----------------------------------------------------------------------
// True when this build can run more than one thread (SIMDFORMER_THREADS=ON).
bool threads_supported();
// Sets the number of threads used by parallel_for (1 = none: the pool is stopped and joined).
// Fails with `unsupported` in a build without threads, `invalid_argument` outside
// [1, kMaxThreads], or `out_of_memory` when a thread cannot be started (the old setting stays).
// Must not be called while another thread is inside parallel_for.
Status set_threads(size_t n_threads);
size_t threads();  // threads parallel_for splits work across (1 when no pool)
// True on a pool worker while it runs a task (nested parallel_for calls run inline there).
bool in_parallel_task();
// fn over [0, n_tasks), split as described at the top of this file. `work`: the call's
// multiply-adds (0: unknown), by which the pool judges whether its workers help.
void parallel_for(size_t n_tasks, RangeFn fn, double work = 0);

// ---- jobs whose tasks share memory ------------------------------------------------------------
// Bytes of the job scratch every pool owns (allocated with the pool: set_threads reports
// out_of_memory instead of a job failing later). 1 MiB holds a 128-token int8 GEMM's quantized
// activations for k up to 3072 (BERT-base's FFN down projection: 128 x 3072 x 2 bytes).
constexpr size_t kJobScratchBytes = size_t(1) << 20;

// The process-wide pool, held for a job or a few jobs whose tasks share its job scratch (no other
// parallel_for can use the pool, and so its scratch, while a lease lives). Empty when parallel_for
// would run inline: one thread, inside a task, or another thread holds the pool; the caller then
// works another way (on its own memory).
class PoolLease {
public:
    PoolLease();
    ~PoolLease();
    PoolLease(const PoolLease&) = delete;
    PoolLease& operator=(const PoolLease&) = delete;
    explicit operator bool() const { return pool_ != nullptr; }
    uint8_t* scratch() const { return pool_->job_scratch(); }  // kJobScratchBytes
    void run(size_t n_tasks, RangeFn fn, double work = 0);  // parallel_for on the held pool

private:
    ThreadPool* pool_ = nullptr;
};

// Work that every task of one job needs done before its own part, cut into units that the tasks
// claim as they arrive, each unit run once by whichever task claims it: run() runs unclaimed
// units until none is left, then waits until every unit has finished. A task that starts late
// (its thread was descheduled) finds the work done; none waits for a unit nobody has claimed, so
// a job with one running thread still finishes. One fork-join serves both phases.
class SharedPhase {
public:
    explicit SharedPhase(size_t n_units) : n_units_(n_units) {}
    template <class Unit>
    void run(const Unit& unit) {
        for (size_t u; (u = next_.fetch_add(1, std::memory_order_relaxed)) < n_units_;) {
            unit(u);
            done_.fetch_add(1, std::memory_order_release);  // publishes the unit's writes
        }
        wait_all_done();
    }

private:
    void wait_all_done() const;  // spins, then sleeps in short steps, until done_ == n_units_
    const size_t n_units_;
    std::atomic<size_t> next_{0}, done_{0};
};

}  // namespace simdformer::runtime
