// Runs a fuzz target (LLVMFuzzerTestOneInput) in wasm, where libFuzzer does not exist: built with
// Emscripten's ASan + UBSan (preset wasm-asan), so size_t and pointers are 32 bits as in the
// shipped module and sizes that wrap at 2^32 wrap here too. There is no coverage feedback; the
// driver runs every seed, then until the time is up inputs made from the seeds by a few stacked
// mutations (bit flips, bytes, erased / inserted / copied ranges, splices of two inputs, and
// boundary integers -- 2^31 - 1, 2^31, 2^32 - 1, 2^32 + k, 2^53 ... -- written as 4- or 8-byte
// little-endian or as decimal text) and a few purely random inputs.
//
//   node fuzz_<name>.js [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-artifact_prefix=P] DIR|FILE...
//
// A DIR's files are seeds; a FILE is also run as is (to replay a crash). The inputs depend only on
// the seed and the seed files, so "-seed=S -runs=N" replays a run. When a sanitizer finding,
// trap or abort ends the process, the input being run is written to <P>crash-<seed>-<execution>
// (by a node 'exit' handler: it needs nothing from the broken C++ state).
#include <emscripten.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

// The input being run, read by the exit handler (JS) through the addresses of these globals.
volatile uint32_t g_input_ptr = 0;
volatile uint32_t g_input_len = 0;
volatile uint32_t g_running = 0;  // 1 while LLVMFuzzerTestOneInput runs
volatile uint32_t g_execution = 0;

struct Options {
    double seconds = 10;
    uint64_t runs = UINT64_MAX;
    uint64_t seed = 1;
    size_t max_len = 65536;
    std::string artifact_prefix = "./";
    std::vector<std::string> paths;
};

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (starts_with(a, "-max_total_time=")) o.seconds = std::atof(a + 16);
        else if (starts_with(a, "-runs=")) o.runs = std::strtoull(a + 6, nullptr, 10);
        else if (starts_with(a, "-seed=")) o.seed = std::strtoull(a + 6, nullptr, 10);
        else if (starts_with(a, "-max_len=")) o.max_len = std::strtoul(a + 9, nullptr, 10);
        else if (starts_with(a, "-artifact_prefix=")) o.artifact_prefix = a + 17;
        else if (a[0] == '-') std::fprintf(stderr, "wasm_driver: ignoring unknown option %s\n", a);
        else o.paths.push_back(a);
    }
    return o;
}

bool read_file(const std::string& path, Bytes* out) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    out->clear();
    uint8_t buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
    std::fclose(f);
    return true;
}

