// The few thread primitives the pool needs (a lock, a condition variable, a thread, a monotonic
// clock, a sleep), over POSIX threads where they exist and over the standard library elsewhere.
//
// Why not std::mutex, std::condition_variable, std::thread and steady_clock::now everywhere:
// libc++ reports their failures by throwing std::system_error, and that one throw links the
// system_error classes and musl's message for every errno value (strerror's table) into the wasm
// threads build: issue 30 measured it (BENCHMARKS.md, "Footprint"). The pool never needs those
// messages: a thread that cannot start is `out_of_memory` (pthread_create's return value says so,
// with no exception in between), and locking a default mutex, waiting and reading the monotonic
// clock cannot fail on these systems. Results and guarantees are the same on both paths.
// SIMDFORMER_STD_THREADS=1 builds the standard-library path on a POSIX system too (to test it).
#pragma once

#include <cstddef>
#include <cstdint>

#if !defined(SIMDFORMER_STD_THREADS)
#if defined(_WIN32)
#define SIMDFORMER_STD_THREADS 1
#else
#define SIMDFORMER_STD_THREADS 0
#endif
#endif

#if SIMDFORMER_STD_THREADS
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#if defined(__EMSCRIPTEN__)
#include <emscripten/threading.h>

#include <atomic>
#include <climits>
#include <cmath>
#endif
#endif

// Code that runs once per set_threads (starting a pool, timing it, the kernels' calibration),
// compiled for size in every clang build: without it, link-time optimization inlined a copy of the
// int8 GEMM's dispatch into set_threads (issue 30). The pool's fork-join and its loops over ranges
// keep the file's -O3.
#if defined(__clang__)
#define SF_COLD_CODE __attribute__((minsize, noinline))
#else
#define SF_COLD_CODE
#endif

namespace simdformer::runtime {

#if !SIMDFORMER_STD_THREADS

class Mutex {
public:
    Mutex() = default;
    ~Mutex() { pthread_mutex_destroy(&m_); }
    Mutex(const Mutex&) = delete;
    Mutex& operator=(const Mutex&) = delete;
    void lock() { pthread_mutex_lock(&m_); }
    bool try_lock() { return pthread_mutex_trylock(&m_) == 0; }
    void unlock() { pthread_mutex_unlock(&m_); }

private:
    friend class CondVar;
    pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

// SIMDFORMER_MUSL_CONDVAR builds musl's pthread_cond_t in wasm too, for A/B timing.
#if defined(__EMSCRIPTEN__) && !defined(SIMDFORMER_MUSL_CONDVAR)
// In wasm, a condition variable over the futex of a sequence number: musl's pthread_cond_t
// (waiter lists, requeueing, cancellation) cost the threads build ~1.1 KB of code that a pool
// whose every notify is made holding the mutex does not need (issue 30). A waiter reads the
// number while it holds the mutex and sleeps only while it is unchanged; a notifier changes the
// shared state under the mutex and then bumps the number, so a wake-up between the waiter's
// check and its sleep is never lost (the futex returns at once on a changed number).
class CondVar {
public:
    CondVar() = default;
    CondVar(const CondVar&) = delete;
    CondVar& operator=(const CondVar&) = delete;
    // The caller holds m; waits until notified (or spuriously: callers re-check their condition).
    void wait(Mutex& m) {
        const uint32_t seen = seq_.load(std::memory_order_relaxed);
        m.unlock();
        emscripten_futex_wait(&seq_, seen, INFINITY);
        m.lock();
    }
    void notify_one() {
        seq_.fetch_add(1);
        emscripten_futex_wake(&seq_, 1);
    }
    void notify_all() {
        seq_.fetch_add(1);
        emscripten_futex_wake(&seq_, INT_MAX);
    }

private:
    std::atomic<uint32_t> seq_{0};
};
#else
class CondVar {
public:
    CondVar() = default;
    ~CondVar() { pthread_cond_destroy(&c_); }
    CondVar(const CondVar&) = delete;
    CondVar& operator=(const CondVar&) = delete;
    // The caller holds m; waits until notified (or spuriously: callers re-check their condition).
    void wait(Mutex& m) { pthread_cond_wait(&c_, &m.m_); }
    void notify_one() { pthread_cond_signal(&c_); }
    void notify_all() { pthread_cond_broadcast(&c_); }

private:
    pthread_cond_t c_ = PTHREAD_COND_INITIALIZER;
};
#endif

class Thread {
public:
    // Runs fn(arg) on a new thread; false when the system cannot start one.
    bool start(void* (*fn)(void*), void* arg) { return started_ = pthread_create(&t_, nullptr, fn, arg) == 0; }
    void join() {
        if (started_) pthread_join(t_, nullptr);
        started_ = false;
    }

private:
    pthread_t t_{};
    bool started_ = false;
};

// Nanoseconds of a monotonic clock (steady_clock's, read without its throwing wrapper).
inline int64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline void sleep_us(long us) {
    timespec ts{us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {}  // EINTR: sleep the rest
}
inline void yield_thread() { sched_yield(); }

#else  // the standard library's primitives (Windows, or SIMDFORMER_STD_THREADS=1)

class Mutex {
public:
    void lock() { m_.lock(); }
    bool try_lock() { return m_.try_lock(); }
    void unlock() { m_.unlock(); }

private:
    friend class CondVar;
    std::mutex m_;
};

class CondVar {
public:
    void wait(Mutex& m) {
        std::unique_lock<std::mutex> lock(m.m_, std::adopt_lock);
        c_.wait(lock);
        lock.release();  // the caller still holds m
    }
    void notify_one() { c_.notify_one(); }
    void notify_all() { c_.notify_all(); }

private:
    std::condition_variable c_;
};

class Thread {
public:
    bool start(void* (*fn)(void*), void* arg) {
#if defined(__cpp_exceptions)
        try {
#endif
            t_ = std::thread([fn, arg] { fn(arg); });
            return true;
#if defined(__cpp_exceptions)
        } catch (...) {  // std::system_error (no thread left) or bad_alloc
            return false;
        }
#endif
    }
    void join() {
        if (t_.joinable()) t_.join();
    }

private:
    std::thread t_;
};

inline int64_t monotonic_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
inline void sleep_us(long us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }
inline void yield_thread() { std::this_thread::yield(); }

#endif

// Holds a Mutex for its scope (std::lock_guard's job, for this Mutex).
class LockGuard {
public:
    explicit LockGuard(Mutex& m) : m_(m) { m_.lock(); }
    ~LockGuard() { m_.unlock(); }
    LockGuard(const LockGuard&) = delete;
    LockGuard& operator=(const LockGuard&) = delete;

private:
    Mutex& m_;
};

}  // namespace simdformer::runtime
