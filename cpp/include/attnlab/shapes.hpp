#pragma once
/// @file shapes.hpp
/// @brief The shape of every tensor in one multi-head attention layer, for chosen sizes.

#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Sizes of one attention layer. d_k = 0 means d_model / heads; d_v = 0 means d_k.
struct layer_sizes {
    std::size_t batch = 1, n = 5, d_model = 8, heads = 1, d_k = 0, d_v = 0;
};

/// @brief One named tensor of the pipeline.
struct shape_step {
    std::string id;       ///< stable key, e.g. "scores"
    std::string name;     ///< what it is, e.g. "scores"
    std::string formula;  ///< how it is made, e.g. "Q Kᵀ" (empty for inputs)
    shape_t shape;
};

/// @brief What trace_shapes reports.
struct shape_trace {
    std::vector<shape_step> steps;  ///< in pipeline order
    double parameters = 0;          ///< weights in W_Q, W_K, W_V, W_O (no biases)
    double score_entries = 0;       ///< entries of the attention matrices: batch * h * n^2
};

/// @brief Shapes from embeddings through Q, K, V, scores, weights, head outputs, the merge
/// and W_O. With one head the head axis is left out, as single-head attention is written.
/// @throws argument_error if a size is 0 (d_k, d_v: unset) or above 100,000, or heads does
/// not divide d_model when d_k is left to be derived
shape_trace trace_shapes(const layer_sizes& sizes);

}  // namespace attnlab
