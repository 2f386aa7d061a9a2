// GEMM: the hot spot of every layer. B is packed into column panels once (weights at load time,
// K/V per head at run time); a register-tiled micro-kernel computes an R x (G panels) tile of C
// while streaming G panels and broadcasting R rows of A. The tile shapes are a table by rows
// (kRowTiles below): the main tile for the bulk of the rows (2 rows x 2 panels in wasm, one panel
// and up to kMr rows natively: 4 in SSE2, 6 in AVX2, 14 in AVX-512), 2 x 2 and 1 x 4 panels for
// the last rows and for GEMMs of only 1 to 4 rows (short texts, decoding steps), so that every
// tile keeps at least 8 independent accumulators and each panel is read from memory once for all
// rows.
//
// Tile choice in wasm: 8 accumulators (8 x f32x4 + B vectors + broadcasts fit x64's 16 vector
// registers without a spill), as 2 rows x 2 panels: 2 broadcasts and 4 B loads per k-step. The
// 4 x 1-panel tile that ran before (4 broadcasts + 2 B loads) measured 2-10 % slower on AMD Zen 3,
// where V8's load32_splat (vbroadcastss from memory) takes an FP pipe the multiplies and adds
// need (bench/experiments/gemm_ab/blocking.sh, BENCHMARKS.md "Issue 29: the main tile"). Measured
// alternatives (BENCHMARKS.md, bench/experiments/gemm-ab.mjs): 5x8 and 6x8 tiles spill in V8
// (x1.5 slower), XNNPACK's "splat" variant (one A vector load + lane shuffles) loses to
// load32_splat on x86 (x1.25), seeding the accumulators with the bias gains nothing over adding
// it in the epilogue, and smaller k-blocks (kKc 256-512) or row blocks (kMc 64) are slower on a
// 512 KiB L2 too. What did pay: no k-blocking for k <= kKc (each C tile is written once instead
// of being reloaded per k-block) and inlining the main tile into its loop (a call per tile cost
// 7-13 %).
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/relaxed_module.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

constexpr size_t kNrVecs = detail::kPanelVecs;  // the scalar build uses 4x4 scalar tiles
constexpr size_t kNr = kNrVecs * kLanes;          // columns per panel
constexpr size_t kKc = 1024;  // k-block: every BERT/GPT-2 projection but the FFN output is one block
constexpr size_t kMc = 128;   // rows of A packed at a time (kMc x kKc floats = 512 KiB per thread)

// Packed A block: rows in tiles (tile_rows_at), k-major inside a tile, so the micro-kernel reads one
// contiguous stream for A as it does for B. Static (not allocated per call): kernels never
// allocate, and the buffer is reused by every GEMM of the thread.
thread_local float g_a_block[kMc * kKc];

// ---- the kernel choice ---------------------------------------------------------------------------
// A tile of R rows spans G panels; each short entry keeps R * G * kNrVecs = 8 accumulator vectors,
// as many independent add chains as hide the add latency (XNNPACK's gemm-config picks a
// micro-kernel per MR the same way). A short tile reads several panels at once instead of one
// panel with 2 * R accumulators: the 1-row tile of a 5-row GEMM was latency-bound at about the
// cost of a whole 4-row tile, and a one-panel tile streams one panel at a time (issue 20).
struct RowTile {
    size_t rows, panels;
};

