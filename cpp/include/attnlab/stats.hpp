#pragma once
/// @file stats.hpp
/// @brief The sqrt(d_k) experiment: how large are dot products of random vectors?

#include <cstdint>

namespace attnlab {

/// @brief Sample statistics of q.k over many draws.
struct dot_stats {
    double mean = 0;
    double variance = 0;  ///< unbiased (divides by samples - 1)
    double std = 0;
};

/// @brief Draws `samples` pairs q, k with d_k independent standard-normal entries each and
/// measures q.k. Theory: mean 0, variance d_k, standard deviation sqrt(d_k).
/// The same (d_k, samples, seed) always gives the same numbers on every platform.
/// @param d_k vector length, 1 .. 65536
/// @param samples number of pairs, 2 .. 10,000,000, with d_k * samples <= 100,000,000
/// @param seed any integer in [0, 2^53)
/// @throws argument_error naming the argument that is out of range
dot_stats dot_product_stats(double d_k, double samples, double seed);

}  // namespace attnlab
