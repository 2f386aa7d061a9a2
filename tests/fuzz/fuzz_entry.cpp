// libFuzzer target: the entry points JavaScript calls (bindings/entry/), with the numbers JS can
// pass -- sizes near 2^31 and 2^32, 2^53, negatives, fractions, NaN, infinities -- and addresses
// anywhere in (or just outside) a 1 MiB arena that stands for the wasm memory. Built 64-bit
// (`fuzz` preset) and 32-bit (`fuzz32`: size_t is 32 bits, as in wasm32, so sizes that wrap
// there wrap here). Every call must return a reply without touching memory outside the arena
// (ASan), and afterwards the fixture model must still give its known answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "entry/model_entry.h"
#include "entry/numbers.h"
#include "entry/ops_entry.h"
#include "entry/reply.h"

namespace e = simdformer::entry;

namespace {

constexpr size_t kArenaBytes = size_t{1} << 20;

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
std::string data(const std::string& name) { return std::string(SIMDFORMER_TEST_DATA_DIR) + "/" + name; }
e::Number addr(const void* p) { return e::Number(uintptr_t(p)); }
e::TextArg text(const std::string& s) { return e::TextArg{addr(s.data()), e::Number(s.size())}; }

// Reads the fuzz input front to back; past the end it yields zeros.
struct Reader {
    const uint8_t* p;
    size_t n;
    uint8_t byte() { return n ? (--n, *p++) : 0; }
    // A number as JavaScript could pass it: mostly small sizes, often the boundary values.
    e::Number number() {
        static const double kSpecial[] = {0, 1, 2, 3, 4, 7, 8, 16, 2147483647.0, 2147483648.0, 2147483649.0,
                                          4294967295.0, 4294967296.0, 4294967297.0, 4294967303.0, 4294967312.0,
                                          8589934595.0, 9007199254740992.0, 9007199254740994.0, -1, -0.5, 0.5, 1.5,
                                          std::numeric_limits<double>::quiet_NaN(),
                                          std::numeric_limits<double>::infinity(), 1e300};
        const uint8_t b = byte();
        if (b < 128) return b % 24;
        return kSpecial[b % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
    }
    // An address: inside the arena (aligned or not), at its very end, 0, or far outside it.
    e::Number address(const uint8_t* arena) {
        const uint8_t kind = byte() % 8;
        const size_t offset = (size_t(byte()) << 12 | size_t(byte()) << 4) % kArenaBytes;
        switch (kind) {
            case 0: return 0;
            case 1: return addr(arena + kArenaBytes - 4);
            case 2: return addr(arena + offset + 1);  // misaligned
            case 3: return number();                   // whatever number
            default: return addr(arena + (offset & ~size_t{63}));
        }
    }
    e::Number flag() { return (byte() % 5) == 4 ? 2.0 : double(byte() & 1); }
};

struct Fixture {
    std::vector<uint8_t> seq2seq_bytes, bert_bytes;
    std::string seq2seq_config, bert_config, bert_shards, score = "scaled-dot", normalize = "softmax";
    std::vector<int32_t> src = {3, 4, 5, 6};
    e::ModelEntry seq2seq, bert;
    std::vector<int32_t> expected;
    std::vector<uint8_t> arena = std::vector<uint8_t>(kArenaBytes + 64);
    uint8_t* base = nullptr;  // 64-byte aligned start of the arena

