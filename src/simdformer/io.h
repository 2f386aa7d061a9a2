// Where model bytes come from (ByteSource: memory, files, or anything that can copy a byte
// range), plus safetensors description and writing. Loading models from them is in model.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/status.h"

namespace simdformer {

// A tensor shape, outermost dimension first.
using Shape = std::vector<size_t>;

// "[2, 3]"
std::string shape_string(const Shape& shape);

// A readable sequence of bytes, read a range at a time, so a checkpoint is never copied whole
// into memory: the loader pulls the header, then each tensor (or a chunk of its rows), straight
// into the buffers it ends up in. Offsets are 64-bit even where size_t is 32-bit (wasm).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    virtual uint64_t size() const = 0;
    // Copies exactly the bytes [offset, offset + n) to dst, or fails naming the source.
    virtual Status read(uint64_t offset, size_t n, uint8_t* dst) = 0;
};

// io_error unless [offset, offset + n) lies inside a source of `size` bytes (for implementers).
Status check_range(uint64_t offset, uint64_t n, uint64_t size, const std::string& what);

// Bytes already in memory (not owned: they must outlive the source).
class MemorySource : public ByteSource {
public:
    MemorySource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint64_t size() const override { return size_; }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override;

private:
    const uint8_t* data_;
    size_t size_;
};

// A file on disk, read with seek + read (native programs; wasm only with a file system).
class FileSource : public ByteSource {
public:
    static Result<FileSource> open(const std::string& path);
    FileSource(FileSource&& other) noexcept;
    FileSource& operator=(FileSource&& other) noexcept;
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    ~FileSource() override;

    uint64_t size() const override { return size_; }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override;
    const std::string& path() const { return path_; }

private:
    FileSource() = default;
    void* file_ = nullptr;  // std::FILE*
    uint64_t size_ = 0;
    std::string path_;
};

// Called while a checkpoint loads with (user, bytes read so far, bytes of all tensors); return
// false to cancel the load (it then fails with StatusCode::kCancelled).
using LoadProgress = bool (*)(void* user, uint64_t loaded, uint64_t total);

// How linear layers keep their weights: float32, or int8 per output channel (quantized as they
// load; a checkpoint's pre-quantized I8 weights load as int8 either way).
enum class WeightFormat { kF32, kInt8 };

struct LoadOptions {
    WeightFormat weights = WeightFormat::kF32;  // "weights": "f32" | "int8"
    LoadProgress progress = nullptr;
    void* progress_user = nullptr;
    // Largest single read of tensor data, and the size of the one conversion buffer: weights
    // stream in chunks of this size straight into their final (packed) buffers.
    size_t chunk_bytes = size_t{1} << 20;
};

// Reads load options from JSON text ("" = defaults): {"weights": "f32" | "int8", "chunkBytes": N}.
// Unknown keys and values are errors.
Status parse_load_options(const std::string& json, LoadOptions* options);

// One file of a checkpoint: its name (as in model.safetensors.index.json) and its bytes.
struct CheckpointShard {
    std::string name;
    ByteSource* source = nullptr;  // not owned
};

// A JSON description of a safetensors file: {"tensors": [{"name", "dtype", "shape"}...],
// "metadata": {...}, "parameters": N}, or the parse error.
Result<std::string> describe_safetensors(const uint8_t* data, size_t size);

// Serialises float32 tensors as a safetensors file (tests, tools, models built in code).
std::vector<uint8_t> write_safetensors(const std::vector<std::pair<std::string, std::pair<Shape, const float*>>>& tensors,
                                       const std::map<std::string, std::string>& metadata = {});

}  // namespace simdformer
