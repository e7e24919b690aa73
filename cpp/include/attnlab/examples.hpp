#pragma once
/// @file examples.hpp
/// @brief The lessons' running examples as input data. Every derived number (scores,
/// weights, outputs) is computed by the engine from these, never stored.

#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Tokens with their query, key and value vectors.
struct example_inputs {
    std::vector<std::string> tokens;  ///< one per row of Q, K, V
    tensor q, k, v;                   ///< [n, d_k], [n, d_k], [n, d_v]
};

/// @brief "time flies like an arrow" with d_k = d_v = 4: "flies" attends mostly to "arrow"
/// (its score row is [0, 6, 0, 0, 9]); "like" and "an" spread their attention.
example_inputs time_flies_example();

/// @brief One query, two keys, d_k = 2: q = [1, 0], k1 = [1, 0], k2 = [0, 1],
/// v1 = [10, 0], v2 = [0, 6]. Q has one row; K and V have two.
example_inputs worked_example();

}  // namespace attnlab
