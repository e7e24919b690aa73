#pragma once
/// @file stats.hpp
/// @brief The sqrt(d_k) experiment: how large are dot products of random vectors?

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnlab/random.hpp"

namespace attnlab {

/// @brief Sample statistics of q.k over many draws.
struct dot_stats {
    double mean = 0;
    double variance = 0;  ///< unbiased (divides by samples - 1)
    double std = 0;
    double expected_std = 0;  ///< theory: sqrt(d_k)
};

/// @brief Draws `samples` pairs q, k with d_k independent standard-normal entries each and
/// measures q.k. Theory: mean 0, variance d_k, standard deviation sqrt(d_k).
/// The same (d_k, samples, seed) always gives the same numbers on every platform.
/// @param d_k vector length, 1 .. 65536
/// @param samples number of pairs, 2 .. 10,000,000, with d_k * samples <= 100,000,000
/// @param seed any integer in [0, 2^53)
/// @throws argument_error naming the argument that is out of range
dot_stats dot_product_stats(double d_k, double samples, double seed);

/// @brief The same experiment in steps, so a page can spread it over several short tasks.
/// Any split of N samples over add() gives exactly dot_product_stats(d_k, N, seed).
class dot_product_sampler {
public:
    /// @throws argument_error for d_k or seed out of the ranges of dot_product_stats
    dot_product_sampler(double d_k, double seed);
    /// @brief Draws `count` more pairs (a whole number >= 1); the running total stays within
    /// the limits of dot_product_stats.
    /// @throws argument_error naming `count`, leaving the sampler as it was
    void add(double count);
    /// @brief Pairs drawn so far.
    std::size_t samples() const { return count_; }
    /// @brief Statistics of the pairs drawn so far.
    /// @throws argument_error before two pairs are drawn
    dot_stats result() const;

private:
    normal_generator gen_;
    double d_k_;
    std::size_t count_ = 0;
    // Welford's running mean and sum of squared deviations: stable for any sample count.
    double mean_ = 0, m2_ = 0;
};

/// @brief How saturated one softmax row gets for random q, k at one d_k.
struct saturation_point {
    double d_k = 0;
    double max_weight_scaled = 0;    ///< largest softmax weight with scores / sqrt(d_k)
    double max_grad_scaled = 0;      ///< largest |d weight_i / d score_j| with scaling
    double max_weight_unscaled = 0;  ///< the same without scaling
    double max_grad_unscaled = 0;
};

/// @brief For each d_k: one query against `keys` keys with standard-normal entries, the
/// row's largest softmax weight and the largest entry of its Jacobian diag(p) - p p^T,
/// with and without the 1/sqrt(d_k) scale, averaged over `trials` draws.
/// The Jacobian's entries are at most 0.25 and fall towards 0 as the row saturates.
/// @throws argument_error for an empty or out-of-range d_k list, keys < 2, trials < 1
std::vector<saturation_point> softmax_saturation(const std::vector<double>& d_ks, double keys,
                                                 double trials, double seed);

}  // namespace attnlab