// Every regular file of a directory (sorted, so the run does not depend on the listing order),
// or the path itself when it is a file.
std::vector<std::string> list_inputs(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return {};
    if (!S_ISDIR(st.st_mode)) return {path};
    std::vector<std::string> files;
    if (DIR* d = opendir(path.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string f = path + "/" + e->d_name;
            if (e->d_name[0] != '.' && stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.push_back(f);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

void run_one(const Bytes& input) {
    // A copy of exactly input.size() bytes on the heap, so ASan sees a read past its end.
    Bytes copy(input);
    g_input_ptr = uint32_t(uintptr_t(copy.data()));
    g_input_len = uint32_t(copy.size());
    g_running = 1;
    (void)LLVMFuzzerTestOneInput(copy.data(), copy.size());
    g_running = 0;
    ++g_execution;
}

// Integers at the edges of 32- and 64-bit sizes; the +k ones are filled in per use.
const uint64_t kBoundary64[] = {0,
                                1,
                                0x7fffffffull,
                                0x80000000ull,
                                0x80000001ull,
                                0xffffffffull,
                                0xfffffffeull,
                                0x100000000ull,
                                0x100000001ull,
                                0x1fffffffcull,
                                0x20000000000000ull,  // 2^53
                                0x20000000000001ull,
                                0x7fffffffffffffffull,
                                0x8000000000000000ull,
                                0xffffffffffffffffull};
const uint32_t kBoundary32[] = {0, 1, 0x7fff, 0x8000, 0xffff, 0x10000, 0x3fffffff, 0x40000000,
                                0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
const char* const kDecimal[] = {"0", "-1", "2147483647", "2147483648", "2147483649", "4294967295", "4294967296",
                                "4294967297", "4294967303", "8589934592", "9007199254740992", "9007199254740993",
                                "18446744073709551615", "18446744073709551616", "1e300", "-2147483648", "1.5"};

template <size_t N, typename T>
constexpr size_t count(const T (&)[N]) { return N; }

class Mutator {
public:
    Mutator(uint64_t seed, size_t max_len) : rng_(seed), max_len_(max_len) {}

    size_t below(size_t n) { return n ? size_t(rng_() % n) : 0; }

    // An integer near a 32- or 64-bit boundary: one from the tables, or 2^31 / 2^32 plus or
    // minus a small k.
    uint64_t boundary() {
        switch (below(4)) {
            case 0: return kBoundary32[below(count(kBoundary32))];
            case 1: return (uint64_t{1} << (31 + below(2))) + below(64);
            case 2: return (uint64_t{1} << (31 + below(2))) - 1 - below(64);
            default: return kBoundary64[below(count(kBoundary64))];
        }
    }

    void put_le(Bytes* b, size_t at, uint64_t v, size_t width, bool insert) {
        uint8_t le[8];
        for (size_t i = 0; i < 8; ++i) le[i] = uint8_t(v >> (8 * i));
        if (insert) {
            b->insert(b->begin() + ptrdiff_t(at), le, le + width);
        } else {
            if (b->size() < width) b->resize(width);
            at = std::min(at, b->size() - width);
            std::memcpy(b->data() + at, le, width);
        }
    }

    // One mutation of b; other is a second input for splices.
    void mutate_once(Bytes* b, const Bytes& other) {
        const size_t n = b->size();
        switch (below(12)) {
            case 0:  // flip one bit
                if (n) (*b)[below(n)] ^= uint8_t(1u << below(8));
                break;
            case 1:  // a random byte
                if (n) (*b)[below(n)] = uint8_t(rng_());
                break;
            case 2: {  // an interesting byte
                static const uint8_t kBytes[] = {0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40, 0x20};
                if (n) (*b)[below(n)] = kBytes[below(count(kBytes))];
                break;
            }
            case 3:  // overwrite with a boundary integer, 4 or 8 bytes little-endian
            case 4:
                put_le(b, below(n + 1), boundary(), below(2) ? 4 : 8, false);
                break;
            case 5:  // insert one
                put_le(b, below(n + 1), boundary(), below(2) ? 4 : 8, true);
                break;
            case 6: {  // erase a range
                if (!n) break;
                const size_t at = below(n), len = 1 + below(std::min<size_t>(n - at, 64));
                b->erase(b->begin() + ptrdiff_t(at), b->begin() + ptrdiff_t(at + len));
                break;
            }
            case 7: {  // insert random bytes
                const size_t at = below(n + 1), len = 1 + below(16);
                Bytes r(len);
                for (uint8_t& x : r) x = uint8_t(rng_());
                b->insert(b->begin() + ptrdiff_t(at), r.begin(), r.end());
                break;
            }
            case 8: {  // copy a range of b over or into another place of b
                if (!n) break;
                const size_t from = below(n), len = 1 + below(std::min<size_t>(n - from, 64));
                const Bytes chunk(b->begin() + ptrdiff_t(from), b->begin() + ptrdiff_t(from + len));
                const size_t to = below(n + 1);
                if (below(2)) {
                    b->insert(b->begin() + ptrdiff_t(to), chunk.begin(), chunk.end());
                } else {
                    const size_t m = std::min(len, n - std::min(to, n));
                    std::copy(chunk.begin(), chunk.begin() + ptrdiff_t(m), b->begin() + ptrdiff_t(to));
                }
                break;
            }
            case 9: {  // splice: a prefix of b, then a suffix of other
                const size_t cut = below(n + 1), from = below(other.size() + 1);
                b->resize(cut);
                b->insert(b->end(), other.begin() + ptrdiff_t(from), other.end());
                break;
            }
            case 10: {  // replace a run of decimal digits (a JSON number) with a boundary number
                if (!n) break;
                size_t at = below(n);
                while (at < n && !std::isdigit((*b)[at])) ++at;
                if (at == n) break;
                size_t end = at;
                while (end < n && std::isdigit((*b)[end])) ++end;
                const char* d = kDecimal[below(count(kDecimal))];
                b->erase(b->begin() + ptrdiff_t(at), b->begin() + ptrdiff_t(end));
                b->insert(b->begin() + ptrdiff_t(at), d, d + std::strlen(d));
                break;
            }
            default: {  // insert a boundary number as decimal text
                const char* d = kDecimal[below(count(kDecimal))];
                b->insert(b->begin() + ptrdiff_t(below(n + 1)), d, d + std::strlen(d));
                break;
            }
        }
        if (b->size() > max_len_) b->resize(max_len_);
    }

    // A new input: mostly 1-4 stacked mutations of a seed or of a recent input, sometimes random.
    Bytes next(const std::vector<Bytes>& seeds, const std::vector<Bytes>& recent) {
        if (below(32) == 0 || seeds.empty()) {
            Bytes r(below(std::min<size_t>(max_len_, 512) + 1));
            for (uint8_t& x : r) x = uint8_t(rng_());
            return r;
        }
        Bytes b = (!recent.empty() && below(4) == 0) ? recent[below(recent.size())] : seeds[below(seeds.size())];
        const Bytes& other = seeds[below(seeds.size())];
        for (size_t k = 1 + below(4); k > 0; --k) mutate_once(&b, other);
        return b;
    }

private:
    std::mt19937_64 rng_;
    size_t max_len_;
};

// Installs the node 'exit' handler that saves the running input when the process ends with a
// failure (a sanitizer report exits with 1; a trap or abort leaves through an exception).
void install_crash_writer(const Options& o) {
    const std::string prefix = o.artifact_prefix + "crash-" + std::to_string(o.seed) + "-";
    EM_ASM(
        {
            // One declaration per statement: a top-level comma would split the macro argument.
            const ptrAddr = $0;
            const lenAddr = $1;
            const runAddr = $2;
            const execAddr = $3;
            const prefix = UTF8ToString($4);
            process.on('exit', function(code) {
                if (code === 0 || HEAPU32[runAddr >> 2] !== 1) return;
                const ptr = HEAPU32[ptrAddr >> 2], len = HEAPU32[lenAddr >> 2];
                const path = prefix + HEAPU32[execAddr >> 2];
                require('fs').writeFileSync(path, HEAPU8.slice(ptr, ptr + len));
                process.stderr.write('wasm_driver: failing input (' + len + ' bytes) written to ' + path + '\n');
            });
        },
        &g_input_ptr, &g_input_len, &g_running, &g_execution, prefix.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (o.paths.empty()) {
        std::fprintf(stderr, "usage: %s [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-artifact_prefix=P] DIR|FILE...\n",
                     argv[0]);
        return 2;
    }
    install_crash_writer(o);
    std::printf("%s: seed %llu (replay: -seed=%llu -runs=<executions>)\n", SIMDFORMER_FUZZ_NAME,
                (unsigned long long)o.seed, (unsigned long long)o.seed);
    std::fflush(stdout);

    std::vector<Bytes> seeds;
    for (const std::string& p : o.paths) {
        for (const std::string& f : list_inputs(p)) {
            Bytes b;
            if (!read_file(f, &b)) continue;
            if (b.size() > o.max_len) b.resize(o.max_len);
            seeds.push_back(std::move(b));
        }
    }
    if (seeds.empty()) {
        std::fprintf(stderr, "%s: no input files in the given paths\n", SIMDFORMER_FUZZ_NAME);
        return 2;
    }

    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    uint64_t runs = 0;
    for (const Bytes& s : seeds) {
        if (runs == o.runs) break;
        run_one(s);
        ++runs;
    }
    Mutator m(o.seed, o.max_len);
    std::vector<Bytes> recent;  // the last inputs, so that mutations can build on each other
    while (runs < o.runs && elapsed() < o.seconds) {
        Bytes b = m.next(seeds, recent);
        run_one(b);
        ++runs;
        if (recent.size() < 64) recent.push_back(std::move(b));
        else recent[m.below(64)] = std::move(b);
    }
    std::printf("%s: %llu executions (%zu seeds) in %.1f s, OK\n", SIMDFORMER_FUZZ_NAME, (unsigned long long)runs,
                seeds.size(), elapsed());
    return 0;
}