// Rows of the tallest main tile (one panel, 2 * kMr accumulators), by the vector registers the
// build has. 4 in wasm: V8 spills 5- and 6-row tiles (x1.5 slower, see the header). Natively the
// compiler allocates the registers: AVX2's 16 hold 6 rows (12 accumulators + 2 B vectors + 1
// broadcast, the classic 6 x 16 AVX2 kernel), 32 (AVX-512) hold 14 (28 + 2 + 1; objdump shows
// no spill once the row loops are unrolled by force: SIMDFORMER_UNROLL_ROWS below; 8 to 14 rows
// measure the same on Zen 5, BENCHMARKS.md "Session 15"). Why taller pays: a panel of B (kc x kNr floats, 96 KiB at kc = 768 in AVX-512) does
// not fit L1, so every tile streams it from L2; 4 rows read 128 B of B per 8 multiply-adds, 14
// rows per 28. Measured idle (BENCHMARKS.md "Issue 31: taller native tiles"), bench_kernels
// GemmPacked against 4 rows: AVX-512 1.13-1.57x at 23 to 128 rows (65-68 % of the FMA peak at 128
// rows), AVX2 1.10-1.17x (78-81 %); end to end the addon's 128-token and batch texts 4-9 % faster.
// The scalar build keeps 4 x 4 scalars.
#if !SIMDFORMER_SIMD || !defined(__x86_64__)
constexpr size_t kMr = 4;  // wasm, scalar, arm64 (NEON has 32 registers; untimed: no arm64 here)
#elif defined(SIMDFORMER_GEMM_MR)
constexpr size_t kMr = SIMDFORMER_GEMM_MR;  // for A/B timing of tile heights (bench_kernels)
#elif defined(__AVX512F__)
constexpr size_t kMr = 14;
#elif defined(__AVX2__)
constexpr size_t kMr = 6;
#else
constexpr size_t kMr = 4;  // SSE2: 6 rows measured no faster (no FMA: each product needs a register)
#endif
static_assert(kMr >= 4, "main parts are cut into tiles of at least 4 rows");
// The main tile: 2 rows x 2 panels in wasm SIMD128 (see the header), else kMr rows x 1 panel.
#if SIMDFORMER_SIMD && defined(__wasm__) && !defined(SIMDFORMER_GEMM_MAIN_4X1)
constexpr RowTile kMain = {2, 2};
#else
constexpr RowTile kMain = {kMr, 1};  // SIMDFORMER_GEMM_MAIN_4X1: wasm's tile before, for A/B timing
#endif
constexpr RowTile kRowTiles[] = {kMain, {2, 2}, {1, 4}};  // and, if kMr > 4, 4 to kMr - 1 rows
constexpr size_t kGroup = 4;  // panels visited together: the widest entry above
// With the relaxed k-loops (kRelaxedKLoops, below) the main tile is 2 rows x 3 panels (a fused
// multiply-add frees the register the product took), over groups of 6 panels.
constexpr RowTile kRelaxedMain = {2, 3};
constexpr size_t kRelaxedGroup = 6;

// How a block of rows is cut, by its row count mc: a main part of 4q rows in main tiles, then a
// tail of the last 1 to 4 rows in short tiles (a block of 4q + t rows, t in 1..4, ends with
// kTail[t]). The short tiles run first over each group of panels and stream 2 or 4 panels at
// once, which is what memory bandwidth needs when the weights come from memory: without them the
// addon's 5-token texts took 1.25x as long, although the kernel alone (weights in cache) was
// faster. A group's 4 panels come from 4 ranges of the matrix far apart (panel_group): 4
// neighbouring panels streamed together are the slowest read pattern in wasm (gemv.cpp); far
// apart, MiniLM-L6-shaped 5-token texts ran 1.04-1.10x faster in Chromium and Node (23 tokens
// 1.01-1.03x, 46 and 128 unchanged; natively unchanged, BENCHMARKS.md "Session 17"). In wasm the main part is tiles of 2 rows x 2 panels; natively, with kMr = 4, tiles of
// 4 rows x 1 panel, and with kMr > 4 it is cut into as few one-panel tiles of at most kMr rows as
// hold it, of heights that differ by at most one (124 rows with kMr = 14: 7 x 14 + 2 x 13):
// tiles of 4 to kMr rows occur.
// Natively, the main tiles over a group of panels also prefetch the next group's panels into L2,
// a slice per tile and a line or two per k-step. Without it the first tile over each group (the
// short tail tile, or the main tile when there is no tail) waits on memory with nothing to
// overlap: at 46 tokens BERT-base spent ~20 % of its time there (its 340 MB of weights stream once
// per forward pass, ~10 ms of ~50). Only when the main part has at least kPrefetchMinRows rows:
// below that the main tiles have too few multiply-adds per k-step to hide the requests (idle A/B,
// BERT-base: from 8 rows 9-token texts ran 0.90x, from 4 rows 5-token texts 0.8x; from 16 rows
// 5-13 tokens are unchanged and 17 / 23 / 46 / 128 tokens 1.11 / 1.21 / 1.17 / 1.09x, BENCHMARKS.md
// "Session 16"). wasm has no prefetch instruction. SIMDFORMER_GEMM_PREFETCH=0 turns it off
// for A/B timing.
#ifndef SIMDFORMER_GEMM_PREFETCH
#define SIMDFORMER_GEMM_PREFETCH 1
#endif
#ifndef SIMDFORMER_GEMM_PREFETCH_MIN_ROWS
#define SIMDFORMER_GEMM_PREFETCH_MIN_ROWS 16
#endif
#if defined(__wasm__)
constexpr bool kPrefetchB = false;
#else
constexpr bool kPrefetchB = SIMDFORMER_GEMM_PREFETCH != 0;
#endif
constexpr size_t kPrefetchMinRows = SIMDFORMER_GEMM_PREFETCH_MIN_ROWS;
static_assert(kNr * sizeof(float) <= 128, "a main tile's k-step prefetches at most two lines");

