// WeightReader: where layers take their named float tensors from. The safetensors loader is
// one implementation; tests use an in-memory map. A layer asks for a tensor by its PyTorch
// state_dict name and expected shape, and gets either the data or a Status naming the problem.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "simdformer/buffer.h"
#include "simdformer/io.h"
#include "simdformer/status.h"

namespace simdformer {

class WeightReader {
public:
    virtual ~WeightReader() = default;
    virtual bool has(const std::string& name) const = 0;
    // The tensor `name` converted to float32; a wrong shape is an error naming both shapes.
    // Each tensor is marked as used, so a loader can report tensors nobody asked for.
    virtual Result<Buffer> take(const std::string& name, const Shape& shape) = 0;
    // Names of tensors nobody took (a loader reports them as unexpected).
    virtual std::vector<std::string> unused() const = 0;
    // Elements handed out by take() so far (the model's parameter count).
    size_t elements_taken() const { return elements_taken_; }

protected:
    size_t elements_taken_ = 0;
};

// In-memory tensors (tests, and models built from random weights).
class MapWeightReader : public WeightReader {
public:
    void put(const std::string& name, Shape shape, std::vector<float> data);
    bool has(const std::string& name) const override;
    Result<Buffer> take(const std::string& name, const Shape& shape) override;
    std::vector<std::string> unused() const override;

private:
    struct Entry {
        Shape shape;
        std::vector<float> data;
        bool used = false;
    };
    std::map<std::string, Entry> tensors_;
};

}  // namespace simdformer
