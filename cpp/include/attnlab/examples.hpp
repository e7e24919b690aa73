#pragma once
/// @file examples.hpp
/// @brief The lessons' running examples as input data. Every derived number (scores,
/// weights, outputs) is computed by the engine from these, never stored.

#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Tokens with their query, key and value vectors, and (where the lesson shows the
/// projection step) embeddings X with W_Q, W_K, W_V such that X W_Q = Q, X W_K = K, X W_V = V.
struct example_inputs {
    std::vector<std::string> tokens;  ///< one per row of Q, K, V
    tensor q, k, v;                   ///< [n, d_k], [n, d_k], [n, d_v]
    tensor x;                         ///< [n, d_model], or empty
    tensor w_q, w_k, w_v;             ///< [d_model, d_k], [d_model, d_k], [d_model, d_v], or empty
};

/// @brief "time flies like an arrow" with d_k = d_v = 4: "flies" attends mostly to "arrow"
/// (its score row is [0, 6, 0, 0, 9]); "like" and "an" spread their attention.
/// Embeddings: d_model = 6, twice a one-hot code plus a shared "content word" feature, so
/// X X^T has a strong diagonal (Q = K = V = X attends mostly to itself).
example_inputs time_flies_example();

/// @brief One query, two keys, d_k = 2: q = [1, 0], k1 = [1, 0], k2 = [0, 1],
/// v1 = [10, 0], v2 = [0, 6]. Q has one row; K and V have two.
example_inputs worked_example();

}  // namespace attnlab
