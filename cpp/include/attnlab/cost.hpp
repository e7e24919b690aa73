#pragma once
/// @file cost.hpp
/// @brief What attention costs: floats held, read and written, multiply-adds, cache bytes.
///
/// The counting model. Full attention materialises the scores of every (batch, head) as an
/// m x n matrix, writes it, reads it back for the softmax (in place) and again for weights V.
/// Tiled attention reads each row block of Q once, and the K and V rows of every key block it
/// visits once per row block; it writes the output and one log-sum-exp per row, and holds
/// only one score block, one packed key or value block, one block of weights V and a running
/// maximum and sum per row of the block. The tiled kernel (tiled.hpp) counts its own figures
/// with plan_tiles below, the same code cost_figures() uses.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "attnlab/mask.hpp"

namespace attnlab {

/// @brief Figures of one method. Every count is exact (at most 2^53, else an error).
struct method_cost {
    double peak_extra_floats = 0;  ///< floats held at once beyond the inputs and the output (full:
                                   ///< a minimal kernel, one score matrix per slice, softmax in place)
    double floats_read = 0;
    double floats_written = 0;
    double multiply_adds = 0;
    double blocks_computed = 0;    ///< tiled only: (row block, key block) pairs computed
    double blocks_skipped = 0;     ///< tiled only: pairs skipped because every key is masked
};

/// @brief Sizes for cost_figures(). Doubles as JavaScript gives them; each is checked to be a
/// whole number in range before use. block_q, block_k default to min(64, m), min(64, n).
struct cost_spec {
    double batch = 1, heads = 1, m = 0, n = 0, d_k = 0;
    std::optional<double> d_v, block_q, block_k, window;
    bool causal = false;
    /// M, the fast memory in floats; when given it picks the blocks (fast_memory_blocks) in
    /// place of block_q and block_k.
    std::optional<double> fast_memory;
};

struct cost_report {
    method_cost full, tiled;
    std::size_t block_q = 0, block_k = 0;
    /// Floats attention() of this engine holds beyond inputs and output: it keeps all four
    /// score-sized stages (scores, scaled, masked, weights) of every slice so a lesson can show
    /// each, plus K and V packed. full.peak_extra_floats is a minimal kernel's one matrix.
    double full_engine_extra_floats = 0;
    /// The most floats one call of attention() may allocate (default_max_elements).
    double engine_limit_floats = 0;
    /// Multiply-adds on the (query, key) pairs the masks leave visible, d_k + d_v each: the
    /// exact work of the masks. tiled.multiply_adds counts whole blocks, so it is larger
    /// wherever a computed block holds masked pairs.
    double visible_multiply_adds = 0;
    /// Floats the full method reads and writes, over those the tiled method reads and writes.
    double traffic_ratio = 0;
};

/// @brief Full and tiled figures for one attention call of these sizes, from the counting
/// code the tiled kernel runs.
/// @throws argument_error naming the size for a size that is not a whole number in range, a
/// block size outside 1..m (blockQ) or 1..n (blockK), or a figure past 2^53
cost_report cost_figures(const cost_spec& spec, const std::string& fn = "costFigures");

/// @brief Bytes per element of a dtype name ('float64', 'float32', 'float16', 'bfloat16',
/// 'int8'). @throws argument_error naming `fn` and dtype for any other name.
std::size_t dtype_bytes(const std::string& dtype, const std::string& fn);

/// @brief KV-cache bytes: per token 2 x layers x kv_heads x d_head x bytes(dtype); in all,
/// that times the tokens cached x batch. With a sliding window of w keys the cache is a
/// rolling buffer of the last min(tokens, w) tokens.
/// @param heads when given, the query heads: kv_heads must divide them (require_kv_heads)
/// @throws argument_error naming the size: not a whole number from 1 to 2^53, kv_heads not
/// dividing heads, an unknown dtype, a total past 2^53
struct kv_bytes { double bytes_per_token = 0, tokens_cached = 0, bytes = 0; };
kv_bytes kv_cache_bytes(double layers, double kv_heads, double d_head, const std::string& dtype,
                        double tokens, double batch, const std::string& fn = "kvCacheBytes",
                        std::optional<double> heads = std::nullopt, std::optional<double> window = std::nullopt);

/// @brief The weights of one layer: per head per sequence, n queries each with a weight for
/// min(n, w) keys (n without a window, whose band is all a windowed kernel stores):
/// elements = batch x heads x n x keys_per_query.
struct matrix_bytes { double keys_per_query = 0, elements = 0, bytes = 0; };
matrix_bytes attention_matrix_bytes(double batch, double heads, double n, const std::string& dtype,
                                    const std::string& fn = "attentionMatrixBytes",
                                    std::optional<double> window = std::nullopt);

namespace detail {

/// @brief An exact count that refuses to pass 2^53 (a JavaScript number's exact range).
/// Saturates just past 2^53, so a product of sizes can never wrap; value() then refuses it.
class exact_count {
public:
    exact_count() = default;
    explicit exact_count(std::uint64_t v) : v_(v) { saturate(); }
    exact_count& operator+=(const exact_count& o) { v_ += o.v_; saturate(); return *this; }
    friend exact_count operator+(exact_count a, const exact_count& b) { return a += b; }
    friend exact_count operator*(const exact_count& a, const exact_count& b) {
        exact_count r;
        r.v_ = a.v_ * b.v_;  // each at most 2^53 + 1: the product fits in 128 bits
        r.saturate();
        return r;
    }
    exact_count& operator++() { return *this += exact_count(1); }
    /// @throws argument_error "<fn>: <what> is past 2^53, ...; expected smaller sizes"
    double value(const std::string& fn, const char* what) const;

private:
    static constexpr std::uint64_t past = (std::uint64_t(1) << 53) + 1;
    void saturate() { if (v_ > past) v_ = past; }
    unsigned __int128 v_ = 0;
};

/// @brief Running figures of the tiled method, filled by plan_tiles.
struct tile_tally {
    exact_count floats_read, multiply_adds, blocks_computed, blocks_skipped;
};

/// @brief What plan_tiles calls for each tile to compute: a pointer to the caller's callable
/// and a function that calls it with (i0, i1, j0, j1). Nothing is copied or allocated; an
/// empty visitor only tallies. (std::function would add its type-erasure classes, their
/// type names and a copy of the callable to the wasm module, for a callable that is only
/// ever called in place.)
struct tile_visitor {
    void* callable = nullptr;
    void (*call)(void* callable, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) = nullptr;