// wasm SIMD128: with set_relaxed_f32(true) every tile's k-loop runs in the relaxed kernel module
// (relaxed_module.h: f32x4.relaxed_madd, one FMA where the engine has it), called once per tile
// through this thread's function table; the packing, the tile order and the epilogue stay here.
constexpr bool kRelaxedKLoops = relaxed::kF32KLoops;

constexpr size_t kTail[5][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}};

// Rows in main tiles of a block of mc >= 1 rows.
inline size_t full_rows(size_t mc) { return (mc - 1) / 4 * 4; }
// Rows of the main tile at row i of a main part of `full` rows: the first `taller` tiles have one
// row more than the others.
inline size_t main_rows_at(size_t i, size_t full) {
    if constexpr (kMain.panels > 1 || kMr == 4) return kMain.rows;
    const size_t tiles = (full + kMr - 1) / kMr, rows = full / tiles, taller = full % tiles;
    return i < taller * (rows + 1) ? rows + 1 : rows;
}
// Rows of the tile that starts at row i of a block of mc rows.
inline size_t tile_rows_at(size_t i, size_t mc) {
    const size_t full = full_rows(mc);
    if (i < full) return main_rows_at(i, full);
    const size_t* tail = kTail[mc - full];
    return i == full ? tail[0] : tail[1];
}
// Panels a tile of `rows` rows spans.
inline size_t tile_panels(size_t rows) {
    for (const RowTile& t : kRowTiles)
        if (t.rows == rows) return t.panels;
    return 1;
}

struct TileArgs {
    size_t kc;              // depth of this k-block
    const float* a;         // packed rows of this tile: element (r, p) at a[p * rows + r]
    const float* panel;     // [kc, kNr] packed block of B of the tile's first panel
    size_t panel_stride;    // floats from one of the tile's panels to the next (a multiple of k * kNr)
    size_t col_stride;      // columns of C from one of the tile's panels to the next (kNr, or more
                            // for a group of far-apart panels)
    float* c;               // [rows, ncols] at the tile's first element, row stride ldc
    size_t ldc;
    size_t ncols;           // columns of C from the tile's first one to the right edge
    bool first, last;       // first k-block: start from zero; last: apply the epilogue
    const float* bias;      // [ncols] at the tile's first column, or null
    const float* residual;  // at the tile's first element, or null
    size_t ld_residual;
    uintptr_t prefetch;     // address where this tile requests the next group's weights, or 0
    size_t prefetch_step;   // bytes per k-step (<= 128)
    const relaxed::F32KLoop* kloops;  // the relaxed module's k-loops, or null (kRelaxedKLoops)
};

// Copies the first min(ncols, kNr) floats of a row piece that may be cut short at the right edge
// into out[kNr], zero-filled. A whole piece moves as kNrVecs vectors: no call to memmove per
// tile row (which cost ~4% of a 128-row GEMM).
inline void load_floats(const float* p, size_t ncols, float* out) {
    if (ncols >= kNr) {
        for (size_t v = 0; v < kNr; v += kLanes) simd::store(out + v, simd::load(p + v));
        return;
    }
    std::copy(p, p + ncols, out);
    std::fill(out + ncols, out + kNr, 0.0f);
}

