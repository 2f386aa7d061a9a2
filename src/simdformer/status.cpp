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
    }
    return "unknown";
}

}  // namespace simdformer
