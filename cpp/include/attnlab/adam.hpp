#pragma once
/// @file adam.hpp
/// @brief Adam with decoupled weight decay (AdamW; Loshchilov and Hutter 2019).

#include <cstddef>
#include <vector>

#include "attnlab/transformer.hpp"

namespace attnlab {

/// @brief The optimiser's settings. beta1, beta2 and eps are the usual defaults' neighbours
/// for short runs: beta2 = 0.99 lets the second moment follow a loss that changes fast.
struct adam_options {
    double lr = 3e-3;
    double weight_decay = 0;  ///< per step, each decayed weight loses lr * weight_decay of itself
    double beta1 = 0.9;
    double beta2 = 0.99;
    double eps = 1e-8;
};

/// @brief Adam's moments for a flat parameter vector, and the update.
class adam {
public:
    explicit adam(std::size_t size) : m_(size, 0.0f), v_(size, 0.0f) {}

    /// @brief One update of params from grads (same length as the moments):
    /// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; with t the update's number from 1,
    /// w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + lr weight_decay w (only
    /// for the parameters whose `decay` is set).
    void update(float* params, const float* grads, const std::vector<parameter>& layout, const adam_options& o);

    std::size_t updates() const { return t_; }

private:
    std::vector<float> m_, v_;
    std::size_t t_ = 0;
    double beta1_t_ = 1, beta2_t_ = 1;  // beta1^t and beta2^t
};

}  // namespace attnlab
