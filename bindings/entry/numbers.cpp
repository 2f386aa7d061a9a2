#include "numbers.h"

#include <cmath>

#include "simdformer/io/number_text.h"

namespace simdformer::entry {
namespace {

// wasm: narrowed further to the memory's current size by arena().
Arena g_arena{1, UINT64_MAX};

std::string str(uint64_t v) { return std::to_string(v); }

}  // namespace

Arena arena() {
#if defined(__wasm__)
    // The memory only grows, so an array inside it stays inside for the rest of the call.
    const uint64_t memory_end = uint64_t(__builtin_wasm_memory_size(0)) * 65536u;
    return Arena{g_arena.begin, g_arena.end < memory_end ? g_arena.end : memory_end};
#else
    return g_arena;
#endif
}

void set_arena(uint64_t begin, uint64_t end) { g_arena = Arena{begin, end}; }

std::string js_text(Number v) { return number_text(v); }

Status integer(Number v, const char* what, uint64_t lo, uint64_t hi, uint64_t* out) {
    // Compared as doubles first: converting NaN, infinities or values >= 2^64 to an integer type
    // is undefined behaviour.
    if (!(v >= double(lo) && v <= double(hi) && v == std::floor(v)))
        return Status::invalid(cat({what, " must be an integer in [", str(lo), ", ", str(hi), "], not ",
                                    js_text(v)}));
    *out = uint64_t(v);
    return Status::ok();
}

Status size(Number v, const char* what, uint64_t lo, uint64_t hi, size_t* out) {
    uint64_t u = 0;
    SF_RETURN_IF_ERROR(integer(v, what, lo, hi < kMaxSize ? hi : kMaxSize, &u));
    *out = size_t(u);
    return Status::ok();
}

Status flag(Number v, const char* what, bool* out) {
    if (v != 0 && v != 1) return Status::invalid(cat({what, " must be true or false"}));
    *out = v == 1;
    return Status::ok();
}

Status product(std::initializer_list<uint64_t> factors, const char* what, uint64_t limit, uint64_t* out) {
    uint64_t p = 1;
    bool overflow = false;
    for (uint64_t f : factors) {
        if (f != 0 && p > UINT64_MAX / f) overflow = true;
        else p *= f;
    }
    if (overflow || p > limit) {
        std::string text;
        for (uint64_t f : factors) text += (text.empty() ? "" : " x ") + str(f);
        return Status::oom(cat({what, ": ", text, (overflow ? " overflows" : " exceeds the limit of " + str(limit))}));
    }
    *out = p;
    return Status::ok();
}

Status array(Number address, uint64_t count, size_t element_size, size_t align, const char* what, bool optional,
             void** out) {
    uint64_t a = 0;
    SF_RETURN_IF_ERROR(integer(address, (std::string(what) + " address").c_str(), 0, kMaxExactInteger, &a));
    if (a == 0) {
        if (!optional) return Status::invalid(cat({what, " is missing"}));
        *out = nullptr;
        return Status::ok();
    }
    if (a % align != 0) return Status::invalid(cat({what, " address ", str(a), " is not aligned to ", str(align)}));
    uint64_t bytes = 0;
    SF_RETURN_IF_ERROR(product({count, element_size}, what, kMaxArrayBytes, &bytes));
    const Arena m = arena();
    // a <= 2^53 and bytes < 2^32: the sum cannot overflow 64 bits.
    if (a < m.begin || a > m.end || bytes > m.end - a)
        return Status::invalid(cat({what, ": ", str(bytes), " bytes at address ", str(a),
                                    " are outside the memory [", str(m.begin), ", ", str(m.end), ")"}));
    *out = reinterpret_cast<void*>(uintptr_t(a));
    return Status::ok();
}

Status text(const TextArg& t, const char* what, uint64_t max_bytes, std::string_view* out) {
    size_t n = 0;
    SF_RETURN_IF_ERROR(size(t.length, (std::string(what) + " length").c_str(), 0, max_bytes, &n));
    if (n == 0) {
        *out = std::string_view();
        return Status::ok();
    }
    const char* p = nullptr;
    SF_RETURN_IF_ERROR(array_of(t.ptr, n, what, false, &p));
    *out = std::string_view(p, n);
    return Status::ok();
}

std::string quoted(std::string_view text) {
    std::string out = "'";
    for (size_t i = 0; i < text.size() && i < 40; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            out.append("\\x").append(1, "0123456789abcdef"[c >> 4]).append(1, "0123456789abcdef"[c & 15]);
        } else {
            out += char(c);
        }
    }
    return out + (text.size() > 40 ? "...'" : "'");
}

}  // namespace simdformer::entry
