// Checkpoint: the tensors of one safetensors file or of a sharded checkpoint (several files
// tied together by model.safetensors.index.json), read through ByteSources.
//
// Opening reads only the headers. Tensor data is read on request, a bounded chunk at a time
// (LoadOptions::chunk_bytes): F32 straight into the caller's buffer, other dtypes through one
// reused staging buffer and converted. A progress callback sees the bytes read and may cancel.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simdformer/io.h"
#include "simdformer/io/safetensors.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

class Checkpoint : public WeightReader {
public:
    // `shards` must outlive the checkpoint. index_json is the text of
    // model.safetensors.index.json or empty; with an index, every tensor of its weight_map must
    // be in the shard it names. Non-safetensors files (pytorch_model.bin, ...) are unsupported.
    static Result<Checkpoint> open(const std::vector<CheckpointShard>& shards, const std::string& index_json,
                                   const LoadOptions& options = {});

    const TensorInfo* find(const std::string& name) const override;
    std::vector<const TensorInfo*> tensor_list() const override;
    Status read_f32(const TensorInfo& t, uint64_t first, size_t n, float* dst) override;
    Status read_i8(const TensorInfo& t, uint64_t first, size_t n, int8_t* dst) override;
    size_t chunk_floats() const override { return chunk_bytes_ / sizeof(float); }

    const std::vector<TensorInfo>& tensors() const { return tensors_; }  // sorted by name
    const std::string& shard_name(size_t shard) const { return shards_[shard].name; }
    // "__metadata__" of the first shard: a value, or "" when absent; and all of it.
    std::string metadata(const std::string& key) const;
    const std::map<std::string, std::string>& all_metadata() const { return metadata_; }
    // Any float tensor converted to float32, as stored (non-finite values allowed; not marked used).
    Result<Buffer> read(const TensorInfo& t);
    // Data bytes of all tensors (what a full load reads), and bytes read so far.
    uint64_t total_bytes() const { return total_bytes_; }
    uint64_t bytes_read() const { return bytes_read_; }
    // Ends progress reporting at 100 % (the loader calls it when every tensor it needs is read).
    Status report_done();

protected:
    // Sources owned by the checkpoint (SafetensorsFile keeps its MemorySource here).
    std::vector<std::unique_ptr<ByteSource>> owned_;

private:
    Status read_bytes(const TensorInfo& t, uint64_t offset, size_t n, uint8_t* dst);
    Status progress();

    std::vector<CheckpointShard> shards_;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, size_t> index_;
    std::map<std::string, std::string> metadata_;
    size_t chunk_bytes_ = size_t{1} << 20;
    Buffer staging_;  // [chunk_bytes_ / 4] floats, viewed as bytes for non-F32 dtypes
    LoadProgress progress_ = nullptr;
    void* progress_user_ = nullptr;
    uint64_t total_bytes_ = 0, bytes_read_ = 0;
};

// A single safetensors file already in memory (the bytes must outlive it).
class SafetensorsFile : public Checkpoint {
public:
    static Result<SafetensorsFile> parse(const uint8_t* data, size_t size);
};

}  // namespace simdformer
