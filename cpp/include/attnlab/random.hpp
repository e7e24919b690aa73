#pragma once
/// @file random.hpp
/// @brief A small seeded generator that gives the same stream on every platform
/// (std::normal_distribution differs between standard libraries).

#include <cstdint>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief splitmix64 stream with Box-Muller standard normals.
class normal_generator {
public:
    explicit normal_generator(std::uint64_t seed) : state_(seed) {}

    /// @brief Next 64 random bits.
    std::uint64_t next_bits();
    /// @brief Uniform double in (0, 1), never 0.
    double uniform();
    /// @brief Standard normal (mean 0, variance 1).
    double normal();

private:
    std::uint64_t state_;
    double spare_ = 0;
    bool has_spare_ = false;
};

/// @brief A tensor of `shape` with normal entries of standard deviation `stddev`, the same
/// for the same seed on every platform.
/// @throws argument_error for a bad shape, stddev or seed
tensor random_normal(const shape_t& shape, double stddev, double seed);

}  // namespace attnlab