    tile_visitor() = default;
    template <class F>
    explicit tile_visitor(F& f)
        : callable(&f), call([](void* c, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
              (*static_cast<F*>(c))(i0, i1, j0, j1);
          }) {}
};

/// @brief Walks the tiles of one batch slice: for each row block [i0, i1) of block_q rows,
/// the key blocks [j0, j1) of block_k keys that at least one of its rows may see (by
/// masks.range) are passed to `visit` in order; the others are skipped. Tallies the reads
/// (Q once per row block that visits anything, K and V once per tile) and multiply-adds.
/// An empty `visit` only tallies.
void plan_tiles(const row_masks& masks, std::size_t batch, std::size_t m, std::size_t n,
                std::size_t d_k, std::size_t d_v, std::size_t block_q, std::size_t block_k,
                tile_tally& tally, const tile_visitor& visit = {});

/// @brief Floats the tiled kernel holds beyond inputs and output: a [bq, bk] score block, a
/// key or value block packed for kernels::matmul_packed (the larger of the two), a [bq, d_v]
/// block of weights V, and a running max and sum per row.
exact_count tiled_peak_extra(std::size_t block_q, std::size_t block_k, std::size_t d_k, std::size_t d_v);

/// @brief A block size: the default min(64, limit) when not given, else a whole number in
/// 1..limit. @throws argument_error naming `name` and the limit
std::size_t block_size(const std::optional<double>& given, std::size_t limit, const std::string& fn,
                       const char* name, const char* limit_name);

/// @brief The blocks for a fast memory of `fast_memory` floats, by the rule of FlashAttention
/// (Dao et al. 2022, Algorithm 1): b = ceil(M / 4d) with d = max(d_k, d_v); the block the loop
/// holds (here the query block, the outer loop) is b, and the block it streams (the key block)
/// is min(b, d). Each is capped at the size (m, n). The tiled method's traffic then falls as
/// 1/M: K and V are read once per query block. @throws argument_error naming fastMemory
/// unless it is a whole number from d to 2^53 (the paper's range starts at d)
std::pair<std::size_t, std::size_t> fast_memory_blocks(double fast_memory, std::size_t m, std::size_t n,
                                                       std::size_t d_k, std::size_t d_v, const std::string& fn);

}  // namespace detail

}  // namespace attnlab
