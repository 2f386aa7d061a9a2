#include "reply.h"

#include <cstdlib>
#include <initializer_list>

namespace simdformer::entry {
namespace {

char g_reply[kReplyBytes];  // "" or "<code>\t<message>"

#if defined(__cpp_exceptions)
// Allocated with operator new (std::nothrow) so that they are part of the same heap as every
// other allocation (the native tests model a full heap at operator new).
void* g_retry_reserve = nullptr;
void* g_throw_reserve = nullptr;

void release(void*& p) noexcept {
    ::operator delete(p);
    p = nullptr;
}

// operator new calls this when malloc fails. First: release the retry reserve and return
// (operator new tries again). When that was not enough: release the throw reserve, then throw.
void on_allocation_failure() {
    if (g_retry_reserve) return release(g_retry_reserve);
    release(g_throw_reserve);
    throw std::bad_alloc();
}

void* acquire(size_t bytes) noexcept { return ::operator new(bytes, std::nothrow); }
#endif

}  // namespace

bool hold_reserves() noexcept {
#if defined(__cpp_exceptions)
    // No handler while the reserves themselves are taken: a failure here just means "no reserve".
    std::set_new_handler(nullptr);
    if (!g_throw_reserve) g_throw_reserve = acquire(kThrowReserveBytes);
    if (!g_retry_reserve && g_throw_reserve) g_retry_reserve = acquire(kRetryReserveBytes);
    std::set_new_handler(on_allocation_failure);
    return g_retry_reserve && g_throw_reserve;
#else
    return true;
#endif
}

namespace {
// The C strings one after another in g_reply, as snprintf("%s%s...") writes them: cut at the
// buffer's end, always terminated (not snprintf itself: libc's printf was ~5.5 KB gzip of every
// wasm build, issue 30).
void write_reply(std::initializer_list<const char*> pieces) noexcept {
    size_t n = 0;
    for (const char* p : pieces)
        for (; *p != '\0' && n + 1 < sizeof g_reply; ++p) g_reply[n++] = *p;
    g_reply[n] = '\0';
}
}  // namespace

int reply(const Status& s) noexcept {
    if (s.is_ok()) {
        g_reply[0] = '\0';
        return 0;
    }
    write_reply({status_code_name(s.code()), "\t", s.message().c_str()});
    return 1 + int(s.code());
}

int reply_out_of_memory(const char* what) noexcept {
    // `what` is not repeated: the JS wrapper already says which call failed.
    (void)what;
    write_reply({status_code_name(StatusCode::kOutOfMemory), "\tout of wasm memory: an allocation failed (everything "
                 "the call had allocated was freed)"});
    return 1 + int(StatusCode::kOutOfMemory);
}

int reply_internal(const char* what, const char* message) noexcept {
    write_reply({"internal\t", what, ": internal error: ", message});
    return 1000;
}

const char* reply_text() noexcept { return g_reply; }

int guarded_call(const char* what, Status (*run)(void*), void* body) noexcept {
#if defined(__cpp_exceptions)
    if (!hold_reserves()) return reply_out_of_memory(what);
    int code;
    try {
        code = reply(run(body));
    } catch (const std::bad_alloc&) {
        code = reply_out_of_memory(what);
    } catch (const std::length_error&) {  // a container asked for more than it can ever hold
        code = reply_out_of_memory(what);
    } catch (const std::exception& e) {
        code = reply_internal(what, e.what());
    } catch (...) {
        code = reply_internal(what, "unknown exception");
    }
    (void)hold_reserves();  // the call returned or unwound, freeing what it took: take the reserves back
    return code;
#else
    return reply(run(body));
#endif
}

}  // namespace simdformer::entry
