// Embind bindings of the thread setting (simdformer/threads.h); a separate EMSCRIPTEN_BINDINGS
// block so the model bindings stay untouched. setThreads returns "" or "<status code>\t<message>"
// like every fallible binding. (Not entry::set_thread_count, which the addon uses: this one
// builds its refusal outside guarded(), the one way a C++ exception can escape a binding, which
// tests/js/eh-fallback.test.mjs uses to prove the JavaScript safety net for an escaping bug.)
#include <emscripten/bind.h>

#include <string>

#include "entry/numbers.h"
#include "simdformer/threads.h"

namespace simdformer::bindings {
namespace {

std::string set_threads_op(double n) {
    // JS numbers: only exact integers in range reach the size_t conversion.
    if (!(n >= 1 && n <= 64) || n != static_cast<double>(static_cast<int>(n)))
        return std::string("invalid_argument\tthreads must be an integer in [1, 64], got ") + simdformer::entry::js_text(n);
    const Status s = set_threads(static_cast<size_t>(n));
    return s.is_ok() ? std::string() : std::string(status_code_name(s.code())) + "\t" + s.message();
}

double threads_op() { return static_cast<double>(threads()); }

}  // namespace
}  // namespace simdformer::bindings

EMSCRIPTEN_BINDINGS(simdformer_threads) {
    emscripten::function("setThreads", &simdformer::bindings::set_threads_op);
    emscripten::function("threads", &simdformer::bindings::threads_op);
    emscripten::function("threadsSupported", &simdformer::threads_supported);
}
