#include "simdformer/runtime/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/threads.h"

#if SIMDFORMER_THREADS
#include <algorithm>
#include <thread>  // hardware_concurrency

#include "simdformer/runtime/sync.h"
#include "simdformer/runtime/worker_judge.h"
#endif

namespace simdformer::runtime {

TaskRange static_range(size_t n_tasks, size_t t, size_t n_threads) {
    // 64-bit products: n_tasks * t cannot wrap even where size_t is 32 bits (wasm).
    const uint64_t n = n_tasks, T = n_threads;
    return {static_cast<size_t>(n * t / T), static_cast<size_t>(n * (t + 1) / T)};
}

namespace {
thread_local bool t_in_task = false;

Status check_thread_count(size_t n_threads) {
    if (n_threads >= 1 && n_threads <= kMaxThreads) return Status::ok();
    return Status::invalid(cat({"threads=", n_threads, " is outside [1, ", kMaxThreads,
                                "]"}));
}  // set on pool workers while they run a range

// Marks the current thread as running a task for the lifetime of the guard.
struct InTask {
    bool saved = t_in_task;
    InTask() { t_in_task = true; }
    ~InTask() { t_in_task = saved; }
};
}  // namespace

bool in_parallel_task() { return t_in_task; }

#if SIMDFORMER_THREADS

// How long a thread spins for the next event before it sleeps on a condition variable. A
// forward pass issues its fork-joins microseconds apart (a GEMM, a layer norm, the next GEMM), so
// a worker that spins through the gap starts the next job in well under a microsecond instead
// of paying a futex wake; once the model is idle for longer than this, every thread sleeps and
// nothing spins (a Node script still exits, a background page costs no CPU), as pthreadpool's and
// onnxruntime's pools do. A millisecond, not the 50 us of before: some gaps are longer than 50 us
// -- the JavaScript between two calls (a text's tokens, a decoding step's token), a decoding
// step's attention over a long context on one thread -- and Chromium wakes a sleeping worker
// slowly (Atomics.wait / notify): a worker that slept through each such gap came late to the next
// job, whose ranges the caller then ran itself. Measured (2026-12-06, Xeon, idle; BENCHMARKS.md
// "Session 24"): GPT-2-small decoding at 2 threads in Chromium 23.1 / 25.1 / 30.3 -> 20.0 / 20.9 /
// 24.1 ms per token at contexts 16 / 128 / 512; Node at 2 threads MiniLM-L6 5 / 23 tokens 2.8 /
// 10.2 -> 2.5 / 9.6 ms; with one core kept busy unchanged (bench/under-load.mjs).
// SIMDFORMER_SPIN_WINDOW_US builds another window for A/B timing (0: a pool that sleeps after
// every job; bench/under-load.mjs compares the two with one core kept busy).
#ifndef SIMDFORMER_SPIN_WINDOW_US
#define SIMDFORMER_SPIN_WINDOW_US 1000
#endif
constexpr int64_t kSpinWindowNs = int64_t(SIMDFORMER_SPIN_WINDOW_US) * 1000;

// One step of a spin-wait: tells the core (and a hyper-threaded sibling) that this is a wait.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Spins until done() is true or the spin window has passed; true when done() became true.
template <class Done>
bool spin_until(Done done) {
    const int64_t deadline = monotonic_ns() + kSpinWindowNs;
    for (;;) {
        // The clock is read (and the core offered to others) every 16 polls, about a microsecond:
        // a pause takes up to ~140 cycles on recent x86 cores.
        for (int i = 0; i < 16; ++i) {
            if (done()) return true;
            spin_pause();
        }
        if (monotonic_ns() >= deadline) return done();
        // On a machine with more runnable threads than cores the thread we wait for may need
        // this core: give it up between bursts of polls.
        yield_thread();
    }
}

// Job hand-off without a lock on the fast path: run() publishes the job (fn, n_tasks) and then
// bumps `generation`; workers poll it while they spin. A thread that stops spinning announces
// itself in `sleepers` / `caller_asleep` (seq_cst) before it re-checks and waits under `mu`, and
// the other side reads that flag (seq_cst) after its own update: one of the two always sees the
// other, so a wake-up is never lost, and the lock is only taken when someone sleeps.
//
// Ranges are claimed, not assigned: thread t runs range t if it claims it first, and every
// thread that has finished its own range claims whichever others are still unclaimed. A worker
// that is late (descheduled because another process has its core, or still waking from sleep)
// then costs the job nothing: the threads that are running take its range instead of waiting for
// it. The ranges themselves are the static partition, whoever runs them, so results stay
// bit-for-bit the same for every thread count.
struct ThreadPool::Shared {
    size_t n_threads = 0;
    Mutex mu;
    CondVar wake;  // sleeping workers wait here for a new job (or stop)
    CondVar done;  // a sleeping run() waits here for the last range of its job
    std::atomic<uint64_t> generation{0};  // incremented for every job; workers compare with the last seen
    std::atomic<bool> stop{false};
    std::atomic<size_t> ranges_left{0};   // ranges of the current job not yet finished
    std::atomic<size_t> sleepers{0};      // workers asleep (or about to be) on `wake`
    std::atomic<bool> caller_asleep{false};
    std::atomic<bool> stealing{true};     // false while measure_fork_join times the hand-off itself
    WorkerJudge judge;                    // whether the workers help (caller's thread only)
    size_t n_tasks = 0;                   // the job, written before `generation` is bumped
    const RangeFn* fn = nullptr;
    RangeClaims claims;
    Thread workers[kMaxThreads];
    struct Worker {
        Shared* shared;
        size_t t;
    } worker_args[kMaxThreads];  // what each worker thread starts with
    size_t started = 0;
    // kJobScratchBytes (ThreadPool::job_scratch). Not a Buffer: it is the pool's, not a model's,
    // and Buffer::live_bytes() counts models and workspaces (every model freed: 0).
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t, Free> job_scratch;

