// Status and Result<T>: how every fallible simdformer call reports what went wrong.
// The core never throws and never aborts on bad input; the message names the tensor, the
// dimension and both values so a user can act on it (JS receives it as an Error message).
#pragma once

#include <optional>
#include <string>
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
