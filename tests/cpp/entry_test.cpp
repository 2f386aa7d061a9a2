// The entry points JavaScript calls (bindings/entry/), natively and in wasm: every size an exact
// integer checked in range before use (2^31 - 1, 2^31, 2^32, 2^32 + k, 2^53, negatives, fractions,
// NaN), arrays inside memory, and every allocation failure an out_of_memory reply after which
// the same call gives the same answer bit for bit and nothing stays allocated.
//
// In the 32-bit builds (native32-asan, wasm) size_t is 32 bits, so these are exactly the sizes
// that used to wrap.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#if defined(__GLIBC__) && !defined(__wasm__)
#include <dlfcn.h>
#include <execinfo.h>
#endif
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "entry/model_entry.h"
#include "entry/numbers.h"
#include "entry/ops_entry.h"
#include "entry/reply.h"
#include "simdformer/threads.h"
#include "test_util.h"

// ---- allocation failure, two models ------------------------------------------------------------
// The global operator new/delete are replaced. Once armed at allocation n (counted from arming):
//  - kHeapFull: from allocation n on the heap is full, as wasm's is at its limit. An allocation
//    succeeds only from memory freed since (every operator delete gives its bytes back);
//    otherwise operator new calls the new_handler and tries again, exactly as the real one does
//    when malloc returns null, and throws std::bad_alloc when there is no handler. The entry
//    points' reserves (bindings/entry/reply.h) go through the same operators, so the model
//    sees them being released.
//  - kOneLargeFailure: allocation n is larger than anything the heap can give (the common real
//    case: a weight or workspace allocation), so it fails however often the handler runs; every
//    other allocation succeeds. Allocations made by destructors are skipped (the next one
//    fails instead): nlohmann::json's destructor allocates and a destructor cannot fail softly;
//    in reality it is small and served by the retry reserve, which kHeapFull exercises.
// (Buffer memory comes from aligned_alloc and is outside both models: tests/js/oom.test.mjs
// fills the real wasm heap for that.)
namespace {
enum class FailMode { kHeapFull, kOneLargeFailure };
FailMode g_mode = FailMode::kHeapFull;
long g_countdown = -1;  // allocations until the failure; < 0: disarmed
bool g_full = false;    // kHeapFull: the heap is full; kOneLargeFailure: the failure happened
size_t g_room = 0;      // kHeapFull: bytes freed since the heap became full
long g_failures = 0;    // allocations that did not fit since arming

#if defined(__GLIBC__) && !defined(__wasm__)
// Whether the allocation being made was requested from a destructor (a frame named ~X, or
// nlohmann's json_value::destroy). The test binary is linked with -rdynamic for the names.
bool in_destructor() {
    void* frames[64];
    const int n = backtrace(frames, 64);
    for (int i = 1; i < n; ++i) {
        Dl_info info;
        if (!dladdr(frames[i], &info) || !info.dli_sname) continue;
        const std::string_view name(info.dli_sname);
        if (name.find("json_value7destroy") != std::string_view::npos) return true;
        for (const char* suffix : {"D0Ev", "D1Ev", "D2Ev"})
            if (name.size() >= 4 && name.substr(name.size() - 4) == suffix) return true;
    }
    return false;
}
constexpr bool kCanFindDestructors = true;
#else
bool in_destructor() { return false; }
constexpr bool kCanFindDestructors = false;
#endif

void fail_until_handler_throws() {
    for (;;) {
        ++g_failures;
        const std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}
}  // namespace

void* operator new(size_t n) {
    if (g_countdown >= 0 && !g_full) {
        if (g_mode == FailMode::kOneLargeFailure) {
            if (g_countdown == 0 && !in_destructor()) {
                g_full = true;
                g_countdown = -1;
                fail_until_handler_throws();
            }
            if (g_countdown > 0) --g_countdown;
        } else if (g_countdown-- == 0) {
            g_full = true;
            g_room = 0;
        }
    }
    if (g_full && g_mode == FailMode::kHeapFull) {
        while (n > g_room) {
            ++g_failures;
            const std::new_handler handler = std::get_new_handler();
            if (!handler) throw std::bad_alloc();
            handler();
        }
        g_room -= n;
    }
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    if (g_full && g_mode == FailMode::kHeapFull && p) g_room += malloc_usable_size(p);
    std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }
// The nothrow forms go through the ones above, as the standard library's do: otherwise a
// sanitizer's own nothrow new would hand out memory that the replaced delete frees (the entry
// layer's reserves are taken with nothrow new and released with plain delete).
void* operator new(size_t n, const std::nothrow_t&) noexcept {
    try {
        return operator new(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }

namespace simdformer::test {
namespace {

using entry::Number;
using entry::TextArg;

constexpr double k2_31 = 2147483648.0, k2_32 = 4294967296.0, k2_53 = 9007199254740992.0;
const double kNaN = std::numeric_limits<double>::quiet_NaN(), kInf = std::numeric_limits<double>::infinity();

// Sizes that are not sizes: each must be rejected wherever a size is taken.
const double kBadSizes[] = {-1, -0.5, 0.5, 1.5, k2_32, k2_32 + 1, k2_32 + 5, k2_32 + 16, 2 * k2_32 + 3, k2_53, k2_53 + 2,
                            1e300, kNaN, kInf, -kInf};

Number addr(const void* p) { return Number(uintptr_t(p)); }
TextArg text(const std::string& s) { return TextArg{addr(s.data()), Number(s.size())}; }
std::string reply_code() {
    const std::string r = entry::reply_text();
    return r.substr(0, r.find('\t'));
}

// Arms one of the two failure models at allocation n (0-based) until the end of the scope.
struct FailAllocation {
    FailAllocation(FailMode mode, long n) {
        g_mode = mode;
        g_failures = 0;
        g_full = false;
        g_countdown = n;
    }
    ~FailAllocation() {
        g_countdown = -1;
        g_full = false;
    }
    // The failure was reached during the scope (false: the call made fewer allocations).
    bool happened() const { return g_full; }
    // Some allocation did not fit at first (kHeapFull: the reserves were released for it).
    bool struck() const { return g_failures > 0; }
};

TEST(EntryNumbers, SizesAreExactIntegersInRange) {
    size_t out = 7;
    for (double v : kBadSizes) {
        EXPECT_FALSE(entry::size(v, "n", 0, entry::kMaxSize, &out).is_ok()) << v;
        EXPECT_EQ(out, 7u) << "a rejected size is never stored";
    }
    for (double v : {0.0, 1.0, k2_31 - 1, k2_31, k2_32 - 1}) {
        SF_ASSERT_OK(entry::size(v, "n", 0, entry::kMaxSize, &out));
        EXPECT_EQ(double(out), v);
    }
    const Status st = entry::size(k2_32 + 5, "nBatch", 1, entry::kMaxSize, &out);
    EXPECT_EQ(st.message(), "nBatch must be an integer in [1, 4294967295], not 4294967301");
    bool b = false;
    for (double v : {2.0, -1.0, 0.5, kNaN}) EXPECT_FALSE(entry::flag(v, "causal", &b).is_ok());
}

TEST(EntryNumbers, ArraysAreInsideTheArenaWithoutOverflow) {
    std::vector<float> buffer(16);
    const entry::Arena saved = entry::arena();
    const uint64_t lo = uintptr_t(buffer.data()), hi = lo + buffer.size() * sizeof(float);
#if !defined(__wasm__)
    entry::set_arena(lo, hi);
#endif
    float* p = nullptr;
    SF_ASSERT_OK(entry::array_of(addr(buffer.data()), 16, "x", false, &p));
    EXPECT_EQ(p, buffer.data());
    SF_ASSERT_OK(entry::array_of(0, 16, "x", true, &p));
    EXPECT_EQ(p, nullptr);
    EXPECT_FALSE(entry::array_of(0, 16, "x", false, &p).is_ok()) << "a required array may not be absent";
    EXPECT_FALSE(entry::array_of(addr(buffer.data()) + 2, 1, "x", false, &p).is_ok()) << "misaligned";
    // Counts whose byte size wraps in 32 or 64 bits, or leaves the memory.
    for (uint64_t count : {uint64_t(1) << 30, uint64_t(1) << 31, uint64_t(1) << 32, (uint64_t(1) << 62) + 1, ~uint64_t(0)})
        EXPECT_FALSE(entry::array_of(addr(buffer.data()), count, "x", false, &p).is_ok()) << count;
    // Addresses that are not exact integers inside the memory (checked while the arena is the
    // 64-byte buffer: natively the default arena is the whole 64-bit address space).
    for (double a : kBadSizes) EXPECT_FALSE(entry::array_of(a, 1, "x", true, &p).is_ok()) << a;
#if !defined(__wasm__)
    EXPECT_FALSE(entry::array_of(addr(buffer.data()), 17, "x", false, &p).is_ok()) << "one past the arena";
    EXPECT_FALSE(entry::array_of(addr(buffer.data()) - 64, 1, "x", false, &p).is_ok()) << "before the arena";
    entry::set_arena(saved.begin, saved.end);
#else
    (void)saved;
    (void)hi;
#endif
    uint64_t n = 0;
    EXPECT_EQ(entry::product({65536, 65537, 4}, "y", entry::kMaxArrayBytes, &n).code(), StatusCode::kOutOfMemory);
    EXPECT_EQ(entry::product({~uint64_t(0), 2}, "y", ~uint64_t(0), &n).code(), StatusCode::kOutOfMemory);
}

// The Linear of issue 12: in=1, out=65536 and 16385 rows is 2^32 + 2^16 output floats.
TEST(EntryLinear, EverySizeChecked_AndTheLayerStillRightAfterwards) {
    const size_t in = 3, out = 5;
    const auto w = random_vector(in * out, 1), b = random_vector(out, 2), x = random_vector(2 * in, 3);
    entry::LinearEntry layer;
    ASSERT_EQ(layer.create(addr(w.data()), addr(b.data()), in, out), 0) << entry::reply_text();
    std::vector<float> y(2 * out), want(2 * out);
    ASSERT_EQ(layer.forward(addr(x.data()), 2, addr(want.data())), 0) << entry::reply_text();
    for (double rows : kBadSizes) {
        EXPECT_NE(layer.forward(addr(x.data()), rows, addr(y.data())), 0) << rows;
        ASSERT_EQ(layer.forward(addr(x.data()), 2, addr(y.data())), 0);
        EXPECT_EQ(0, std::memcmp(y.data(), want.data(), y.size() * sizeof(float))) << "after rows=" << rows;
    }
    for (double n : kBadSizes) {
        entry::LinearEntry bad;
        EXPECT_NE(bad.create(addr(w.data()), 0, n, out), 0) << n;
        EXPECT_NE(bad.create(addr(w.data()), 0, in, n), 0) << n;
    }
    // 2^31 and 2^32 - 1 are sizes, but the arrays they describe do not fit in memory.
    entry::LinearEntry wide;
    const std::vector<float> w1(65536, 0.5f);
    ASSERT_EQ(wide.create(addr(w1.data()), 0, 1, 65536), 0) << entry::reply_text();
    std::vector<float> x1(16385, 1.0f), y1(4);
    EXPECT_NE(wide.forward(addr(x1.data()), 16385, addr(y1.data())), 0);
    EXPECT_EQ(reply_code(), "out_of_memory") << entry::reply_text();
    for (double rows : {k2_31 - 1, k2_31, k2_32 - 1}) EXPECT_NE(wide.forward(addr(x1.data()), rows, addr(y1.data())), 0);
    // NaN input is rejected in C++ too (the JS wrapper checks first).
    std::vector<float> nan_x = x;
    nan_x[4] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(layer.forward(addr(nan_x.data()), 2, addr(y.data())), 0);
    EXPECT_NE(std::string(entry::reply_text()).find("non-finite"), std::string::npos) << entry::reply_text();
}

TEST(EntryOps, AttentionLayerNormPositionalRejectWrappingSizes) {
    const auto q = random_vector(4 * 2, 4), k = random_vector(3 * 2, 5), v = random_vector(3 * 2, 6);
    std::vector<float> out(4 * 2), w(4 * 3);
    const std::string score = "scaled-dot", normalize = "softmax";
    entry::AttentionArgs a;
    a.n_seq_q = 4;
    a.n_seq_k = 3;
    a.d_k = 2;
    a.d_v = 2;
    a.q = addr(q.data());
    a.k = addr(k.data());
    a.v = addr(v.data());
    a.score = text(score);
    a.normalize = text(normalize);
    a.out = addr(out.data());
    a.weights = addr(w.data());
    ASSERT_EQ(entry::attention(a), 0) << entry::reply_text();
    const std::vector<float> want = out;
    for (Number entry::AttentionArgs::*field : {&entry::AttentionArgs::n_seq_q, &entry::AttentionArgs::n_seq_k,
                                                &entry::AttentionArgs::d_k, &entry::AttentionArgs::d_v}) {
        for (double bad : kBadSizes) {
            entry::AttentionArgs b = a;
            b.*field = bad;
            EXPECT_NE(entry::attention(b), 0) << bad;
        }
        for (double big : {k2_31 - 1, k2_31, k2_32 - 1}) {  // sizes, but of arrays larger than memory
            entry::AttentionArgs b = a;
            b.*field = big;
            EXPECT_NE(entry::attention(b), 0) << big;
        }
    }
    const std::string unknown = "toString", nul = std::string("softmax\0", 8);
    entry::AttentionArgs b = a;
    b.score = text(unknown);
    EXPECT_NE(entry::attention(b), 0);
    EXPECT_EQ(std::string(entry::reply_text()),
              "invalid_argument\tunknown score 'toString' (expected scaled-dot, dot, additive)");
    b = a;
    b.normalize = text(nul);
    EXPECT_NE(entry::attention(b), 0) << "a trailing NUL is not the same name";
    ASSERT_EQ(entry::attention(a), 0);
    EXPECT_EQ(out, want);

    std::vector<float> x(6, 0.5f), gamma(3, 1.0f), beta(3, 0.0f), y(6);
    for (double bad : kBadSizes) {
        EXPECT_NE(entry::layer_norm(bad, 3, addr(x.data()), addr(gamma.data()), addr(beta.data()), 1e-5, addr(y.data())), 0);
        EXPECT_NE(entry::layer_norm(2, bad, addr(x.data()), addr(gamma.data()), addr(beta.data()), 1e-5, addr(y.data())), 0);
        EXPECT_NE(entry::positional_encoding(bad, 2, addr(y.data())), 0);
    }
    EXPECT_NE(entry::layer_norm(2, 3, addr(x.data()), addr(gamma.data()), addr(beta.data()), 1e300, addr(y.data())), 0)
        << "eps that float32 cannot hold";
    EXPECT_NE(entry::positional_encoding(k2_31, 2, addr(y.data())), 0);
    EXPECT_EQ(reply_code(), "out_of_memory");
}

// A loaded seq2seq model (nn.Transformer dialect) and the answer it gives before any abuse.
struct Seq2Seq {
    entry::ModelEntry e;
    std::vector<int32_t> src = {3, 4, 5, 6};
    std::string score = "scaled-dot", normalize = "softmax";
    std::vector<int32_t> expected;

    Seq2Seq() {
        const auto bytes = read_file(data_path("seq2seq.safetensors"));
        const std::string config = read_text(data_path("seq2seq.json"));
        EXPECT_EQ(e.load(addr(bytes.data()), Number(bytes.size()), text(config)), 0) << entry::reply_text();
        EXPECT_EQ(e.reserve(2, 8, 8, 0), 0) << entry::reply_text();
        expected = generate();
    }
    entry::GenerateArgs args() const {
        entry::GenerateArgs g;
        g.n_batch = 1;
        g.src.n_seq = Number(src.size());
        g.src.tokens = addr(src.data());
        g.max_length = 8;
        g.score = text(score);
        g.normalize = text(normalize);
        return g;
    }
    std::vector<int32_t> generate() {
        const entry::GenerateArgs g = args();
        if (e.generate(g, nullptr, nullptr) != 0) return {};
        const Workspace* ws = e.workspace();
        return std::vector<int32_t>(ws->generated(), ws->generated() + ws->generated_length());
    }
};

TEST(EntryModel, GenerateArgumentsNearTheBoundary) {
    Seq2Seq m;
    ASSERT_FALSE(m.expected.empty()) << entry::reply_text();
    using G = entry::GenerateArgs;
    for (Number G::*field : {&G::n_batch, &G::max_length, &G::bos, &G::eos}) {
        for (double bad : {k2_31 - 1, k2_31, k2_32, k2_32 + 3, -2.0, 1.5, kNaN, k2_53 + 2}) {
            G g = m.args();
            g.*field = bad;
            EXPECT_NE(m.e.generate(g, nullptr, nullptr), 0) << bad;
            EXPECT_EQ(m.generate(), m.expected) << "after " << bad;
        }
    }
    for (double bad : kBadSizes) {
        G g = m.args();
        g.src.n_seq = bad;
        EXPECT_NE(m.e.generate(g, nullptr, nullptr), 0) << bad;
        EXPECT_NE(m.e.reserve(bad, 8, 8, 0), 0) << bad;
        EXPECT_NE(m.e.reserve(1, bad, 8, 0), 0) << bad;
        EXPECT_EQ(m.generate(), m.expected) << "after " << bad;
    }
    // bos = 2^32 + 3 used to arrive as 3.
    G g = m.args();
    g.bos = k2_32 + 3;
    EXPECT_NE(m.e.generate(g, nullptr, nullptr), 0);
    EXPECT_EQ(std::string(entry::reply_text()), "invalid_argument\tbos must be an integer in [0, 2147483647], not 4294967299");
    // A workspace too large for memory is out_of_memory, and the model keeps working.
    EXPECT_NE(m.e.reserve(k2_32 - 1, 16, 16, 1), 0);
    EXPECT_EQ(reply_code(), "out_of_memory") << entry::reply_text();
    EXPECT_EQ(std::string(entry::reply_text()).find("(0 MiB)"), std::string::npos) << entry::reply_text();
    ASSERT_EQ(m.e.reserve(2, 8, 8, 0), 0) << entry::reply_text();
    EXPECT_EQ(m.generate(), m.expected);
}

TEST(EntryModel, ConfigSizesAtOrAbove2To32AreErrorsNotWrapped) {
    const auto bytes = read_file(data_path("seq2seq.safetensors"));
    std::string config = read_text(data_path("seq2seq.json"));
    for (const char* key : {"\"num_encoder_layers\": 2", "\"d_model\": 16", "\"max_len\": 16", "\"vocab_size\": 11"}) {
        for (const char* big : {"4294967298", "4294967312", "4294967312.0", "18446744073709551616", "-4294967294"}) {
            std::string c = config;
            const std::string k(key);
            c.replace(c.find(k), k.size(), k.substr(0, k.find(':') + 2) + big);
            entry::ModelEntry e;
            EXPECT_NE(e.load(addr(bytes.data()), Number(bytes.size()), text(c)), 0) << k << " = " << big;
            EXPECT_FALSE(e.loaded());
        }
    }
}

TEST(EntryModel, JsonNestingIsBoundedBeforeParsing) {
    const auto bytes = read_file(data_path("seq2seq.safetensors"));
    std::string config = read_text(data_path("seq2seq.json"));
    config.insert(config.rfind('}'), ", \"name\": " + std::string(100000, '[') + std::string(100000, ']'));
    entry::ModelEntry e;
    EXPECT_NE(e.load(addr(bytes.data()), Number(bytes.size()), text(config)), 0);
    EXPECT_NE(std::string(entry::reply_text()).find("nested deeper than 64"), std::string::npos) << entry::reply_text();
}

// A failed call replies out_of_memory; a call that fit in what was left gives the right answer
// (checked by the caller). Returns whether the call failed.
bool failed_cleanly(int rc, FailMode mode, long n) {
    if (rc == 0) {
        EXPECT_EQ(mode, FailMode::kHeapFull) << "allocation " << n << " failed for good, yet the call succeeded";
        return false;
    }
    EXPECT_EQ(reply_code(), "out_of_memory") << "allocation " << n << ": " << entry::reply_text();
    return true;
}

// For every allocation n of a load, a generate, infoJson and a description in turn, the failure
// model strikes at n. Each call fails with out_of_memory or, when it fit in what the reserves and
// its own frees left, gives the right answer; nothing stays allocated, and the next call gives
// the answer the first one gave.
void every_allocation_of_a_load_and_calls(FailMode mode) {
    const auto bytes = read_file(data_path("seq2seq.safetensors"));
    const std::string config = read_text(data_path("seq2seq.json"));
    Seq2Seq reference;
    ASSERT_FALSE(reference.expected.empty());
    const size_t live = Buffer::live_bytes();
    long failures = 0, tried = 0, struck = 0;
    for (long n = 0;; n += 1 + n / 32, ++tried) {  // every allocation early on, then a growing stride
        entry::ModelEntry e;
        int rc;
        {
            FailAllocation fail(mode, n);
            rc = e.load(addr(bytes.data()), Number(bytes.size()), text(config));
            if (!fail.happened()) {
                ASSERT_EQ(rc, 0) << entry::reply_text();
                break;
            }
            struck += fail.struck();
        }
        if (!failed_cleanly(rc, mode, n)) {
            ASSERT_EQ(e.reserve(2, 8, 8, 0), 0) << entry::reply_text();
            continue;
        }
        ++failures;
        EXPECT_FALSE(e.loaded());
        EXPECT_EQ(Buffer::live_bytes(), live) << "allocation " << n;
    }
    EXPECT_GT(tried, 50) << "the load allocates; the failure struck at each allocation";
    // kOneLargeFailure: every load failed. kHeapFull: small models' loads mostly fit in the
    // reserves, which were released for allocations that did not fit.
    if (mode == FailMode::kOneLargeFailure) EXPECT_EQ(failures, tried);
    EXPECT_EQ(struck, tried);
    long n = 0;

    Seq2Seq m;
    const size_t live_with_m = Buffer::live_bytes();
    std::string want_info;
    ASSERT_EQ(m.e.info_json(&want_info), 0);
    for (n = 0;; ++n) {
        int rc;
        std::string info;
        {
            FailAllocation fail(mode, n);
            rc = m.e.info_json(&info);
            if (!fail.happened()) break;
        }
        if (!failed_cleanly(rc, mode, n)) EXPECT_EQ(info, want_info);
    }
    EXPECT_GT(n, 0);
    for (n = 0;; ++n) {
        const entry::GenerateArgs g = m.args();
        int rc;
        {
            FailAllocation fail(mode, n);
            rc = m.e.generate(g, nullptr, nullptr);
            if (!fail.happened()) break;
        }
        failed_cleanly(rc, mode, n);
        EXPECT_EQ(m.generate(), m.expected) << "after the failure at allocation " << n;
    }
    std::string want_json;
    ASSERT_EQ(entry::describe_safetensors(addr(bytes.data()), Number(bytes.size()), &want_json), 0);
    for (n = 0;; ++n) {
        std::string json;
        int rc;
        {
            FailAllocation fail(mode, n);
            rc = entry::describe_safetensors(addr(bytes.data()), Number(bytes.size()), &json);
            if (!fail.happened()) break;
        }
        if (!failed_cleanly(rc, mode, n)) EXPECT_EQ(json, want_json);
    }
    EXPECT_GT(n, 10);
    EXPECT_EQ(m.generate(), m.expected);
    EXPECT_EQ(Buffer::live_bytes(), live_with_m) << "only m's model and workspace remain";
}

TEST(EntryOutOfMemory, HeapFullAtEveryAllocationOfALoadAndACall) {
    every_allocation_of_a_load_and_calls(FailMode::kHeapFull);
}

TEST(EntryOutOfMemory, EveryAllocationOfALoadAndACallFailsCleanly) {
    if (!kCanFindDestructors) GTEST_SKIP() << "needs glibc's backtrace() to skip allocations made by destructors";
    every_allocation_of_a_load_and_calls(FailMode::kOneLargeFailure);
}

// A Hugging Face checkpoint through load_checkpoint with a shard reader, failing every
// allocation of the load in turn.
class BufferReader : public entry::ShardReader {
public:
    explicit BufferReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
    bool read(size_t shard, uint64_t offset, size_t n, uint8_t* dst) override {
        if (shard != 0 || offset > bytes_.size() || n > bytes_.size() - offset) return false;
        std::memcpy(dst, bytes_.data() + offset, n);
        return true;
    }

private:
    const std::vector<uint8_t>& bytes_;
};

void every_allocation_of_a_checkpoint_load(FailMode mode) {
    const auto bytes = read_file(data_path("hf/bert/model.safetensors"));
    const std::string config = read_text(data_path("hf/bert/config.json"));
    const std::string shards = "[{\"name\": \"model.safetensors\", \"size\": " + std::to_string(bytes.size()) + "}]";
    BufferReader reader(bytes);
    const size_t live = Buffer::live_bytes();
    std::string want;
    {
        entry::ModelEntry e;
        ASSERT_EQ(e.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{}), 0)
            << entry::reply_text();
        ASSERT_EQ(e.info_json(&want), 0);
    }
    long failures = 0, tried = 0;
    for (long n = 0;; n += 1 + n / 64, ++tried) {  // every allocation early on, then a growing stride
        entry::ModelEntry e;
        int rc;
        {
            FailAllocation fail(mode, n);
            rc = e.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{});
            if (!fail.happened()) break;
        }
        if (!failed_cleanly(rc, mode, n)) {
            std::string info;
            ASSERT_EQ(e.info_json(&info), 0);
            EXPECT_EQ(info, want);
            continue;
        }
        ++failures;
        EXPECT_FALSE(e.loaded());
        EXPECT_EQ(Buffer::live_bytes(), live) << "allocation " << n;
    }
    EXPECT_GT(tried, 50);
    if (mode == FailMode::kOneLargeFailure) EXPECT_EQ(failures, tried);
    entry::ModelEntry again;
    ASSERT_EQ(again.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{}), 0);
    std::string info;
    ASSERT_EQ(again.info_json(&info), 0);
    EXPECT_EQ(info, want);
}

TEST(EntryOutOfMemory, HeapFullAtEveryAllocationOfACheckpointLoad) {
    every_allocation_of_a_checkpoint_load(FailMode::kHeapFull);
}

TEST(EntryOutOfMemory, EveryAllocationOfACheckpointLoadFailsCleanly) {
    if (!kCanFindDestructors) GTEST_SKIP() << "needs glibc's backtrace() to skip allocations made by destructors";
    every_allocation_of_a_checkpoint_load(FailMode::kOneLargeFailure);
}

// A header of 100,000 tensors: nlohmann's destructor would need a 1.6 MB stack to destroy its
// DOM, more than the reserves hold. With the heap full at points throughout the parse and
// after it, the call must reply (out_of_memory, or the description when it fit), never end in
// std::terminate: parsed JSON is released bottom-up without allocating (io/json_limits.h).
TEST(EntryOutOfMemory, AHugeHeaderWithTheHeapFullIsAReplyNotATerminate) {
    std::string header = "{";
    for (int i = 0; i < 100000; ++i)
        header += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
    header += "}";
    std::vector<uint8_t> file(8);
    for (int i = 0; i < 8; ++i) file[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
    file.insert(file.end(), header.begin(), header.end());
    std::string want;
    ASSERT_EQ(entry::describe_safetensors(addr(file.data()), Number(file.size()), &want), 0) << entry::reply_text();
    long oom = 0;
    for (long n : {1000L, 100000L, 400000L, 900000L, 1500000L}) {
        std::string json;
        int rc;
        {
            FailAllocation fail(FailMode::kHeapFull, n);
            rc = entry::describe_safetensors(addr(file.data()), Number(file.size()), &json);
        }
        if (rc == 0) EXPECT_EQ(json, want);
        else EXPECT_EQ(reply_code(), "out_of_memory") << entry::reply_text();
        oom += rc != 0;
    }
    EXPECT_GT(oom, 2);
    std::string json;
    ASSERT_EQ(entry::describe_safetensors(addr(file.data()), Number(file.size()), &json), 0);
    EXPECT_EQ(json, want);
}

TEST(EntryCheckpoint, ShardListsAreExactlyTheContract) {
    const auto bytes = read_file(data_path("hf/bert/model.safetensors"));
    const std::string config = read_text(data_path("hf/bert/config.json"));
    BufferReader reader(bytes);
    // Shard lists that are not what the contract says.
    for (const std::string bad : {"[]", "{}", "[{\"name\": 1, \"size\": 2}]", "[{\"name\": \"a\", \"size\": 1.5}]",
                                  "[{\"name\": \"a\", \"size\": -1}]", "[{\"name\": \"a\", \"size\": 9007199254740994}]",
                                  "[{\"name\": \"a\", \"size\": 1, \"x\": 2}]", "not json"}) {
        entry::ModelEntry e;
        EXPECT_NE(e.load_checkpoint(text(config), text(bad), TextArg{}, reader, nullptr, nullptr, TextArg{}), 0) << bad;
    }
}

// GPT-2 decoding driven step by step (decode_begin, decode_step, decode_end) as generateText
// drives it: every DecodeArgs number checked before use, and while a decoding is in progress
// every call that would reuse the workspace is 'busy' and leaves the decoding undisturbed.
struct Gpt2 {
    entry::ModelEntry e;
    std::vector<uint8_t> bytes = read_file(data_path("hf/gpt2/model.safetensors"));
    std::vector<int32_t> prompt = {5, 6, 7, 8, 9, 10};  // [2, 3]
    std::vector<int32_t> stop = {1056};
    std::vector<int32_t> expected;

    Gpt2() {
        const std::string config = read_text(data_path("hf/gpt2/config.json"));
        const std::string shards = "[{\"name\": \"model.safetensors\", \"size\": " + std::to_string(bytes.size()) + "}]";
        BufferReader reader(bytes);
        EXPECT_EQ(e.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{}), 0)
            << entry::reply_text();
        expected = decode();
    }
    entry::DecodeArgs args() const {
        entry::DecodeArgs a;
        a.n_batch = 2;
        a.n_seq = 3;
        a.tokens = addr(prompt.data());
        a.max_new_tokens = 4;
        a.stop_tokens = addr(stop.data());
        a.n_stop_tokens = 1;
        return a;
    }
    // Every step's tokens, [steps, 2]; empty on any failure.
    std::vector<int32_t> decode() {
        std::vector<int32_t> tokens;
        if (e.decode_begin(args()) != 0) return {};
        while (!e.decode_done()) {
            if (e.decode_step() != 0) break;
            const int32_t* t = e.workspace()->step_tokens();
            tokens.insert(tokens.end(), t, t + 2);
        }
        e.decode_end();
        return tokens;
    }
};

TEST(EntryDecode, EveryNumberCheckedAndTheDecodingStillRightAfterwards) {
    Gpt2 m;
    ASSERT_EQ(m.expected.size(), 8u) << entry::reply_text();
    using D = entry::DecodeArgs;
    for (Number D::*field : {&D::n_batch, &D::n_seq, &D::max_new_tokens, &D::top_k, &D::n_stop_tokens}) {
        for (double bad : kBadSizes) {
            D a = m.args();
            a.*field = bad;
            EXPECT_NE(m.e.decode_begin(a), 0) << bad;
            EXPECT_FALSE(m.e.decode_done());
            EXPECT_EQ(m.decode(), m.expected) << "after " << bad;
        }
    }
    // Addresses (natively every aligned integer address is inside the default arena; the
    // arena's own bounds are EntryNumbers' test): not integers, negative, or misaligned.
    for (Number D::*field : {&D::tokens, &D::stop_tokens}) {
        for (double bad : {-1.0, -0.5, 0.5, 1.5, k2_53 + 2, 1e300, kNaN, kInf, -kInf, m.args().*field + 2}) {
            D a = m.args();
            a.*field = bad;
            EXPECT_NE(m.e.decode_begin(a), 0) << bad;
            EXPECT_EQ(m.decode(), m.expected) << "after " << bad;
        }
    }
    for (double bad : {-2.0, 1.5, k2_31, k2_32 + 3, k2_53 + 2, kNaN}) {  // -1: the default
        D a = m.args();
        a.pad_token = bad;
        EXPECT_NE(m.e.decode_begin(a), 0) << bad;
    }
    for (double bad : {-1.0, 1.5, k2_53 + 2, kNaN, kInf}) {  // seeds are integers up to 2^53
        D a = m.args();
        a.seed = bad;
        EXPECT_NE(m.e.decode_begin(a), 0) << bad;
    }
    for (double bad : {kNaN, kInf, -kInf}) {
        D a = m.args();
        a.temperature = bad;
        EXPECT_NE(m.e.decode_begin(a), 0) << bad;
        a = m.args();
        a.top_p = bad;
        EXPECT_NE(m.e.decode_begin(a), 0) << bad;
    }
    // nSeq + maxNewTokens beyond 2^32 - 1, and a value the core rejects after the workspace grew.
    D a = m.args();
    a.max_new_tokens = k2_32 - 2;
    EXPECT_NE(m.e.decode_begin(a), 0);
    EXPECT_EQ(std::string(entry::reply_text()), "invalid_argument\tnSeq + maxNewTokens = 4294967297 exceeds 4294967295");
    a = m.args();
    a.temperature = -1;
    EXPECT_NE(m.e.decode_begin(a), 0);
    EXPECT_EQ(m.decode(), m.expected);
    // No decoding in progress: steps and finish are errors, not crashes.
    EXPECT_NE(m.e.decode_step(), 0);
    EXPECT_NE(m.e.generate_finish(), 0);
    EXPECT_EQ(m.e.step_attention(kNaN), nullptr);
    EXPECT_EQ(m.e.step_attention(k2_32), nullptr);
}

TEST(EntryDecode, CallsDuringADecodingAreBusyAndLeaveItUndisturbed) {
    Gpt2 m;
    ASSERT_EQ(m.expected.size(), 8u) << entry::reply_text();
    ASSERT_EQ(m.e.decode_begin(m.args()), 0) << entry::reply_text();
    ASSERT_EQ(m.e.decode_step(), 0) << entry::reply_text();
    std::vector<int32_t> tokens(m.e.workspace()->step_tokens(), m.e.workspace()->step_tokens() + 2);
    entry::TextArgs t;
    t.n_batch = 1;
    t.n_seq = 3;
    t.tokens = addr(m.prompt.data());
    EXPECT_NE(m.e.forward_text(t), 0);
    EXPECT_EQ(reply_code(), "busy") << entry::reply_text();
    EXPECT_NE(m.e.decode_begin(m.args()), 0);
    EXPECT_EQ(reply_code(), "busy");
    EXPECT_NE(m.e.reserve(1, 4, 4, 0), 0);
    EXPECT_EQ(reply_code(), "busy");
    const std::string config = read_text(data_path("hf/gpt2/config.json"));
    const std::string shards = "[{\"name\": \"model.safetensors\", \"size\": " + std::to_string(m.bytes.size()) + "}]";
    BufferReader reader(m.bytes);
    EXPECT_NE(m.e.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{}), 0);
    EXPECT_EQ(reply_code(), "busy");
    EXPECT_EQ(std::string(entry::reply_text()), "busy\tloadCheckpoint: the model is decoding; call decodeEnd first");
    while (!m.e.decode_done()) {
        ASSERT_EQ(m.e.decode_step(), 0) << entry::reply_text();
        tokens.insert(tokens.end(), m.e.workspace()->step_tokens(), m.e.workspace()->step_tokens() + 2);
    }
    m.e.decode_end();
    EXPECT_EQ(tokens, m.expected);
    EXPECT_EQ(m.e.forward_text(t), 0) << entry::reply_text();
}

// The encoder-decoder steps (generate_begin, decode_step, generate_finish) give generate()'s tokens.
TEST(EntryDecode, GenerateStepsEqualGenerate) {
    Seq2Seq m;
    ASSERT_FALSE(m.expected.empty()) << entry::reply_text();
    ASSERT_EQ(m.e.generate_begin(m.args()), 0) << entry::reply_text();
    EXPECT_NE(m.e.reserve(2, 8, 8, 0), 0);
    EXPECT_EQ(reply_code(), "busy");
    while (!m.e.decode_done()) ASSERT_EQ(m.e.decode_step(), 0) << entry::reply_text();
    ASSERT_EQ(m.e.generate_finish(), 0) << entry::reply_text();
    const Workspace* ws = m.e.workspace();
    EXPECT_EQ(std::vector<int32_t>(ws->generated(), ws->generated() + ws->generated_length()), m.expected);
    m.e.decode_end();
    EXPECT_EQ(m.generate(), m.expected);
}

// forwardText's probe (TextRequest::probe_out [4, B * n, d_model], probe_layer).
TEST(EntryDecode, TextProbeChecked) {
    Gpt2 m;
    std::vector<float> probe(4 * 3 * 32, -1.0f);
    entry::TextArgs t;
    t.n_batch = 1;
    t.n_seq = 3;
    t.tokens = addr(m.prompt.data());
    t.probe_out = addr(probe.data());
    for (double bad : kBadSizes) {
        entry::TextArgs b = t;
        b.probe_layer = bad;
        EXPECT_NE(m.e.forward_text(b), 0) << bad;
    }
    for (double bad : {-1.0, -0.5, 0.5, 1.5, k2_53 + 2, 1e300, kNaN, kInf, -kInf}) {
        entry::TextArgs b = t;
        b.probe_out = bad;
        EXPECT_NE(m.e.forward_text(b), 0) << bad;
    }
    entry::TextArgs b = t;
    b.probe_out = addr(probe.data()) + 2;  // not aligned for f32
    EXPECT_NE(m.e.forward_text(b), 0);
    b.probe_layer = 99;
    b.probe_out = t.probe_out;
    EXPECT_NE(m.e.forward_text(b), 0);
    EXPECT_EQ(reply_code(), "invalid_argument") << entry::reply_text();
    ASSERT_EQ(m.e.forward_text(t), 0) << entry::reply_text();
    EXPECT_NE(probe.back(), -1.0f) << "the probe's last value (the context of the last token) was written";
}

// forwardText's needClassifier and needTokenLogits: checked as every flag, and the heads' logits
// are the workspace's.
TEST(EntryModel, TextClassifierFlagCheckedAndItsLogitsMatchTheReference) {
    const auto load = [](entry::ModelEntry& e, const std::string& folder) {
        const std::vector<uint8_t> bytes = read_file(data_path("hf/" + folder + "/model.safetensors"));
        const std::string config = read_text(data_path("hf/" + folder + "/config.json"));
        const std::string shards = "[{\"name\": \"model.safetensors\", \"size\": " + std::to_string(bytes.size()) + "}]";
        BufferReader reader(bytes);
        return e.load_checkpoint(text(config), text(shards), TextArg{}, reader, nullptr, nullptr, TextArg{});
    };
    entry::ModelEntry e;
    ASSERT_EQ(load(e, "bert_seqcls"), 0) << entry::reply_text();
    const Golden g = load_golden("hf/bert_seqcls/golden.safetensors");
    const std::vector<int32_t> ids = g.tokens("input_ids"), types = g.tokens("token_type_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    const size_t B = g.shapes.at("input_ids")[0];
    entry::TextArgs t;
    t.n_batch = double(B);
    t.n_seq = double(g.shapes.at("input_ids")[1]);
    t.tokens = addr(ids.data());
    t.token_types = addr(types.data());
    t.attention_mask = addr(mask.data());
    for (double bad : {2.0, -1.0, 0.5, kNaN}) {
        entry::TextArgs b = t;
        b.need_classifier = bad;
        EXPECT_NE(e.forward_text(b), 0) << bad;
        EXPECT_EQ(reply_code(), "invalid_argument") << entry::reply_text();
    }
    ASSERT_EQ(e.forward_text(t), 0) << entry::reply_text();
    EXPECT_EQ(e.workspace()->classifier_logits(), nullptr) << "not asked for";
    t.need_classifier = 1;
    ASSERT_EQ(e.forward_text(t), 0) << entry::reply_text();
    ASSERT_NE(e.workspace()->classifier_logits(), nullptr);
    EXPECT_LT(max_abs_diff(e.workspace()->classifier_logits(), g.at("classifier_logits").data(), B * 3), 1e-4);
    entry::ModelEntry bare;
    ASSERT_EQ(load(bare, "bert"), 0) << entry::reply_text();
    EXPECT_NE(bare.forward_text(t), 0);
    EXPECT_EQ(reply_code(), "unsupported") << entry::reply_text();

    // needTokenLogits on a token classifier: checked as every flag; the head on every token.
    entry::ModelEntry tok;
    ASSERT_EQ(load(tok, "bert_tokcls"), 0) << entry::reply_text();
    const Golden gt = load_golden("hf/bert_tokcls/golden.safetensors");
    const std::vector<int32_t> tids = gt.tokens("input_ids"), ttypes = gt.tokens("token_type_ids");
    const std::vector<uint8_t> tmask = gt.mask("attention_mask");
    entry::TextArgs r;
    r.n_batch = double(gt.shapes.at("input_ids")[0]);
    r.n_seq = double(gt.shapes.at("input_ids")[1]);
    r.tokens = addr(tids.data());
    r.token_types = addr(ttypes.data());
    r.attention_mask = addr(tmask.data());
    for (double bad : {2.0, -1.0, 0.5, kNaN}) {
        entry::TextArgs b = r;
        b.need_token_logits = bad;
        EXPECT_NE(tok.forward_text(b), 0) << bad;
        EXPECT_EQ(reply_code(), "invalid_argument") << entry::reply_text();
    }
    ASSERT_EQ(tok.forward_text(r), 0) << entry::reply_text();
    EXPECT_EQ(tok.workspace()->token_logits(), nullptr) << "not asked for";
    r.need_token_logits = 1;
    ASSERT_EQ(tok.forward_text(r), 0) << entry::reply_text();
    ASSERT_NE(tok.workspace()->token_logits(), nullptr);
    const std::vector<float>& want = gt.at("token_logits");
    EXPECT_LT(max_abs_diff(tok.workspace()->token_logits(), want.data(), want.size()), 1e-4);
    EXPECT_NE(e.forward_text([&] { entry::TextArgs c = t; c.need_token_logits = 1; return c; }()), 0) << "a sequence classifier has no token head";
    EXPECT_EQ(reply_code(), "unsupported") << entry::reply_text();
}

// setThreads and loadCheckpoint's callback checks are one entry point for the wasm module and the
// addon: the replies are word for word those both bindings returned before they shared them, but
// for the number, now written as JavaScript writes it (it was printf's "%f": "1.500000", "nan").
TEST(EntryBindingChecks, SetThreadCountRepliesAsBothBindingsDid) {
    const std::pair<double, const char*> cases[] = {{0.0, "0"},   {65.0, "65"},      {1.5, "1.5"},
                                                    {-1.0, "-1"}, {kNaN, "NaN"},     {kInf, "Infinity"},
                                                    {k2_32 + 1, "4294967297"}};
    for (const auto& [bad, text] : cases) {
        EXPECT_NE(entry::set_thread_count(bad), 0) << bad;
        EXPECT_EQ(std::string(entry::reply_text()), std::string("invalid_argument\tthreads must be an integer in [1, 64], got ") + text);
    }
    EXPECT_NE(entry::set_thread_count(1.5), 0);
    EXPECT_STREQ(entry::reply_text(), "invalid_argument\tthreads must be an integer in [1, 64], got 1.5");
    ASSERT_EQ(entry::set_thread_count(1), 0) << entry::reply_text();
    EXPECT_STREQ(entry::reply_text(), "");
    EXPECT_EQ(threads(), 1u);
    if (threads_supported()) {
        ASSERT_EQ(entry::set_thread_count(2), 0) << entry::reply_text();
        EXPECT_EQ(threads(), 2u);
        ASSERT_EQ(entry::set_thread_count(1), 0) << entry::reply_text();
    } else {
        EXPECT_NE(entry::set_thread_count(2), 0);
        EXPECT_EQ(reply_code(), "unsupported") << entry::reply_text();
    }
    EXPECT_EQ(threads(), 1u);
}

TEST(EntryBindingChecks, LoadCallbacksReplyAsBothBindingsDid) {
    EXPECT_EQ(entry::check_load_callbacks(true, false, false), 0) << entry::reply_text();
    EXPECT_EQ(entry::check_load_callbacks(true, true, true), 0) << entry::reply_text();
    for (bool given : {false, true}) {
        EXPECT_NE(entry::check_load_callbacks(false, given, false), 0);
        EXPECT_STREQ(entry::reply_text(), "invalid_argument\tloadCheckpoint: read must be a function");
    }
    EXPECT_NE(entry::check_load_callbacks(true, true, false), 0);
    EXPECT_STREQ(entry::reply_text(), "invalid_argument\tloadCheckpoint: progress must be a function or undefined");
}
}  // namespace
}  // namespace simdformer::test