    // The generation of the next job (or any value once `stop` is set).
    uint64_t wait_for_job(uint64_t seen) {
        auto posted = [&] { return generation.load() != seen || stop.load(); };
        if (!spin_until(posted)) {
            LockGuard lock(mu);
            sleepers.fetch_add(1);
            while (!posted()) wake.wait(mu);
            sleepers.fetch_sub(1);
        }
        return generation.load(std::memory_order_acquire);
    }

    // Runs range u of job g, which this thread has claimed (so the job is still live: its fn and
    // n_tasks are the ones published with g). Returns its number of tasks.
    size_t run_range(size_t u) {
        const TaskRange r = static_range(n_tasks, u, n_threads);
        if (r.begin < r.end) {
            InTask guard;
            (*fn)(r.begin, r.end);
        }
        if (ranges_left.fetch_sub(1) == 1 && caller_asleep.load()) {
            LockGuard lock(mu);
            done.notify_one();
        }
        return r.end - r.begin;
    }

    // Thread t's part of job g: its own range if still unclaimed, then every other unclaimed one
    // (the next threads' first, so two helpers do not contend for the same range). Returns how
    // many tasks this thread ran.
    size_t run_ranges(size_t t, uint64_t g) {
        size_t ran = claims.claim(t, g) ? run_range(t) : 0;
        if (!stealing.load(std::memory_order_relaxed)) return ran;
        for (size_t i = 1; i < n_threads; ++i) {
            const size_t u = (t + i) % n_threads;
            if (claims.claim(u, g)) ran += run_range(u);
        }
        return ran;
    }

    static void* worker_start(void* arg) {
        const Worker& w = *static_cast<const Worker*>(arg);
        w.shared->worker_main(w.t);
        return nullptr;
    }

    void worker_main(size_t t) {
        uint64_t seen = 0;
        for (;;) {
            seen = wait_for_job(seen);
            if (stop.load()) return;
            run_ranges(t, seen);
        }
    }

    // Posts a job to every worker (the caller has set fn and n_tasks); returns its generation.
    uint64_t post() {
        ranges_left.store(n_threads);
        const uint64_t g = generation.fetch_add(1) + 1;
        if (sleepers.load() > 0) {
            LockGuard lock(mu);  // a worker between its check and its wait holds mu
            wake.notify_all();
        }
        return g;
    }

    // Returns when every range of the current job has finished.
    void wait_done() {
        auto finished = [&] { return ranges_left.load() == 0; };
        if (spin_until(finished)) return;
        LockGuard lock(mu);
        caller_asleep.store(true);
        while (!finished()) done.wait(mu);
        caller_asleep.store(false);
    }

