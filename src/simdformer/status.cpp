#include "simdformer/status.h"

namespace simdformer {

const char* status_code_name(StatusCode code) {
    switch (code) {
        case StatusCode::kOk: return "ok";
        case StatusCode::kInvalidArgument: return "invalid_argument";
        case StatusCode::kShapeMismatch: return "shape_mismatch";
        case StatusCode::kUnsupported: return "unsupported";
        case StatusCode::kIoError: return "io_error";
        case StatusCode::kOutOfMemory: return "out_of_memory";
        case StatusCode::kCancelled: return "cancelled";
        case StatusCode::kBusy: return "busy";
    }
    return "unknown";
}

namespace {

// Writes the decimal digits of v so that they end at `end`; returns where they begin.
char* write_digits(char* end, unsigned long long v) {
    do {
        *--end = char('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

}  // namespace

StrPiece::StrPiece(unsigned long long v) {
    char* end = digits_ + sizeof digits_;
    const char* begin = write_digits(end, v);
    view_ = std::string_view(begin, size_t(end - begin));
}

StrPiece::StrPiece(long long v) {
    // The magnitude as unsigned: -v overflows for LLONG_MIN.
    const unsigned long long magnitude = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    char* end = digits_ + sizeof digits_;
    char* begin = write_digits(end, magnitude);
    if (v < 0) *--begin = '-';
    view_ = std::string_view(begin, size_t(end - begin));
}

std::string cat(std::initializer_list<StrPiece> pieces) {
    size_t n = 0;
    for (const StrPiece& p : pieces) n += p.view().size();
    std::string s;
    s.reserve(n);
    for (const StrPiece& p : pieces) s.append(p.view().data(), p.view().size());
    return s;
}

}  // namespace simdformer
