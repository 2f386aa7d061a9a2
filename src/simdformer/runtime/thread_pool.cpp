#include "simdformer/runtime/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <new>
#include <string>

#include "simdformer/threads.h"

#if SIMDFORMER_THREADS
#include <condition_variable>
#include <mutex>
#include <thread>
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
    return Status::invalid("threads=" + std::to_string(n_threads) + " is outside [1, " + std::to_string(kMaxThreads) +
                           "]");
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

struct ThreadPool::Shared {
    size_t n_threads = 0;
    std::mutex mu;
    std::condition_variable wake;  // workers park here until a new job (or stop) is posted
    std::condition_variable done;  // run() waits here for the last worker of a job
    uint64_t generation = 0;       // incremented for every job; workers compare with the last seen
    bool stop = false;
    size_t n_tasks = 0;
    const RangeFn* fn = nullptr;
    size_t pending = 0;            // workers that have not finished the current job
    std::thread workers[kMaxThreads];
    size_t started = 0;

    void worker_main(size_t t) {
        uint64_t seen = 0;
        for (;;) {
            std::unique_lock<std::mutex> lock(mu);
            wake.wait(lock, [&] { return stop || generation != seen; });
            if (stop) return;
            seen = generation;
            const RangeFn* job = fn;
            const TaskRange r = static_range(n_tasks, t, n_threads);
            lock.unlock();
            if (r.begin < r.end) {
                InTask guard;
                (*job)(r.begin, r.end);
            }
            lock.lock();
            if (--pending == 0) done.notify_one();
        }
    }

    void stop_and_join() {
        {
            std::lock_guard<std::mutex> lock(mu);
            stop = true;
        }
        wake.notify_all();
        for (size_t i = 0; i < started; ++i) workers[i].join();
        started = 0;
    }
};

ThreadPool::ThreadPool(std::unique_ptr<Shared> shared) : shared_(std::move(shared)) {}

ThreadPool::~ThreadPool() {
    if (shared_) shared_->stop_and_join();
}

Result<std::unique_ptr<ThreadPool>> ThreadPool::create(size_t n_threads) {
    if (n_threads < 2 || n_threads > kMaxThreads)
        return Status::invalid("thread pool size " + std::to_string(n_threads) + " is outside [2, " +
                               std::to_string(kMaxThreads) + "]");
    // Both objects exist before any thread starts, so every failure path below joins what started.
    std::unique_ptr<ThreadPool> pool(new (std::nothrow) ThreadPool(nullptr));
    if (pool) pool->shared_.reset(new (std::nothrow) Shared);
    if (!pool || !pool->shared_) return Status::oom("thread pool: cannot allocate its state");
    Shared* s = pool->shared_.get();
    s->n_threads = n_threads;
#if defined(__cpp_exceptions)
    try {
#endif
        for (size_t t = 1; t < n_threads; ++t) {
            s->workers[t - 1] = std::thread([s, t] { s->worker_main(t); });
            s->started = t;
        }
#if defined(__cpp_exceptions)
    } catch (const std::exception& e) {  // std::system_error (no thread left) or bad_alloc
        return Status::oom("thread pool: could only start " + std::to_string(s->started) + " of " +
                           std::to_string(n_threads - 1) + " worker threads (" + e.what() + ")");
    }
#endif
    return pool;
}

size_t ThreadPool::size() const { return shared_->n_threads; }

void ThreadPool::run(size_t n_tasks, RangeFn fn) {
    Shared& s = *shared_;
    {
        std::lock_guard<std::mutex> lock(s.mu);
        s.fn = &fn;
        s.n_tasks = n_tasks;
        s.pending = s.n_threads - 1;
        ++s.generation;
    }
    s.wake.notify_all();
    const TaskRange r = static_range(n_tasks, 0, s.n_threads);
    if (r.begin < r.end) {
        InTask guard;
        fn(r.begin, r.end);
    }
    std::unique_lock<std::mutex> lock(s.mu);
    s.done.wait(lock, [&] { return s.pending == 0; });
}

namespace {
// The process-wide pool. `g_pool_mutex` is held by set_threads and by each parallel_for that
// uses the pool; a parallel_for that cannot take it at once runs inline instead of waiting.
std::mutex g_pool_mutex;
std::unique_ptr<ThreadPool> g_pool;
std::atomic<size_t> g_threads{1};  // read without the mutex by threads() and parallel_for
}  // namespace

bool threads_supported() { return true; }

Status set_threads(size_t n_threads) {
    SF_RETURN_IF_ERROR(check_thread_count(n_threads));
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (n_threads == g_threads) return Status::ok();
    g_pool.reset();  // joins the old workers first, so the two pools never coexist
    g_threads = 1;
    if (n_threads == 1) return Status::ok();
    SF_ASSIGN_OR_RETURN(auto pool, ThreadPool::create(n_threads));
    g_pool = std::move(pool);
    g_threads = n_threads;
    return Status::ok();
}

size_t threads() { return g_threads; }

void parallel_for(size_t n_tasks, RangeFn fn) {
    if (n_tasks == 0) return;
    if (g_threads > 1 && n_tasks > 1 && !t_in_task) {
        std::unique_lock<std::mutex> lock(g_pool_mutex, std::try_to_lock);
        if (lock.owns_lock() && g_pool) {
            g_pool->run(n_tasks, fn);
            return;
        }
    }
    fn(0, n_tasks);  // one thread, nested, or the pool is busy: same results, on this thread
}

#else  // SIMDFORMER_THREADS=0: no pool, everything runs on the caller

struct ThreadPool::Shared {};
ThreadPool::ThreadPool(std::unique_ptr<Shared> shared) : shared_(std::move(shared)) {}
ThreadPool::~ThreadPool() = default;
Result<std::unique_ptr<ThreadPool>> ThreadPool::create(size_t) {
    return Status::unsupported("this build of simdformer has no threads (SIMDFORMER_THREADS=OFF)");
}
size_t ThreadPool::size() const { return 1; }
void ThreadPool::run(size_t n_tasks, RangeFn fn) {
    if (n_tasks) fn(0, n_tasks);
}

bool threads_supported() { return false; }

Status set_threads(size_t n_threads) {
    SF_RETURN_IF_ERROR(check_thread_count(n_threads));
    if (n_threads == 1) return Status::ok();
    return Status::unsupported("threads=" + std::to_string(n_threads) +
                               " needs a build with threads (SIMDFORMER_THREADS=ON); this one runs 1 thread");
}

size_t threads() { return 1; }

void parallel_for(size_t n_tasks, RangeFn fn) {
    if (n_tasks) fn(0, n_tasks);
}

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
