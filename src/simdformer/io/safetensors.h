// safetensors: 8-byte little-endian header length N, N bytes of JSON header, then the tensor
// data. The header maps each name to {dtype, shape, data_offsets [begin, end)} relative to the
// data section, plus an optional "__metadata__" object of strings.
//
// SafetensorsFile validates the whole header up front (lengths, offsets in range and not
// overlapping, dtype known, byte size = product(shape) * dtype size) and then serves tensors as
// float32, converting F16/BF16/F64 on the fly. It does not own the bytes: they must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "simdformer/io.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

enum class DType { kF32, kF16, kBF16, kF64 };

struct TensorInfo {
    std::string name;
    DType dtype = DType::kF32;
    Shape shape;
    size_t begin = 0, end = 0;  // byte range within the data section
};

const char* dtype_name(DType dtype);

class SafetensorsFile : public WeightReader {
public:
    // Largest JSON header accepted, so a hostile length cannot make the parser allocate GBs.
    static constexpr size_t kMaxHeaderBytes = 16u << 20;

    static Result<SafetensorsFile> parse(const uint8_t* data, size_t size);

    bool has(const std::string& name) const override;
    Result<Buffer> take(const std::string& name, const Shape& shape) override;
    std::vector<std::string> unused() const override;

    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    // Any tensor converted to float32, as stored (non-finite values allowed; not marked used).
    Result<Buffer> read(const TensorInfo& tensor) const;
    // A "__metadata__" value, or "" when absent.
    std::string metadata(const std::string& key) const;
    const std::map<std::string, std::string>& all_metadata() const { return metadata_; }

private:
    const uint8_t* data_ = nullptr;  // start of the data section
    size_t data_size_ = 0;
    std::vector<TensorInfo> tensors_;           // sorted by name
    std::map<std::string, size_t> index_;       // name -> tensors_ index
    std::vector<bool> used_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace simdformer