inline void store_floats(const float* in, size_t ncols, float* p) {
    if (ncols >= kNr) {
        for (size_t v = 0; v < kNr; v += kLanes) simd::store(p + v, simd::load(in + v));
        return;
    }
    std::copy(in, in + ncols, p);
}

// Columns of panel g of a tile that are inside C.
inline size_t panel_cols(const TileArgs& t, size_t g) { return std::min(kNr, t.ncols - g * t.col_stride); }

#if !SIMDFORMER_ACTIVATE_ROWS
// row = act(alpha * row + bias) + residual for one kNr-wide row piece (row r, panel g of the tile);
// past the right edge bias and residual read as zeros.
inline void epilogue_row(const TileArgs& t, const Epilogue& ep, size_t r, size_t g, float* row) {
    const size_t ncols = panel_cols(t, g), col = g * t.col_stride;
    const bool full = ncols >= kNr;  // inside C: bias and residual are read in place
    float bias_tmp[kNr], res_tmp[kNr];
    const float* bias = t.bias ? t.bias + col : nullptr;
    const float* res = t.residual ? t.residual + r * t.ld_residual + col : nullptr;
    if (bias && !full) bias = (load_floats(bias, ncols, bias_tmp), bias_tmp);
    if (res && !full) res = (load_floats(res, ncols, res_tmp), res_tmp);
    const vf32 alpha(ep.alpha);
    for (size_t v = 0; v < kNr; v += kLanes) {
        vf32 x = simd::load(row + v) * alpha;
        if (bias) x = x + simd::load(bias + v);
        x = detail::activate(ep.activation, x);
        if (res) x = x + simd::load(res + v);
        simd::store(row + v, x);
    }
}
#else
// The row piece of `base` (bias at the tile's first column, or residual at its row r) under panel
// g, read in place inside C, through `tmp` (zero-filled) at the right edge.
inline const float* piece(const TileArgs& t, const float* base, size_t g, float* tmp) {
    const size_t ncols = panel_cols(t, g);
    base += g * t.col_stride;
    return ncols >= kNr ? base : (load_floats(base, ncols, tmp), tmp);
}

// epilogue_row() for a whole finished tile, its R x G row pieces at rows[(r * G + g) * kNr], out of
// line (one copy for every tile shape) and in three passes: alpha * x + bias, the activation of all
// R * G * kNr floats in one activate_rows() call, + residual. Each element sees the same
// operations in the same order as in epilogue_row(), so the results are bit-identical.
[[gnu::noinline]] void epilogue_tile(const TileArgs& t, const Epilogue& ep, size_t R, size_t G, float* rows) {
    const vf32 alpha(ep.alpha);
    float tmp[kNr];
    for (size_t i = 0; i < R * G; ++i) {
        float* row = rows + i * kNr;
        const float* bias = t.bias ? piece(t, t.bias, i % G, tmp) : nullptr;
        for (size_t v = 0; v < kNr; v += kLanes) {
            vf32 x = simd::load(row + v) * alpha;
            if (bias) x = x + simd::load(bias + v);
            simd::store(row + v, x);
        }
    }
    detail::activate_rows(ep.activation, rows, R * G * kNr);
    if (t.residual)
        for (size_t i = 0; i < R * G; ++i) {
            float* row = rows + i * kNr;
            const float* res = piece(t, t.residual + (i / G) * t.ld_residual, i % G, tmp);
            for (size_t v = 0; v < kNr; v += kLanes) simd::store(row + v, simd::load(row + v) + simd::load(res + v));
        }
}
#endif

// Every loop over the R rows of a tile is unrolled completely, whatever R: g++ 12's own limits
// (max-completely-peeled-insns 200) stop at about 8 rows of one panel, and a loop left rolled
// indexes `acc` at run time, so the accumulators live on the stack: the AVX-512 tiles of 10 and 14
// rows ran every multiply-add from memory at 35 % of the FMA peak instead of ~88 % (bench_kernels
// GemmPacked, BENCHMARKS.md "Session 15: the tall tiles spilled"). clang (wasm) unrolls its 2-row
// tiles by itself.
#if defined(__GNUC__) && !defined(__clang__)
#define SIMDFORMER_UNROLL_ROWS _Pragma("GCC unroll 32")
#else
#define SIMDFORMER_UNROLL_ROWS
#endif

