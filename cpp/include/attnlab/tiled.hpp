#pragma once
/// @file tiled.hpp
/// @brief Tiled attention with an online softmax (the FlashAttention idea), and a
/// block-by-block account of the online softmax for one row.
///
/// The keys are walked block by block. Each query row keeps a running maximum m, a running
/// sum l and a running output o; for a block of scaled, masked scores s:
///   m' = max(m, max s);  p = exp(s - m');  l' = exp(m - m') l + sum p;  o' = exp(m - m') o + p V.
/// At the end output = o / l and the row's log-sum-exp is m + log l. The m x n matrix is
/// never held: only one block of scores at a time.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/cost.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Options for tiled_attention(): the masks causal, valid_lens and window (an explicit
/// `mask` is refused), the scale, and block sizes (default min(64, m) and min(64, n)).
struct tiled_options : attention_options {
    std::optional<double> block_q, block_k;
};

struct tiled_result {
    tensor output;  ///< [..., m, d_v]; 0 for a fully masked row
    tensor lse;     ///< [..., m]: log-sum-exp of the row's scaled, masked scores; -inf when fully masked
    std::size_t block_q = 0, block_k = 0;
    float scale = 1.0f;
    method_cost figures;  ///< as cost_figures() counts them, for the masks actually given
};

/// @brief softmax(mask(Q K^T * scale)) V computed block by block.
/// @param q [..., m, d_k], @param k [..., n, d_k], @param v [..., n, d_v] (same leading axes)
/// @throws argument_error naming `fn` and the argument for bad shapes, values, masks, block
/// sizes outside 1..m / 1..n, and scores or outputs past float32
tiled_result tiled_attention(const tensor& q, const tensor& k, const tensor& v, const tiled_options& opts = {},
                             const std::string& fn = "tiledAttention");

/// @brief One key block of the online softmax for one row, before and after its update.
struct online_block {
    std::size_t start = 0, end = 0;  ///< keys [start, end)
    std::vector<float> scores;       ///< the block's scaled, masked scores
    float block_max = 0, max_before = 0, max_after = 0;
    float rescale = 0;               ///< exp(max_before - max_after); 0 while max_before = -inf
    float sum_before = 0, sum_after = 0;
    std::vector<float> output_before, output_after;  ///< the unnormalised running output o
    bool skipped = false;            ///< every key of the block is masked: nothing changes
};

struct online_softmax_trace {
    std::size_t row = 0;
    float scale = 1.0f;
    std::vector<float> scores;        ///< [n] scaled, masked; -inf where masked
    std::vector<online_block> blocks;
    std::vector<float> output;        ///< o / l after the last block (0 when fully masked)
    float lse = 0;
    std::vector<float> weights;       ///< the ordinary softmax of `scores`, for comparison
    std::vector<float> full_output;   ///< the same row of attention()
};

/// @brief The online softmax of one query row, block by block, with the full softmax beside it.
/// @param q [m, d_k], k [n, d_k], v [n, d_v]: one head; @param row the query row
/// @param block keys per block (default min(4, n)); masks and scale as in `opts`
online_softmax_trace explain_online_softmax(const tensor& q, const tensor& k, const tensor& v, std::size_t row,
                                            const attention_options& opts, std::optional<double> block,
                                            const std::string& fn = "explainOnlineSoftmax");

namespace detail {

/// @brief What tiled_attention needs to know before its loop, checked once (tiled_setup.cpp).
struct tiled_setup {
    shape_t lead;
    std::size_t batches = 1, m = 0, n = 0, d_k = 0, d_v = 0;
    row_masks masks;
};

/// @brief Checks Q, K, V (the same shape rules and messages as attention()), refuses an
/// explicit mask, resolves the scale and block sizes into `r`, and allocates r.output and r.lse.
tiled_setup setup_tiled(const tensor& q, const tensor& k, const tensor& v, const tiled_options& opts,
                        const std::string& fn, tiled_result& r);

/// @brief Throws argument_error naming the first non-finite scaled score of the tile s
/// [rows, cols] at query row i0, key j0 of batch slice b.
[[noreturn]] void throw_score_overflow(const float* s, std::size_t rows, std::size_t cols, const tiled_setup& d,
                                       std::size_t b, std::size_t i0, std::size_t j0, const std::string& fn);

/// @brief r.figures from the tally of every batch slice (exact, at most 2^53).
void finish_figures(const tile_tally& tally, const tiled_setup& d, tiled_result& r, const std::string& fn);

/// @brief The online-softmax update of one row for one block, shared by the kernel and the
/// explanation: `s` (count scaled, masked scores) becomes p = exp(s - m'); `running_max` and
/// `running_sum` are updated. Returns the factor exp(m - m') the running output must be
/// multiplied by (0 while nothing was seen, so a stale output can never leak in).
float online_softmax_step(float* s, std::size_t count, float& running_max, float& running_sum);

}  // namespace detail

}  // namespace attnlab