    e::GenerateArgs generate_args() const {
        e::GenerateArgs g;
        g.n_batch = 1;
        g.src.n_seq = 4;
        g.src.tokens = addr(src.data());
        g.max_length = 8;
        g.score = text(score);
        g.normalize = text(normalize);
        return g;
    }
    std::vector<int32_t> generate() {
        if (seq2seq.reserve(2, 16, 16, 1) != 0 || seq2seq.generate(generate_args(), nullptr, nullptr) != 0) return {};
        const simdformer::Workspace* ws = seq2seq.workspace();
        return std::vector<int32_t>(ws->generated(), ws->generated() + ws->generated_length());
    }
};

class BytesReader : public e::ShardReader {
public:
    explicit BytesReader(const std::vector<uint8_t>& b) : b_(b) {}
    bool read(size_t shard, uint64_t offset, size_t n, uint8_t* dst) override {
        if (shard != 0 || offset > b_.size() || n > b_.size() - offset) return false;
        std::memcpy(dst, b_.data() + offset, n);
        return true;
    }

private:
    const std::vector<uint8_t>& b_;
};

Fixture* make_fixture() {
    auto* f = new Fixture;
    f->base = reinterpret_cast<uint8_t*>((uintptr_t(f->arena.data()) + 63) & ~uintptr_t{63});
    f->seq2seq_bytes = read_file(data("seq2seq.safetensors"));
    const auto config = read_file(data("seq2seq.json"));
    f->seq2seq_config.assign(config.begin(), config.end());
    if (f->seq2seq.load(addr(f->seq2seq_bytes.data()), e::Number(f->seq2seq_bytes.size()), text(f->seq2seq_config)) != 0)
        __builtin_trap();
    f->bert_bytes = read_file(data("hf/bert/model.safetensors"));
    const auto bc = read_file(data("hf/bert/config.json"));
    f->bert_config.assign(bc.begin(), bc.end());
    f->bert_shards = "[{\"name\": \"model.safetensors\", \"size\": " + std::to_string(f->bert_bytes.size()) + "}]";
    BytesReader reader(f->bert_bytes);
    if (f->bert.load_checkpoint(text(f->bert_config), text(f->bert_shards), {}, reader, nullptr, nullptr, {}) != 0)
        __builtin_trap();
    f->expected = f->generate();
    if (f->expected.empty()) __builtin_trap();
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t size) {
    static Fixture* f = make_fixture();
    static e::LinearEntry linear;
    Reader in{input, size};
    uint8_t* arena = f->base;
    // The arena's contents come from the input too (floats, ids, masks, JSON bytes).
    // The offset byte is consumed first: the copy takes at most the bytes left after it.
    const size_t at = size_t(in.byte()) << 8;
    const size_t fill = std::min<size_t>(in.n, 4096);
    std::memcpy(arena + at, in.p, fill);
    e::set_arena(uint64_t(uintptr_t(arena)), uint64_t(uintptr_t(arena)) + kArenaBytes);

    for (int op = 0; op < 4 && in.n; ++op) {
        switch (in.byte() % 11) {
            case 0:
                (void)linear.create(in.address(arena), in.address(arena), in.number(), in.number());
                break;
            case 1:
                (void)linear.forward(in.address(arena), in.number(), in.address(arena));
                break;
            case 2: {
                e::AttentionArgs a;
                a.n_seq_q = in.number();
                a.n_seq_k = in.number();
                a.d_k = in.number();
                a.d_v = in.number();
                a.q = in.address(arena);
                a.k = in.address(arena);
                a.v = in.address(arena);
                a.score = e::TextArg{in.address(arena), in.number()};
                a.normalize = text(f->normalize);
                a.additive_dim = in.number();
                a.w_q = in.address(arena);
                a.w_k = in.address(arena);
                a.w_v = in.address(arena);
                a.key_padding = in.address(arena);
                a.attn_mask = in.address(arena);
                a.causal = in.flag();
                a.out = in.address(arena);
                a.weights = in.address(arena);
                (void)e::attention(a);
                break;
            }
            case 3:
                (void)e::layer_norm(in.number(), in.number(), in.address(arena), in.address(arena), in.address(arena),
                                    in.number() + 1e-5, in.address(arena));
                break;
            case 4:
                (void)e::positional_encoding(in.number(), in.number(), in.address(arena));
                break;
            case 5:
                (void)f->seq2seq.reserve(in.number(), in.number(), in.number(), in.flag());
                break;
            case 6: {
                e::GenerateArgs g;
                g.n_batch = in.number();
                g.src.n_seq = in.number();
                g.src.tokens = in.address(arena);
                g.src.key_padding = in.address(arena);
                g.max_length = in.number();
                g.bos = in.number() - 1;
                g.eos = in.number() - 1;
                g.score = text(f->score);
                g.normalize = e::TextArg{in.address(arena), in.number()};
                g.need_weights = in.flag();
                (void)f->seq2seq.generate(g, nullptr, nullptr);
                break;
            }
            case 7: {
                e::ForwardArgs a;
                a.n_batch = in.number();
                a.src.n_seq = in.number();
                a.src.tokens = in.address(arena);
                a.src.key_padding = in.address(arena);
                a.src.attn_mask = in.address(arena);
                a.src.causal = in.flag();
                a.tgt.n_seq = in.number();
                a.tgt.tokens = in.address(arena);
                a.score = text(f->score);
                a.normalize = text(f->normalize);
                a.need_weights = in.flag();
                a.encoder_only = in.flag();
                (void)f->seq2seq.forward(a);
                break;
            }
            case 8: {
                std::string json;
                (void)e::describe_safetensors(in.address(arena), in.number() * 64, &json);
                break;
            }
            case 9: {
                e::TextArgs t;
                t.n_batch = in.number();
                t.n_seq = in.number();
                t.tokens = in.address(arena);
                t.token_types = in.address(arena);
                t.attention_mask = in.address(arena);
                t.need_weights = in.flag();
                t.need_pooler = in.flag();
                t.logits_rows = in.address(arena);
                t.n_logits_rows = in.number();
                t.probe_out = in.address(arena);
                t.probe_layer = in.number();
                (void)f->bert.forward_text(t);
                break;
            }
            case 10: {  // stepwise generation; a decoding may stay in progress for the next ops (busy)
                e::GenerateArgs g;
                g.n_batch = in.number();
                g.src.n_seq = in.number();
                g.src.tokens = in.address(arena);
                g.max_length = in.number();
                g.bos = in.number() - 1;
                g.eos = in.number() - 1;
                g.score = text(f->score);
                g.normalize = text(f->normalize);
                g.need_weights = in.flag();
                (void)f->seq2seq.generate_begin(g);
                for (int step = in.byte() % 4; step > 0 && !f->seq2seq.decode_done(); --step) (void)f->seq2seq.decode_step();
                if (in.byte() & 1) (void)f->seq2seq.generate_finish();
                if (in.byte() & 1) f->seq2seq.decode_end();
                break;
            }
        }
    }
    // The fixture's own inputs live outside the arena.
    e::set_arena(1, UINTPTR_MAX);
    f->seq2seq.decode_end();  // a decoding left in progress ends here
    if (f->generate() != f->expected) __builtin_trap();
    return 0;
}