// The relaxed module's k-loop `tile` over the tile's row pieces (R x G, rows[r][g] at
// rows + (r * G + g) * kNr), from zero at the first k-block. Out of line: one copy for every tile
// shape (the call into the module is ~1 us of work per tile).
[[gnu::noinline, maybe_unused]] void relaxed_kloop(const TileArgs& t, int tile, float* rows) {
    t.kloops[tile](t.a, t.panel, t.panel_stride, t.kc, rows, t.first);
}

// The SIMD128 / native k-loop of an R x G tile: rows (the tile's C, or anything at the first
// k-block) += A times B, one multiply-add per k in order (zero first at the first k-block).
template <size_t R, size_t G>
[[gnu::always_inline]] inline void tile_kloop(const TileArgs& t, float (&rows)[R][G][kNr]) {
    vf32 acc[R * G * kNrVecs];  // accumulator (r, g, v) at acc[(r * G + g) * kNrVecs + v]
    SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r)
        for (size_t g = 0; g < G; ++g)
            for (size_t v = 0; v < kNrVecs; ++v)
                acc[(r * G + g) * kNrVecs + v] = t.first ? vf32(0.0f) : simd::load(rows[r][g] + v * kLanes);

    // HOT LOOP: G * kNrVecs loads of B, R broadcasts of A, R * G * kNrVecs multiply-adds per step;
    // A streams through one pointer, each panel of B through its own (everything the loop reads
    // from `t` is copied to locals first). One panel (the main tile): both B vectors are loaded,
    // then each row is broadcast once, 2 * R accumulators + 2 B + 1 broadcast in registers. Several
    // panels: the R broadcasts are made first and each B vector is used as it is loaded, so at
    // most 8 accumulators + 2 broadcasts + 1 B vector are live, as in gemv.cpp.
    const float* ap = t.a;
    const float* bp = t.panel;
    const size_t stride = t.panel_stride;
    const float* const b_end = bp + t.kc * kNr;  // loop on the B pointer: no separate counter
    uintptr_t pf = t.prefetch;  // an integer: past the buffer's end a prefetch requests, never reads
    const size_t pf_step = t.prefetch_step;
    for (; bp != b_end; ap += R, bp += kNr) {
        if constexpr (G == 1 && kPrefetchB) {
            if (pf) {
                __builtin_prefetch(reinterpret_cast<const void*>(pf), 0, 2);
                if (pf_step > 64) __builtin_prefetch(reinterpret_cast<const void*>(pf + 64), 0, 2);
                pf += pf_step;
            }
        }
        if constexpr (G == 1) {
            vf32 b[kNrVecs];
            for (size_t v = 0; v < kNrVecs; ++v) b[v] = simd::load(bp + v * kLanes);
            SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r) {
                const vf32 av = simd::splat(ap[r]);
                for (size_t v = 0; v < kNrVecs; ++v) acc[r * kNrVecs + v] = simd::fma(av, b[v], acc[r * kNrVecs + v]);
            }
        } else {
            vf32 av[R];
            SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r) av[r] = simd::splat(ap[r]);
            for (size_t g = 0; g < G; ++g)
                for (size_t v = 0; v < kNrVecs; ++v) {
                    const vf32 b = simd::load(bp + g * stride + v * kLanes);
                    SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r) {
                        vf32& x = acc[(r * G + g) * kNrVecs + v];
                        x = simd::fma(av[r], b, x);
                    }
                }
        }
    }

    SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r)
        for (size_t g = 0; g < G; ++g)
            for (size_t v = 0; v < kNrVecs; ++v) simd::store(rows[r][g] + v * kLanes, acc[(r * G + g) * kNrVecs + v]);
}