    void stop_and_join() {
        stop.store(true);
        {
            LockGuard lock(mu);
            wake.notify_all();
        }
        for (size_t i = 0; i < started; ++i) workers[i].join();
        started = 0;
    }
};

ThreadPool::ThreadPool(std::unique_ptr<Shared> shared) : shared_(std::move(shared)) {}

SF_COLD_CODE ThreadPool::~ThreadPool() {
    if (shared_) shared_->stop_and_join();
}

SF_COLD_CODE Result<std::unique_ptr<ThreadPool>> ThreadPool::create(size_t n_threads) {
    if (n_threads < 2 || n_threads > kMaxThreads)
        return Status::invalid(cat({"thread pool size ", n_threads, " is outside [2, ",
                                    kMaxThreads, "]"}));
    // Both objects exist before any thread starts, so every failure path below joins what started.
    std::unique_ptr<ThreadPool> pool(new (std::nothrow) ThreadPool(nullptr));
    if (pool) pool->shared_.reset(new (std::nothrow) Shared);
    if (!pool || !pool->shared_) return Status::oom("thread pool: cannot allocate its state");
    Shared* s = pool->shared_.get();
    s->n_threads = n_threads;
    s->job_scratch.reset(static_cast<uint8_t*>(std::aligned_alloc(64, kJobScratchBytes)));
    if (!s->job_scratch) return Status::oom(cat({"thread pool: cannot allocate its job scratch (", kJobScratchBytes, " bytes)"}));
    for (size_t t = 1; t < n_threads; ++t) {
        s->worker_args[t - 1] = {s, t};
        if (!s->workers[t - 1].start(&Shared::worker_start, &s->worker_args[t - 1]))  // no thread left
            return Status::oom(cat({"thread pool: could only start ", s->started, " of ", n_threads - 1,
                                    " worker threads"}));
        s->started = t;
    }
    return pool;
}

size_t ThreadPool::size() const { return shared_->n_threads; }

uint8_t* ThreadPool::job_scratch() { return shared_->job_scratch.get(); }

void ThreadPool::run(size_t n_tasks, RangeFn fn, double work) {
    Shared& s = *shared_;
    // measure_fork_join times the hand-off itself: no judging, never alone.
    const bool judged = s.stealing.load(std::memory_order_relaxed);
    const int64_t start = judged ? monotonic_ns() : 0;
    if (judged && s.judge.alone()) {
        // The workers do not help now (runtime/worker_judge.h): the caller runs the whole job, as
        // parallel_for does on one thread, and the workers fall asleep.
        {
            InTask guard;
            fn(0, n_tasks);
        }
        s.judge.job(start, monotonic_ns(), work, 0);
        return;
    }
    s.fn = &fn;
    s.n_tasks = n_tasks;
    const size_t ran = s.run_ranges(0, s.post());  // range 0 first: no worker claims another's range before its own
    const int64_t own_done = judged ? monotonic_ns() : 0;
    s.wait_done();
    if (!judged || ran == 0) return;
    // One thread would have run every task at about the caller's pace.
    s.judge.job(start, monotonic_ns(), work, (own_done - start) * int64_t(n_tasks) / int64_t(ran));
}

namespace {
// The median of 31 timings, by insertion sort: std::sort's introsort of doubles cost the threads
// build 1.1 KB of wasm (issue 30), for a sort that runs once per set_threads.
double median_of(double (&t)[31]) {
    for (size_t i = 1; i < 31; ++i)
        for (size_t j = i; j > 0 && t[j - 1] > t[j]; --j) std::swap(t[j - 1], t[j]);
    return t[15];
}
}  // namespace

SF_COLD_CODE double ThreadPool::measure_fork_join() {
    // Empty jobs back to back, as the fork-joins of one forward pass come: the median of a few,
    // after many that bring the new workers up to speed (about a millisecond: also long enough
    // for the scheduler to spread the new threads over the cores).
    // Without stealing: the caller would take the workers' empty ranges itself and time nothing
    // but its own claims, a cost no split with real work in its ranges has.
    Shared& s = *shared_;
    s.stealing.store(false, std::memory_order_relaxed);  // published to the workers with each job
    auto nothing = [](size_t, size_t) {};
    for (int i = 0; i < 300; ++i) run(size(), nothing);
    double seconds[31];
    for (double& t : seconds) {
        const int64_t t0 = monotonic_ns();
        run(size(), nothing);
        t = double(monotonic_ns() - t0) * 1e-9;
    }
    s.stealing.store(true, std::memory_order_relaxed);
    return median_of(seconds);
}

namespace {
// The process-wide pool. `g_pool_mutex` is held by set_threads and by each parallel_for that
// uses the pool; a parallel_for that cannot take it at once runs inline instead of waiting.
Mutex g_pool_mutex;
std::unique_ptr<ThreadPool> g_pool;
std::atomic<size_t> g_threads{1};  // read without the mutex by threads() and parallel_for
}  // namespace

bool threads_supported() { return true; }

SF_COLD_CODE Status set_threads(size_t n_threads) {
    SF_RETURN_IF_ERROR(check_thread_count(n_threads));
    LockGuard lock(g_pool_mutex);
    if (n_threads == g_threads) return Status::ok();
    g_pool.reset();  // joins the old workers first, so the two pools never coexist
    g_threads = 1;
    if (n_threads == 1) return Status::ok();
    SF_ASSIGN_OR_RETURN(auto pool, ThreadPool::create(n_threads));
    // The cut-over below which GEMMs stay on one thread comes from this pool's fork-join cost
    // and the kernels' speed, both measured here (runtime/parallel_gemm.h), and F again if the
    // first measurement looks taken on a busy machine.
    ThreadPool& started = *pool;
    calibrate_parallel_cut_over(started.measure_fork_join(), [&started] { return started.measure_fork_join(); });
    g_pool = std::move(pool);
    g_threads = n_threads;
    return Status::ok();
}

size_t threads() { return g_threads; }

void parallel_for(size_t n_tasks, RangeFn fn, double work) {
    if (n_tasks == 0) return;
    if (g_threads > 1 && n_tasks > 1 && !t_in_task) {
        if (g_pool_mutex.try_lock()) {
            if (g_pool) {
                g_pool->run(n_tasks, fn, work);
                g_pool_mutex.unlock();
                return;
            }
            g_pool_mutex.unlock();
        }
    }
    fn(0, n_tasks);  // one thread, nested, or the pool is busy: same results, on this thread
}

// The pool is taken as parallel_for takes it, and kept until the lease ends.
PoolLease::PoolLease() {
    if (g_threads <= 1 || t_in_task || !g_pool_mutex.try_lock()) return;
    if (g_pool) pool_ = g_pool.get();
    else g_pool_mutex.unlock();
}

PoolLease::~PoolLease() {
    if (pool_) g_pool_mutex.unlock();
}

void PoolLease::run(size_t n_tasks, RangeFn fn, double work) {
    if (n_tasks) pool_->run(n_tasks, fn, work);
}

void SharedPhase::wait_all_done() const {
    // The units still running were claimed by tasks that are running them: a short wait, unless
    // another process has that thread's core. Past a spin, short sleeps leave the core to
    // whoever needs it (possibly that very thread).
    // Polls rather than spin_until's clock: one more copy of that loop costs the threads build's
    // size budget bytes. 2048 polls with pauses are tens of microseconds, about its window.
    for (unsigned polls = 1; done_.load(std::memory_order_acquire) < n_units_; ++polls) {
        if (polls > 2048) sleep_us(20);
        else if (polls % 16 == 0) yield_thread();
        else spin_pause();
    }
}

#else  // SIMDFORMER_THREADS=0: no pool, everything runs on the caller

struct ThreadPool::Shared {};
ThreadPool::ThreadPool(std::unique_ptr<Shared> shared) : shared_(std::move(shared)) {}
ThreadPool::~ThreadPool() = default;
Result<std::unique_ptr<ThreadPool>> ThreadPool::create(size_t) {
    return Status::unsupported("this build of simdformer has no threads (SIMDFORMER_THREADS=OFF)");
}
size_t ThreadPool::size() const { return 1; }
uint8_t* ThreadPool::job_scratch() { return nullptr; }
void ThreadPool::run(size_t n_tasks, RangeFn fn, double) {
    if (n_tasks) fn(0, n_tasks);
}
double ThreadPool::measure_fork_join() { return 0.0; }

bool threads_supported() { return false; }

Status set_threads(size_t n_threads) {
    SF_RETURN_IF_ERROR(check_thread_count(n_threads));
    if (n_threads == 1) return Status::ok();
    return Status::unsupported(cat({"threads=", n_threads,
                                    " needs a build with threads (SIMDFORMER_THREADS=ON); this one runs 1 thread"}));
}

size_t threads() { return 1; }

void parallel_for(size_t n_tasks, RangeFn fn, double) {
    if (n_tasks) fn(0, n_tasks);
}

PoolLease::PoolLease() = default;  // always empty: no pool to hold
PoolLease::~PoolLease() = default;
void PoolLease::run(size_t n_tasks, RangeFn fn, double work) { parallel_for(n_tasks, fn, work); }
void SharedPhase::wait_all_done() const {}  // one thread ran every unit

#endif

}  // namespace simdformer::runtime

// ---- public API (simdformer/threads.h) --------------------------------------------------------
namespace simdformer {
bool threads_supported() { return runtime::threads_supported(); }
Status set_threads(size_t n_threads) { return runtime::set_threads(n_threads); }
size_t threads() { return runtime::threads(); }
size_t hardware_threads() {
#if SIMDFORMER_THREADS
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
#else
    return 1;
#endif
}
}  // namespace simdformer
