// Numbers, addresses and texts from JavaScript, checked before anything uses them.
//
// Embind converts a JS number to size_t or int by truncating it modulo 2^32 (wasm32), so
// 2^32 + 5 would arrive as 5 and 1.5 as 1. Every size and address therefore crosses as a double
// (`Number`) and is checked here as an exact integer in its range BEFORE any arithmetic. Byte
// counts of arrays are products computed in 64 bits with overflow checks, and every array must
// lie inside the memory JS can address: the wasm memory, or natively the arena a test or fuzzer
// declares. Messages name the argument and its value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "simdformer/status.h"

namespace simdformer::entry {

using Number = double;  // a JavaScript number exactly as it crossed the boundary

constexpr uint64_t kMaxExactInteger = uint64_t{1} << 53;  // every integer up to 2^53 is exact
// The largest value a size may have, on every platform: wasm32's size_t (2^32 - 1). Native
// 64-bit builds apply the same limit, so the 32- and 64-bit fuzz builds test the same rules.
constexpr uint64_t kMaxSize = (uint64_t{1} << 32) - 1;
// The largest array (in bytes) a call may name: wasm32's whole address space.
constexpr uint64_t kMaxArrayBytes = kMaxSize;

// Where addresses may point: [begin, end).
struct Arena {
    uint64_t begin = 0, end = 0;
};
// What set_arena() declared (default: the whole address space, for programs that pass their own
// pointers); in wasm also cut at the memory's current size.
Arena arena();
// Tests and fuzzers (the module never calls it): addresses outside [begin, end) are rejected.
// fuzz_entry needs it in wasm too (wasm-asan): there every address in the memory is otherwise
// valid, and its random addresses would write over the fuzzer's own heap.
void set_arena(uint64_t begin, uint64_t end);

// v as JavaScript prints a number (NaN, Infinity, 4294967301, 1.5): simdformer::number_text.
std::string js_text(Number v);

// "<what> must be an integer in [lo, hi], not <v>": v is an exact integer in [lo, hi]
// (hi <= 2^53). A NaN, an infinity, a fraction, a negative or a value above hi is an error.
Status integer(Number v, const char* what, uint64_t lo, uint64_t hi, uint64_t* out);
// The same for a size: hi <= kMaxSize, so the value fits size_t everywhere.
Status size(Number v, const char* what, uint64_t lo, uint64_t hi, size_t* out);
// A boolean crosses as exactly 0 or 1 (the glue maps true/false; anything else is NaN).
Status flag(Number v, const char* what, bool* out);

// The product of `factors` in 64 bits: "<what>: 65536 x 65537 x 4 overflows" when it does not
// fit, or when it exceeds `limit`.
Status product(std::initializer_list<uint64_t> factors, const char* what, uint64_t limit, uint64_t* out);

// An array of `count` elements of `element_size` bytes at `address` (0 = absent: allowed only
// when `optional`). The address is an exact integer, a multiple of `align`, and
// [address, address + count * element_size) lies inside the arena.
Status array(Number address, uint64_t count, size_t element_size, size_t align, const char* what, bool optional,
             void** out);

template <class T>
Status array_of(Number address, uint64_t count, const char* what, bool optional, T** out) {
    void* p = nullptr;
    SF_RETURN_IF_ERROR(array(address, count, sizeof(T), alignof(T), what, optional, &p));
    *out = static_cast<T*>(p);
    return Status::ok();
}

// UTF-8 text in wasm memory: the JS wrapper encodes a string into a buffer it allocated and
// passes its address and byte length.
struct TextArg {
    Number ptr = 0, length = 0;
};
// The text's bytes (length 0: an empty view, the address may be 0), at most max_bytes long.
Status text(const TextArg& t, const char* what, uint64_t max_bytes, std::string_view* out);

// A short, printable rendering of user bytes for messages: quoted, control bytes escaped,
// cut at 40 bytes.
std::string quoted(std::string_view text);

}  // namespace simdformer::entry
