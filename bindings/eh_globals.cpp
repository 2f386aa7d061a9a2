// The threads module's per-thread C++ exception state (libc++abi's __cxa_eh_globals: the caught
// exceptions and the count of uncaught ones) in a thread_local, as libc++abi itself keeps it
// where the platform has thread_local (cxa_exception_storage.cpp, HAS_THREAD_LOCAL). Emscripten
// 3.1.6 builds its libc++abi-mt with the other variant: a pthread key created under pthread_once,
// and the state calloc'ed on each thread's first exception (abort_message when that fails), freed
// by the key's destructor at thread exit. That variant linked pthread_once, pthread_key_create /
// getspecific / setspecific, the key table's rwlock and the thread-exit destructor pass: ~0.5 KB
// gzip of the threads build (issue 30). A thread_local is in every thread's TLS block from its
// start (zero-filled), so there is no allocation and nothing to fail. Defined here, these two are
// found before libc++abi's, whose storage object is then never linked.
#if defined(__EMSCRIPTEN_PTHREADS__)

namespace {

// libc++abi's __cxa_eh_globals on wasm32 (cxa_exception.h; no ARM EHABI field).
struct EhGlobals {
    void* caught_exceptions;
    unsigned int uncaught_exceptions;
};

thread_local EhGlobals t_eh_globals;

}  // namespace

extern "C" {
void* __cxa_get_globals() { return &t_eh_globals; }
void* __cxa_get_globals_fast() { return &t_eh_globals; }
}

#endif
