#pragma once
/// @file attention_backward.hpp
/// @brief The gradients of scaled dot-product attention with respect to Q, K and V.

#include <string>

#include "attnlab/attention.hpp"

namespace attnlab {

/// @brief The gradients of a loss L at Q, K, V, given dL/d(output), and at the softmax's input.
struct attention_gradients {
    tensor dq;  ///< [..., m, d_k]
    tensor dk;  ///< [..., n, d_k]
    tensor dv;  ///< [..., n, d_v]
    /// dL/d(masked scores) [..., m, n]: each row sums to 0 (up to rounding); entries a mask
    /// hides, and whole fully masked rows, are exactly 0.
    tensor ds;
    float scale = 1.0f;  ///< the scale the forward pass used
};

/// @brief Backward of attention(q, k, v, opts): recomputes the weights P and output O, then
/// dV = P^T dO; dP = dO V^T; D = rowsum(dO o O); dS = P o (dP - D); dQ = scale dS K;
/// dK = scale dS^T Q, for every batch slice.
/// @param d_out dL/d(output), [..., m, d_v] like the output, finite
/// @throws argument_error naming `fn` for anything attention() refuses, a d_out of the wrong
/// shape or with a value that is not finite, or a gradient that overflows float32
attention_gradients attention_backward(const tensor& q, const tensor& k, const tensor& v, const tensor& d_out,
                                       const attention_options& opts = {},
                                       const std::string& fn = "attentionBackward");

}  // namespace attnlab
