#pragma once
/// @file half.hpp
/// @brief IEEE 754 half precision (binary16) as stored bits, for weights files half the size
/// of float32 ones. C++17 has no 16-bit float type, so the bits are converted by hand.

#include <cstddef>
#include <cstdint>

namespace attnlab {

/// @brief The binary16 nearest to x (ties to even): overflow gives infinity, values below the
/// smallest subnormal (2^-24) round to a signed 0, NaN stays NaN.
std::uint16_t float_to_half(float x);

/// @brief The float of binary16 bits h: exact (every half is a float).
float half_to_float(std::uint16_t h);

/// @brief out[i] = float_to_half(x[i]) for i < n.
void floats_to_halves(const float* x, std::uint16_t* out, std::size_t n);

/// @brief out[i] = half_to_float(h[i]) for i < n.
void halves_to_floats(const std::uint16_t* h, float* out, std::size_t n);

}  // namespace attnlab