// The micro-kernel: R rows x G panels. Every element of C sees the same sequence of operations
// whatever R, G and ncols are (zero, then one multiply-add per p in order, then the epilogue),
// so results do not depend on where a row sits in a batch, on the tile that computed it, or on
// how columns were split across threads. Always inlined: run_group's loop over main tiles has its
// own copy (a call per tile cost 7-13 % in wasm), every other tile shape is called through tile().
// kRelaxedOnly: a shape only the relaxed path runs (kRelaxedMain), without the SIMD128 k-loop.
template <size_t R, size_t G, bool kRelaxedOnly = false>
[[gnu::always_inline]] inline void tile_inline(const TileArgs& t, const Epilogue& ep) {
    // C rows go through `rows` on their way in and out, and the loops that touch the accumulators
    // have trivial bodies, so the compiler unrolls them and keeps every accumulator in a register.
    // (With row helpers called on acc[r][g] directly, g++ kept them on the stack: 4-row tiles
    // became 40% slower.)
    float rows[R][G][kNr];
    if (!t.first)  // partial sums of earlier k-blocks
        SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r)
            for (size_t g = 0; g < G; ++g) load_floats(t.c + r * t.ldc + g * t.col_stride, panel_cols(t, g), rows[r][g]);
    if constexpr (kRelaxedOnly) {
        relaxed_kloop(t, relaxed::f32_tile(R, G), &rows[0][0][0]);
    } else if constexpr (kRelaxedKLoops) {
        if (t.kloops)
            relaxed_kloop(t, relaxed::f32_tile(R, G), &rows[0][0][0]);
        else
            tile_kloop<R, G>(t, rows);
    } else {
        tile_kloop<R, G>(t, rows);
    }
#if SIMDFORMER_ACTIVATE_ROWS
    if (t.last) epilogue_tile(t, ep, R, G, &rows[0][0][0]);
    SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r)
        for (size_t g = 0; g < G; ++g) store_floats(rows[r][g], panel_cols(t, g), t.c + r * t.ldc + g * t.col_stride);
#else
    SIMDFORMER_UNROLL_ROWS for (size_t r = 0; r < R; ++r)
        for (size_t g = 0; g < G; ++g) {
            if (t.last) epilogue_row(t, ep, r, g, rows[r][g]);
            store_floats(rows[r][g], panel_cols(t, g), t.c + r * t.ldc + g * t.col_stride);
        }
#endif
}

template <size_t R, size_t G>
void tile(const TileArgs& t, const Epilogue& ep) {
    tile_inline<R, G>(t, ep);
}

// The one-panel tiles of 4 to kMr - 1 rows, by rows - 4, for main parts cut into equal heights
// (none where kMr = 4: every main tile has the same shape, kMain).
template <size_t... I>
constexpr auto lower_tiles(std::index_sequence<I...>) {
    return std::array<void (*)(const TileArgs&, const Epilogue&), sizeof...(I)>{&tile<I + 4, 1>...};
}
constexpr auto kLowerTiles = lower_tiles(std::make_index_sequence<kMr - 4>());

// One tile of `rows` rows over at most `panels` panels (an entry of kRowTiles, or fewer panels at
// the right edge); returns the panels it covered.
size_t run_tile(size_t rows, size_t panels, const TileArgs& t, const Epilogue& ep) {
    if constexpr (kMain.panels == 1)
        if (rows == kMr) return tile<kMr, 1>(t, ep), 1;
    if constexpr (kMr > 4)
        if (rows >= 4) return kLowerTiles[rows - 4](t, ep), 1;
    if (rows == 2) return panels >= 2 ? (tile<2, 2>(t, ep), 2) : (tile<2, 1>(t, ep), 1);
    if (panels >= 4) return tile<1, 4>(t, ep), 4;
    if (panels >= 2) return tile<1, 2>(t, ep), 2;
    return tile<1, 1>(t, ep), 1;
}

// Packs rows [0, rows) x columns [0, kc) of A (row stride lda) into g_a_block, tile by tile as
// tile_rows_at cuts them: the tile at row i starts at i * kc and uses its row count as stride.
void pack_a_block(size_t rows, size_t kc, const float* a, size_t lda) {
    for (size_t i = 0; i < rows;) {
        const size_t r_count = tile_rows_at(i, rows);
        float* dst = g_a_block + i * kc;
        for (size_t p = 0; p < kc; ++p)
            for (size_t r = 0; r < r_count; ++r) *dst++ = a[(i + r) * lda + p];
        i += r_count;
    }
}

