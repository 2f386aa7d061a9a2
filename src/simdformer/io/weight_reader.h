// WeightReader: where layers get their tensors. A reader knows each tensor's dtype, shape and
// location (TensorInfo) and converts any range of its elements to float32 on request, so a
// layer can stream a large weight in row chunks straight into its final (packed) buffer.
// Checkpoints (safetensors, one or several shards) are one implementation; tests use an
// in-memory map. Names come from the architecture adapters (arch/); readers only look them up.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "simdformer/buffer.h"
#include "simdformer/io.h"
#include "simdformer/io/dtype.h"
#include "simdformer/status.h"

namespace simdformer {

struct TensorInfo {
    std::string name;
    DType dtype = DType::kF32;
    Shape shape;
    uint64_t elements = 0;  // product of shape
    size_t shard = 0;       // which source of the checkpoint holds it
    uint64_t offset = 0;    // absolute byte offset of the first element in that source
    uint64_t bytes = 0;     // elements * dtype_size(dtype)

    // Elements per row: the product of every dimension after the first (1 for 0-d and 1-d).
    uint64_t row_elements() const;
    uint64_t rows() const { return shape.empty() ? 1 : shape[0]; }
};

class WeightReader {
public:
    virtual ~WeightReader() = default;

    virtual const TensorInfo* find(const std::string& name) const = 0;
    // Every tensor, sorted by name.
    virtual std::vector<const TensorInfo*> tensor_list() const = 0;
    // dst [n] = float32 elements [first, first + n) of `t` (a floating-point tensor of this reader).
    virtual Status read_f32(const TensorInfo& t, uint64_t first, size_t n, float* dst) = 0;
    // dst [n] = elements [first, first + n) of an I8 tensor (pre-quantized linear weights).
    virtual Status read_i8(const TensorInfo& t, uint64_t first, size_t n, int8_t* dst);
    // Largest number of floats a streaming consumer should stage at once.
    virtual size_t chunk_floats() const { return size_t{1} << 18; }  // 1 MiB

    // How Linear layers keep float weights they load (LoadOptions::weights).
    WeightFormat linear_weights() const { return linear_weights_; }
    void set_linear_weights(WeightFormat w) { linear_weights_ = w; }

    bool has(const std::string& name) const { return find(name) != nullptr; }

    // The tensor `name` with exactly `shape`: a missing tensor or a wrong shape is an error that
    // names the tensor and both shapes; integer tensors are an error too.
    Result<const TensorInfo*> expect(const std::string& name, const Shape& shape) const;
    // Rows [row0, row0 + n_rows) (along the first dimension) as float32 into dst, checked
    // finite (a non-finite value is an error naming the tensor and the element).
    Status read_rows(const TensorInfo& t, size_t row0, size_t n_rows, float* dst);
    // The whole tensor `name` of `shape` in a new Buffer, finite; marks it used.
    Result<Buffer> take(const std::string& name, const Shape& shape);

    // Marks a tensor as consumed and adds `parameters` to the parameter count (the caller says
    // how many, so slices of a fused tensor add up to it and tied weights count once).
    void mark_used(const TensorInfo& t, size_t parameters);
    // Marks a tensor the model deliberately does not use (buffers, heads it ignores).
    void ignore(const std::string& name);
    // Names of tensors nobody took or ignored (a loader reports them as unexpected).
    std::vector<std::string> unused() const;
    // Parameters counted by mark_used() so far (the model's parameter count).
    size_t elements_taken() const { return elements_taken_; }

private:
    std::set<std::string> used_;
    size_t elements_taken_ = 0;
    WeightFormat linear_weights_ = WeightFormat::kF32;
};

// In-memory float32 tensors (tests, and models built from random weights).
class MapWeightReader : public WeightReader {
public:
    void put(const std::string& name, Shape shape, std::vector<float> data);
    void put_i8(const std::string& name, Shape shape, std::vector<int8_t> data);
    const TensorInfo* find(const std::string& name) const override;
    std::vector<const TensorInfo*> tensor_list() const override;
    Status read_f32(const TensorInfo& t, uint64_t first, size_t n, float* dst) override;
    Status read_i8(const TensorInfo& t, uint64_t first, size_t n, int8_t* dst) override;

private:
    struct Entry {
        TensorInfo info;
        std::vector<float> data;
        std::vector<int8_t> i8;  // I8 tensors
    };
    std::map<std::string, Entry> tensors_;
};

}  // namespace simdformer
