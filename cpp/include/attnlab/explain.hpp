#pragma once
/// @file explain.hpp
/// @brief Every arithmetic step behind one query row of attention, for step-through views:
/// the dot-product terms, scaling, masking, exponentials, normalisation and weighted values.

#include <cstddef>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief One query row worked through. n = keys, d_k, d_v widths.
struct row_derivation {
    std::size_t row = 0;
    float scale = 1;
    tensor terms;            ///< q_i[d] * k_j[d]: [n, d_k]; scores are their row sums
    tensor scores;           ///< [n]
    tensor scaled;           ///< [n]
    tensor masked;           ///< [n], -infinity where hidden
    double row_max = 0;      ///< largest masked entry (-infinity if all are hidden)
    tensor exp_raw;          ///< exp(masked) in float32 without the max shift (may overflow to inf or underflow to 0): [n]
    tensor exp_shifted;      ///< exp(masked - row_max): [n]
    double sum_raw = 0;      ///< sum of exp_raw, accumulated in float32 (inf once any term overflows)
    double sum_shifted = 0;  ///< sum of exp_shifted
    /// exp_raw / sum_raw in float32: the naive softmax, kept to show why the max is subtracted.
    /// It is NaN when exp_raw overflows (inf / inf) or every term underflows (0 / 0); `weights` never is.
    tensor naive_weights;    ///< [n]
    /// Largest |naive_weights - weights| over the keys whose naive weight is a number (0 when
    /// none is): float32 rounding of the naive path, where it did not overflow or underflow.
    double naive_error = 0;
    tensor weights;          ///< [n]
    tensor weighted_values;  ///< weights[j] * v_j: [n, d_v]; their column sums are the output
    tensor output;           ///< [d_v]
    bool fully_masked = false;
};

/// @brief Works through query `row` of attention(q, k, v, opts) for 2-D inputs.
/// @throws argument_error for non-matrix inputs, a row out of range, or what attention() rejects
row_derivation explain_row(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts, std::size_t row);

}  // namespace attnlab