// What one k-block of one row block shares between its tiles.
struct BlockArgs {
    size_t n, k;        // the whole GEMM
    size_t ic, mc;      // rows [ic, ic + mc) of this block
    size_t pc, kc;      // depth [pc, pc + kc)
    const float* packed_b;
    float* c;
    size_t ldc;
    const relaxed::F32KLoop* kloops;  // the relaxed module's k-loops, or null
};

// A group of panels visited together: panels first, first + stride, ..., first + (count - 1) *
// stride. The groups of a GEMM (panel_group below) take their panels from kGroup ranges of the
// matrix far apart in memory, so that the tiles that stream several panels at once read separate
// streams: neighbouring panels read together are the slowest pattern in wasm (gemv.cpp).
struct PanelGroup {
    size_t first, count, stride;
};

// The tile of rows [ic + i, ic + i + rows) over the panels of `g` from member `idx` on.
TileArgs tile_args(const BlockArgs& b, const Epilogue& ep, size_t i, const PanelGroup& g, size_t idx) {
    const size_t row = b.ic + i, jp = g.first + idx * g.stride, col0 = jp * kNr;
    TileArgs t{};
    t.kc = b.kc;
    t.a = g_a_block + i * b.kc;
    t.panel = b.packed_b + (jp * b.k + b.pc) * kNr;
    t.panel_stride = g.stride * b.k * kNr;
    t.col_stride = g.stride * kNr;
    t.c = b.c + row * b.ldc + col0;
    t.ldc = b.ldc;
    t.ncols = b.n - col0;
    t.first = b.pc == 0;
    t.last = b.pc + kKc >= b.k;
    t.bias = ep.bias ? ep.bias + col0 : nullptr;
    t.residual = ep.residual ? ep.residual + row * ep.ld_residual + col0 : nullptr;
    t.ld_residual = ep.ld_residual;
    t.kloops = b.kloops;
    return t;
}

// The panels of one block, group by group (`next` is the group after `g`, or null). The short
// tiles of the last rows go first: they read the group's panels together, several streams at
// once, which is what memory bandwidth needs (one stream at a time reached a third of it); the
// main tiles then visit one panel at a time (wasm: two), from cache, while every main tile
// streams past it.
void run_group(const BlockArgs& b, const Epilogue& ep, const PanelGroup& g, const PanelGroup* next) {
    const size_t full = full_rows(b.mc);
    for (size_t i = full; i < b.mc;) {
        const size_t rows = tile_rows_at(i, b.mc), width = tile_panels(rows);
        for (size_t idx = 0; idx < g.count;)
            idx += run_tile(rows, std::min(width, g.count - idx), tile_args(b, ep, i, g, idx), ep);
        i += rows;
    }
    if constexpr (kRelaxedKLoops) {
        if (b.kloops) {  // 2 x 3 tiles, and 2 x 2 / 2 x 1 on the last panels of a short group
            for (size_t idx = 0; idx < g.count; idx += kRelaxedMain.panels)
                for (size_t i = 0; i < full; i += kRelaxedMain.rows) {
                    if (idx + kRelaxedMain.panels <= g.count)
                        tile_inline<kRelaxedMain.rows, kRelaxedMain.panels, true>(tile_args(b, ep, i, g, idx), ep);
                    else run_tile(kRelaxedMain.rows, g.count - idx, tile_args(b, ep, i, g, idx), ep);
                }
            return;
        }
    }
    if constexpr (kMain.panels > 1) {
        // wasm: 2 x 2 tiles, and 2 x 1 on the last panel of an odd group
        for (size_t idx = 0; idx < g.count; idx += kMain.panels)
            for (size_t i = 0; i < full; i += kMain.rows) {
                if (idx + kMain.panels <= g.count) tile_inline<kMain.rows, kMain.panels>(tile_args(b, ep, i, g, idx), ep);
                else run_tile(kMain.rows, g.count - idx, tile_args(b, ep, i, g, idx), ep);
            }
        return;
    }
    const size_t row_tiles = kMr == 4 ? full / 4 : (full + kMr - 1) / kMr;
    const size_t pf_step = row_tiles ? (kNr * sizeof(float) + row_tiles - 1) / row_tiles : 0;
    for (size_t idx = 0; idx < g.count; ++idx) {
        // The main tiles over member idx prefetch member idx of the next group.
        const bool pf_on = kPrefetchB && full >= kPrefetchMinRows && next && idx < next->count;
        const uintptr_t pf_panel = pf_on ? reinterpret_cast<uintptr_t>(b.packed_b + ((next->first + idx * next->stride) * b.k + b.pc) * kNr) : 0;
        for (size_t i = 0, ti = 0; i < full; ++ti) {
            const size_t rows = main_rows_at(i, full);
            TileArgs t = tile_args(b, ep, i, g, idx);
            if (pf_panel) {
                t.prefetch = pf_panel + ti * pf_step * b.kc;
                t.prefetch_step = pf_step;
            }
            // kMr = 4: always the first branch, the tile called directly as before
            if (rows == kMr) tile<kMr, 1>(t, ep);
            else run_tile(rows, 1, t, ep);
            i += rows;
        }
    }
}

