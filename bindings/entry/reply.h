// How an entry point reports: 0, or a non-zero code with "<status code>\t<message>" kept in a
// fixed buffer. Building the reply needs no memory, so a failure is reported even when the heap
// is exhausted; the Embind glue turns the buffer into a JS string (in JS memory).
//
// guarded(body) is the one place exceptions stop. The core reports its own errors as Status;
// what can still throw is allocation inside std containers and the JSON parser (std::bad_alloc,
// std::length_error), which becomes out_of_memory after the stack has unwound through RAII
// owners, so everything the call took is freed and the module stays fully usable.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "simdformer/status.h"

namespace simdformer::entry {

// Replies longer than this are cut (messages are one line; tensor names are the long part).
constexpr size_t kReplyBytes = 4096;

// Records s (nothing for ok) and returns 0 for ok, else 1 + the StatusCode.
int reply(const Status& s) noexcept;
// The allocation failure reply: "out_of_memory\t<what>: out of memory ...". `what` is static text.
int reply_out_of_memory(const char* what) noexcept;
// An exception that is not an allocation failure: a bug. "internal\t<what>: <message>".
int reply_internal(const char* what, const char* message) noexcept;
// "" after a successful call, else "<status code>\t<message>" of the last failed one.
const char* reply_text() noexcept;

// Memory for the moments when an allocation must not fail. Two reserves are held between calls
// and released by the allocation-failure handler (std::set_new_handler) while a call runs:
//  - the retry reserve, released at the first failure, after which the allocation is retried:
//    it serves small allocations that cannot fail softly -- nlohmann::json's destructor allocates
//    the stack it destroys a value with, and a destructor cannot throw;
//  - the throw reserve, released just before the handler throws std::bad_alloc: room for the
//    exception object (Emscripten's __cxa_allocate_exception mallocs it unchecked, so a throw
//    into a full heap would build it at address 0) and for destructors that allocate while the
//    exception unwinds.
// Returns false when the reserves cannot be held (the heap is full before the call starts: the
// call then fails at once with out_of_memory). Residual risk, documented in README "Security and
// limits": a JSON value with more than kRetryReserveBytes / 16 entries destroyed at the exact
// moment the heap is full still ends in std::terminate.
constexpr size_t kRetryReserveBytes = size_t{64} << 10;
constexpr size_t kThrowReserveBytes = size_t{16} << 10;
bool hold_reserves() noexcept;

// A T made with new (std::nothrow) between the reserves, as every handle is (the wasm module's
// and the addon's): they are held before (a failing `new` releases them) and taken back after.
// Null when memory ran out, which the bindings hand to JavaScript as null (out of memory).
template <class T>
T* new_between_reserves() {
    if (!hold_reserves()) return nullptr;
    T* p = new (std::nothrow) T();
    (void)hold_reserves();
    return p;
}

// The try/catch of guarded(), out of line: run(body) is the call's body. One copy of the handlers
// for every entry point instead of one per guarded() instantiation (issue 30: 17 of them).
int guarded_call(const char* what, Status (*run)(void*), void* body) noexcept;

// Runs body() -> Status; an exception becomes a reply naming `what` (static text).
template <class Body>
int guarded(const char* what, Body&& body) noexcept {
#if defined(__cpp_exceptions)
    using Pointer = std::add_pointer_t<std::remove_reference_t<Body>>;
    return guarded_call(
        what, [](void* b) -> Status { return (*static_cast<Pointer>(b))(); },
        const_cast<void*>(static_cast<const void*>(&body)));
#else
    return reply(body());
#endif
}

}  // namespace simdformer::entry
