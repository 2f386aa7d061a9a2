// Status and Result<T>: how every fallible simdformer call reports what went wrong.
// The core never throws and never aborts on bad input; the message names the tensor, the
// dimension and both values so a user can act on it (JS receives it as an Error message).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace simdformer {

enum class StatusCode {
    kOk = 0,
    kInvalidArgument,  // a value is out of its allowed range (NaN input, unknown option, ...)
    kShapeMismatch,    // two sizes that must agree do not
    kUnsupported,      // well-formed but not something simdformer implements (e.g. dtype I8)
    kIoError,          // a file or byte buffer is malformed or truncated
    kOutOfMemory,      // an allocation failed or would exceed a limit
    kCancelled,        // the caller stopped the operation (a load's progress callback said no)
    kBusy,             // the object is in use: a decoding is in progress on the model's workspace
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

    static Status ok() { return {}; }
    static Status invalid(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
    static Status shape(std::string m) { return {StatusCode::kShapeMismatch, std::move(m)}; }
    static Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
    static Status io(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
    static Status oom(std::string m) { return {StatusCode::kOutOfMemory, std::move(m)}; }

    bool is_ok() const { return code_ == StatusCode::kOk; }
    StatusCode code() const { return code_; }
    const std::string& message() const { return message_; }

    // Prefixes the message with where the problem was found ("layers.1.norm2.weight: ...").
    Status with_context(const std::string& where) const {
        return is_ok() ? *this : Status(code_, where + ": " + message_);
    }

private:
    StatusCode code_ = StatusCode::kOk;
    std::string message_;
};

// One piece of a message for cat(): text, or an integer written as std::to_string writes it.
// A char is refused (it would be a number here, a character in std::string's operator+).
class StrPiece {
public:
    StrPiece(const char* s) : view_(s) {}                             // NOLINT: implicit on purpose
    StrPiece(const std::string& s) : view_(s) {}                      // NOLINT
    StrPiece(std::string_view s) : view_(s) {}                        // NOLINT
    StrPiece(char) = delete;
    StrPiece(int v) : StrPiece(static_cast<long long>(v)) {}          // NOLINT
    StrPiece(long v) : StrPiece(static_cast<long long>(v)) {}         // NOLINT
    StrPiece(long long v);                                            // NOLINT
    StrPiece(unsigned v) : StrPiece(static_cast<unsigned long long>(v)) {}       // NOLINT
    StrPiece(unsigned long v) : StrPiece(static_cast<unsigned long long>(v)) {}  // NOLINT
    StrPiece(unsigned long long v);                                   // NOLINT
    StrPiece(const StrPiece&) = delete;  // view_ may point into digits_
    StrPiece& operator=(const StrPiece&) = delete;
    std::string_view view() const { return view_; }

private:
    char digits_[24];
    std::string_view view_;
};

// The pieces joined: cat({"tensor '", name, "' has ", n, " rows"}). One call and one allocation
// where `"tensor '" + name + "' has " + std::to_string(n) + " rows"` makes a temporary string,
// and in wasm an unwinding cleanup, per `+`: the error messages are most of the code that only
// ever runs on bad input (issue 30).
std::string cat(std::initializer_list<StrPiece> pieces);

// A value or the Status explaining why there is none.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}                      // NOLINT: implicit on purpose
    Result(Status status) : status_(std::move(status)) {}              // NOLINT: implicit on purpose

    bool is_ok() const { return value_.has_value(); }
    const Status& status() const { return status_; }
    T& value() & { return *value_; }
    const T& value() const& { return *value_; }
    T&& value() && { return std::move(*value_); }

private:
    std::optional<T> value_;
    Status status_;
};

}  // namespace simdformer

#define SF_RETURN_IF_ERROR(expr)                     \
    do {                                             \
        ::simdformer::Status sf_status_ = (expr);    \
        if (!sf_status_.is_ok()) return sf_status_;  \
    } while (0)

#define SF_CONCAT_INNER(a, b) a##b
#define SF_CONCAT(a, b) SF_CONCAT_INNER(a, b)
// SF_ASSIGN_OR_RETURN(auto x, make_x()); returns the Status if make_x() failed.
#define SF_ASSIGN_OR_RETURN(lhs, expr)                                         \
    auto SF_CONCAT(sf_result_, __LINE__) = (expr);                             \
    if (!SF_CONCAT(sf_result_, __LINE__).is_ok())                              \
        return SF_CONCAT(sf_result_, __LINE__).status();                       \
    lhs = std::move(SF_CONCAT(sf_result_, __LINE__)).value()
