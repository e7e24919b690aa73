#pragma once
/// @file tensor.hpp
/// @brief The tensor type used across the library and small helpers for shapes.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/size.hpp"

namespace attnlab {

/// @brief Row-major float tensor of any rank. Containers only: hot loops use `.data()`.
using tensor = xt::xarray<float>;

/// @brief A tensor shape as a plain vector of extents.
using shape_t = std::vector<std::size_t>;

/// @brief Upper bound on the floats one call may allocate for its results (1 GiB of floats).
inline constexpr std::size_t default_max_elements = std::size_t(1) << 28;

/// @brief "[2, 3, 4]" for a shape.
std::string shape_string(const shape_t& shape);

/// @brief The shape of `t` as a shape_t.
shape_t shape_of(const tensor& t);

/// @brief The shape [...lead, ...tail].
shape_t with_tail(const shape_t& lead, std::initializer_list<std::size_t> tail);

/// @brief Product of extents; throws argument_error "<fn>: <what> [shape] ..." if it overflows
/// or exceeds `limit`.
std::size_t checked_size(const shape_t& shape, std::size_t limit, const std::string& fn, const char* what);

/// @brief A number as JavaScript would print it: "4", "0.5", "1e-60", "NaN", "-Infinity"
/// (the shortest text that reads back as the same double).
std::string number_string(double x);

/// @brief "[1, 2]" multi-index of a flat row-major offset within `shape` ("" for a scalar).
std::string index_string(const shape_t& shape, std::size_t flat);

/// @brief Throws argument_error if `t` holds NaN or +/-infinity (or -infinity only when
/// `allow_neg_inf` is false), naming `fn`, `name` and the first offending index.
void require_finite(const tensor& t, const std::string& fn, const char* name, bool allow_neg_inf = false);

/// @brief Throws argument_error if `t` has a zero extent, naming `fn` and `name`.
void require_nonempty(const tensor& t, const std::string& fn, const char* name);

/// @brief Throws argument_error naming `fn` and `what` at the first entry of c[rows, cols] that
/// is not finite: a product or sum of finite inputs that overflowed float32.
void require_no_overflow(const float* c, const shape_t& shape, const std::string& fn, const char* what,
                         const char* inputs);

/// @brief Makes a tensor of `shape` whose entries are left for the caller to fill. The one
/// place a shape_t becomes a tensor's shape: in wasm, each way of building xtensor's shape
/// type (from a vector, from a pointer range) is its own copy of the code.
tensor empty(const shape_t& shape);

/// @brief empty() for a shape written out, as in `empty({m, n})`: out of line, so a call site
/// does not build xtensor's shape type itself.
tensor empty(std::initializer_list<std::size_t> shape);

/// @brief Makes a zero-filled tensor of `shape`.
tensor zeros(const shape_t& shape);

/// @brief Largest |a - b| over two tensors of one shape.
/// @throws argument_error naming `fn` if the shapes differ or an entry is NaN or infinite
/// (a NaN is never "no difference")
double max_abs_diff(const tensor& a, const tensor& b, const std::string& fn = "maxAbsDiff");

}  // namespace attnlab
