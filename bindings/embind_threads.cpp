// Embind bindings of the thread setting (simdformer/threads.h); a separate EMSCRIPTEN_BINDINGS
// block so the model bindings stay untouched. setThreads returns "" or "<status code>\t<message>"
// like every fallible binding: entry::set_thread_count checks the number and replies, for the
// addon too.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "entry/ops_entry.h"
#include "entry/reply.h"
#include "simdformer/threads.h"

namespace simdformer::bindings {
namespace {

emscripten::val set_threads_op(double n) {
    const int code = entry::set_thread_count(n);
    return emscripten::val(code == 0 ? "" : entry::reply_text());
}

double threads_op() { return static_cast<double>(threads()); }

}  // namespace
}  // namespace simdformer::bindings

EMSCRIPTEN_BINDINGS(simdformer_threads) {
    emscripten::function("setThreads", &simdformer::bindings::set_threads_op);
    emscripten::function("threads", &simdformer::bindings::threads_op);
    emscripten::function("threadsSupported", &simdformer::threads_supported);
}
