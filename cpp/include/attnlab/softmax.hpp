#pragma once
/// @file softmax.hpp
/// @brief Numerically safe softmax over any axis.

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Softmax of `x` along `axis` (negative counts from the end, -1 = last).
///
/// Each line along the axis has its maximum subtracted before exponentiating, so inputs
/// like [1000, 1001, 1002] give the same result as [0, 1, 2]. Entries may be -infinity
/// (masked); a line that is entirely -infinity becomes all zeros, never NaN.
/// @param x tensor of rank >= 1 with finite entries or -infinity
/// @param axis axis to normalise over, in [-rank, rank)
/// @return tensor of x's shape whose lines along `axis` sum to 1 (or are all 0)
/// @throws argument_error for rank 0, an empty axis, NaN or +infinity, or a bad axis
tensor softmax(const tensor& x, int axis = -1);

}  // namespace attnlab