// Group j of a GEMM over `panels` panels in groups of `size` (kGroup, or kRelaxedGroup): for
// j < stride = panels / size, panels j, j + stride, ..., j + (size - 1) stride; then the last
// panels % size panels as one group of neighbours.
inline size_t panel_group_count(size_t panels, size_t size) { return panels / size + (panels % size != 0); }
inline PanelGroup panel_group(size_t panels, size_t j, size_t size) {
    const size_t stride = panels / size;
    if (j < stride) return {j, size, stride};
    return {stride * size, panels % size, 1};
}

}  // namespace

const char* simd_arch() { return simd::arch_name(); }
size_t simd_lanes() { return kLanes; }
size_t gemm_panel_width() { return kNr; }

size_t packed_b_size(size_t k, size_t n) { return (n + kNr - 1) / kNr * kNr * k; }

void pack_b(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, float* packed) {
    const size_t panels = (n + kNr - 1) / kNr;
    for (size_t jp = 0; jp < panels; ++jp) {
        const size_t j0 = jp * kNr;
        const size_t width = std::min(kNr, n - j0);
        float* dst = packed + jp * k * kNr;
        for (size_t p = 0; p < k; ++p, dst += kNr) {
            const float* src = b + p * row_stride + j0 * col_stride;
            size_t jj = 0;
            for (; jj < width; ++jj) dst[jj] = src[jj * col_stride];
            for (; jj < kNr; ++jj) dst[jj] = 0.0f;
        }
    }
}

void gemm_f32_packed(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* packed_b,
                     float* c, size_t ldc, const Epilogue& ep) {
    const size_t panels = (n + kNr - 1) / kNr;
    const relaxed::F32KLoop* kloops = kRelaxedKLoops ? relaxed::f32_kloops() : nullptr;
    // k == 0 still runs one (empty) block so that C = epilogue(0).
    for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
        const size_t kc = std::min(kKc, k - pc);
        for (size_t ic = 0; ic < m; ic += kMc) {
            const size_t mc = std::min(kMc, m - ic);
            pack_a_block(mc, kc, a + ic * lda + pc, lda);
            const BlockArgs b{n, k, ic, mc, pc, kc, packed_b, c, ldc, kloops};
            const size_t size = kRelaxedKLoops && kloops ? kRelaxedGroup : kGroup;
            const size_t groups = panel_group_count(panels, size);
            for (size_t j = 0; j < groups; ++j) {
                const PanelGroup g = panel_group(panels, j, size), next = j + 1 < groups ? panel_group(panels, j + 1, size) : PanelGroup{};
                run_group(b, ep, g, j + 1 < groups ? &next : nullptr);
            }
        }
        if (k == 0) break;
    }
}

void gemm_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
              float* c, size_t ldc, float* scratch, const Epilogue& ep) {
    pack_b(k, n, b, ldb, 1, scratch);
    gemm_f32_packed(m, n, k, a, lda, scratch, c, ldc, ep);
}

void gemm_f32_nt(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                 float* c, size_t ldc, float* scratch, const Epilogue& ep) {
    pack_b(k, n, b, 1, ldb, scratch);
    gemm_f32_packed(m, n, k, a, lda, scratch, c, ldc, ep);
}

}  // namespace simdformer::kernels
