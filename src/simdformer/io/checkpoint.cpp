#include "simdformer/io/checkpoint.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "simdformer/io/json_limits.h"

namespace simdformer {
namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Files that are checkpoints, but not safetensors: recognised by name or by their first bytes.
Status check_is_safetensors(const CheckpointShard& shard) {
    static const char* const foreign[] = {".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".gguf", ".onnx", ".pkl"};
    for (const char* ext : foreign)
        if (ends_with(shard.name, ext))
            return Status::unsupported(cat({"'", shard.name, "' is not a safetensors file; simdformer reads only "
                                            "safetensors checkpoints (model.safetensors, or shards with "
                                            "model.safetensors.index.json)"}));
    uint8_t magic[4] = {};
    if (shard.source->size() >= 4) SF_RETURN_IF_ERROR(shard.source->read(0, 4, magic));
    if (std::memcmp(magic, "PK\x03\x04", 4) == 0)
        return Status::unsupported(cat({"'", shard.name, "' is a zip archive (a PyTorch .bin/.pt checkpoint), not "
                                        "safetensors; simdformer reads only safetensors checkpoints"}));
    if (std::memcmp(magic, "GGUF", 4) == 0)
        return Status::unsupported(cat({"'", shard.name, "' is a GGUF file, not safetensors"}));
    return Status::ok();
}

// weight_map: tensor name -> shard file name, from model.safetensors.index.json.
Result<std::map<std::string, std::string>> parse_index(const std::string& text) {
    SF_RETURN_IF_ERROR(check_json_limits(text, "model.safetensors.index.json"));
    ParsedJson parsed;
    parse_json(text, &parsed);
    const json& j = parsed.value;
    if (j.is_discarded() || !j.is_object()) return Status::io("model.safetensors.index.json is not a JSON object");
    auto wm = j.find("weight_map");
    if (wm == j.end() || !wm->is_object())
        return Status::io("model.safetensors.index.json has no \"weight_map\" object");
    std::map<std::string, std::string> map;
    for (auto it = wm->begin(); it != wm->end(); ++it) {
        if (!it->is_string())
            return Status::io(cat({"model.safetensors.index.json: weight_map entry '", it.key(), "' is not a file name"}));
        map[it.key()] = it->get<std::string>();
    }
    return map;
}

}  // namespace

Result<Checkpoint> Checkpoint::open(const std::vector<CheckpointShard>& shards, const std::string& index_json,
                                    const LoadOptions& options) {
    if (shards.empty())
        return Status::io("no weights file: expected model.safetensors (or model.safetensors.index.json and its shards)");
    if (options.chunk_bytes < 64 || options.chunk_bytes > (size_t{1} << 30))
        return Status::invalid(cat({"chunk_bytes=", options.chunk_bytes, " must be in [64, 2^30]"}));
    Checkpoint c;
    c.shards_ = shards;
    c.chunk_bytes_ = options.chunk_bytes / 8 * 8;  // whole elements of every dtype
    c.set_linear_weights(options.weights);
    c.progress_ = options.progress;
    c.progress_user_ = options.progress_user;
    std::map<std::string, size_t> shard_of_name;
    for (size_t s = 0; s < shards.size(); ++s) {
        const CheckpointShard& shard = shards[s];
        if (!shard.source) return Status::invalid(cat({"checkpoint file '", shard.name, "' has no bytes"}));
        if (!shard_of_name.emplace(shard.name, s).second)
            return Status::invalid(cat({"checkpoint file '", shard.name, "' is given twice"}));
        SF_RETURN_IF_ERROR(check_is_safetensors(shard));
        auto header = read_safetensors_header(*shard.source, s);
        if (!header.is_ok()) return header.status().with_context(cat({"'", shard.name, "' (", shard.source->size(), " bytes)"}));
        if (s == 0) c.metadata_ = header.value().metadata;
        for (TensorInfo& t : header.value().tensors) {
            auto [it, fresh] = c.index_.emplace(t.name, c.tensors_.size());
            if (!fresh)
                return Status::io(cat({"tensor '", t.name, "' is in both '", shards[c.tensors_[it->second].shard].name,
                                       "' and '", shard.name, "'"}));
            c.total_bytes_ += t.bytes;
            c.tensors_.push_back(std::move(t));
        }
    }
    sort_by_name(c.tensors_);
    for (size_t i = 0; i < c.tensors_.size(); ++i) c.index_[c.tensors_[i].name] = i;

    if (!index_json.empty()) {
        SF_ASSIGN_OR_RETURN(auto weight_map, parse_index(index_json));
        for (const auto& [name, file] : weight_map) {
            auto s = shard_of_name.find(file);
            if (s == shard_of_name.end())
                return Status::io(cat({"model.safetensors.index.json puts '", name, "' in '", file,
                                       "', which was not given"}));
            const TensorInfo* t = c.find(name);
            if (!t || t->shard != s->second)
                return Status::io(cat({"model.safetensors.index.json puts '", name, "' in '", file,
                                       "', which does not hold it"}));
        }
    }
    return c;
}

const TensorInfo* Checkpoint::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

std::vector<const TensorInfo*> Checkpoint::tensor_list() const {
    std::vector<const TensorInfo*> all;
    for (const TensorInfo& t : tensors_) all.push_back(&t);
    return all;
}

std::string Checkpoint::metadata(const std::string& key) const {
    auto it = metadata_.find(key);
    return it == metadata_.end() ? std::string() : it->second;
}

Status Checkpoint::progress() {
    if (progress_ && !progress_(progress_user_, std::min(bytes_read_, total_bytes_), total_bytes_))
        return Status(StatusCode::kCancelled, "loading was cancelled by the progress callback");
    return Status::ok();
}

Status Checkpoint::report_done() {
    bytes_read_ = std::max(bytes_read_, total_bytes_);
    return progress();
}

Status Checkpoint::read_bytes(const TensorInfo& t, uint64_t offset, size_t n, uint8_t* dst) {
    const Status st = shards_[t.shard].source->read(offset, n, dst);
    if (!st.is_ok()) return st.with_context(cat({"tensor '", t.name, "' in '", shards_[t.shard].name, "'"}));
    bytes_read_ += n;
    return progress();
}

Status Checkpoint::read_i8(const TensorInfo& t, uint64_t first, size_t n, int8_t* dst) {
    if (t.dtype != DType::kI8)
        return Status::unsupported(cat({"tensor '", t.name, "' has dtype ", dtype_name(t.dtype), ", not I8"}));
    if (first > t.elements || n > t.elements - first)
        return Status::invalid(cat({"tensor '", t.name, "': elements out of range"}));
    for (size_t done = 0; done < n;) {  // straight into dst, in reads of at most chunk_bytes_
        const size_t count = std::min(chunk_bytes_, n - done);
        SF_RETURN_IF_ERROR(read_bytes(t, t.offset + first + done, count, reinterpret_cast<uint8_t*>(dst + done)));
        done += count;
    }
    return Status::ok();
}

Status Checkpoint::read_f32(const TensorInfo& t, uint64_t first, size_t n, float* dst) {
    if (!dtype_is_float(t.dtype))
        return Status::unsupported(cat({"tensor '", t.name, "' has dtype ", dtype_name(t.dtype), ", not a float type"}));
    if (first > t.elements || n > t.elements - first)
        return Status::invalid(cat({"tensor '", t.name, "': elements out of range"}));
    const size_t esize = dtype_size(t.dtype);
    const size_t per_chunk = chunk_bytes_ / esize;  // elements per source read
    if (t.dtype != DType::kF32 && staging_.empty()) {
        SF_ASSIGN_OR_RETURN(staging_, Buffer::uninitialized(chunk_bytes_ / sizeof(float), "checkpoint staging"));
    }
    for (size_t done = 0; done < n;) {
        const size_t count = std::min(per_chunk, n - done);
        const uint64_t offset = t.offset + (first + done) * esize;
        if (t.dtype == DType::kF32) {
            SF_RETURN_IF_ERROR(read_bytes(t, offset, count * 4, reinterpret_cast<uint8_t*>(dst + done)));
        } else {
            uint8_t* bytes = reinterpret_cast<uint8_t*>(staging_.data());
            SF_RETURN_IF_ERROR(read_bytes(t, offset, count * esize, bytes));
            convert_to_f32(t.dtype, bytes, count, dst + done);
        }
        done += count;
    }
    return Status::ok();
}

Result<Buffer> Checkpoint::read(const TensorInfo& t) {
    if (t.elements > kMaxBufferFloats)
        return Status::oom(cat({"tensor '", t.name, "' of ", t.elements, " elements is too large"}));
    SF_ASSIGN_OR_RETURN(Buffer b, Buffer::uninitialized(size_t(t.elements), t.name.c_str()));
    SF_RETURN_IF_ERROR(read_f32(t, 0, b.size(), b.data()));
    return b;
}

Result<SafetensorsFile> SafetensorsFile::parse(const uint8_t* data, size_t size) {
    if (!data) size = 0;
    auto source = std::make_unique<MemorySource>(data, size);
    SF_ASSIGN_OR_RETURN(Checkpoint c, Checkpoint::open({{"model.safetensors", source.get()}}, ""));
    SafetensorsFile f;
    static_cast<Checkpoint&>(f) = std::move(c);
    f.owned_.push_back(std::move(source));
    return f;
}

}  // namespace simdformer
