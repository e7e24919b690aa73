#pragma once
/// @file multihead.hpp
/// @brief Multi-head self-attention, as a loop over heads and as one batched call.

#include <cstddef>
#include <optional>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief How multi_head_attention splits the work across heads.
enum class mha_method {
    loop,     ///< one attention call per head on column slices of the projections
    batched,  ///< project once, split to [h, n, d_head], one batched attention call, merge
};

/// @brief Inputs of multi_head_attention. Widths: X [n, d_model], W_Q and W_K [d_model, D_k],
/// W_V [d_model, D_v], W_O [D_v, d_out] (optional: without it the output is the concatenation).
/// Each head gets D_k / h query/key columns and D_v / h value columns.
struct mha_inputs {
    tensor x, w_q, w_k, w_v;
    std::optional<tensor> w_o;
    std::size_t heads = 1;
    bool causal = false;
    mha_method method = mha_method::batched;
    /// Batched only. The common bug: merge heads by reshaping [h, n, d_head] straight to [n, h * d_head]
    /// without moving the head axis back first. Shapes still fit; values are scrambled.
    bool forget_merge_transpose = false;
    std::optional<double> scale;  ///< defaults to 1/sqrt(D_k / h); checked as attention() does
};

/// @brief Every stage of a multi-head call. h = heads, d_head = D_k / h, d_vh = D_v / h.
struct mha_result {
    tensor q, k;          ///< per-head projections: [h, n, d_head]
    tensor v;             ///< [h, n, d_vh]
    tensor scores;        ///< [h, n, n]
    tensor weights;       ///< [h, n, n]
    tensor head_outputs;  ///< [h, n, d_vh]
    tensor concat;        ///< heads merged: [n, D_v]
    tensor output;        ///< concat W_O: [n, d_out] (= concat without W_O)
    float scale = 1.0f;
};

/// @brief Multi-head self-attention of X.
/// @throws argument_error for bad ranks or widths, heads not dividing D_k or D_v,
/// non-finite values, and any product that overflows float32 (naming its inputs)
mha_result multi_head_attention(const mha_inputs& in);

/// @brief [rows, cols] matrix product of a [rows, inner] and b [inner, cols] (plain kernel).
/// @throws argument_error naming `fn`, `a_name`, `b_name` if the inner widths differ or an
/// entry of the product overflows float32
tensor matmul(const tensor& a, const tensor& b, const std::string& fn = "matmul", const char* a_name = "a",
              const char* b_name = "b");

}  // namespace attnlab
