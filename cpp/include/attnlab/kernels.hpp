#pragma once
/// @file kernels.hpp
/// @brief Hot loops over contiguous row-major float memory.
///
/// These are shaped so that `-O3 -msimd128` (wasm) and `-O3` (native SSE2) vectorise them:
/// no reductions that need reassociation, fixed-size register tiles, branch-free exp.
/// They do no validation; the public functions in attention.hpp and softmax.hpp do.

#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

/// @brief c[m, n] = a[m, k] * b[k, n]. Packs b into a temporary (see matmul_packed).
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
            std::size_t n);

/// @brief Floats needed to hold b[k, n] packed for matmul_packed.
std::size_t packed_size(std::size_t k, std::size_t n);

/// @brief packed_size(k, n) in 64 bits, for counting (cost figures) where k n may pass what a
/// 32-bit size_t holds.
std::uint64_t packed_count(std::uint64_t k, std::uint64_t n);

/// @brief Packs row-major b[k, n] into bp (packed_size(k, n) floats): column panels, each
/// [k][width] contiguous and zero padded, so the matmul reads b front to back.
void pack_b(const float* b, std::size_t k, std::size_t n, float* bp);

/// @brief Packs b = bt^T, for bt[n, k] row-major (keys as rows, for Q K^T), as pack_b would
/// pack b itself; no separate transpose is needed.
void pack_bt(const float* bt, std::size_t n, std::size_t k, float* bp);

/// @brief c[m, n] = a[m, k] * b[k, n], with b packed by pack_b or pack_bt. Each entry is
/// summed over k in order from 0, so the result does not depend on how the work is tiled.
void matmul_packed(const float* a, const float* bp, float* c, std::size_t m, std::size_t k,
                   std::size_t n);

/// @brief c[m, n] = at^T b for at[k, m] row-major (a transposed operand read in place, as
/// for dW = x^T dy), with b packed by pack_b or pack_bt: the same sums in the same order as
/// transpose() then matmul_packed(), so the same bits, without writing the transpose (which,
/// for the trainer's x [1024, 32], writes lines 4 KB apart that evict one another: a quarter
/// of a default training step in wasm went to it, node --cpu-prof).
void matmul_packed_at(const float* at, const float* bp, float* c, std::size_t m, std::size_t k,
                      std::size_t n);

/// @brief y[i] += x[i] for i < n (a residual connection, or a gradient that arrives by two paths).
void add(float* y, const float* x, std::size_t n);

/// @brief Rows [batch * n, parts * d] (each part's d columns split into `heads` slices of d_head)
/// copied to heads [parts, batch, heads, n, d_head], or back to rows when `to_rows` is set.
void move_heads(float* rows, float* heads, bool to_rows, std::size_t parts, std::size_t batch, std::size_t n,
                std::size_t heads_count, std::size_t d_head);

/// @brief The softmax's backward on one row: ds[j] = p[j] (ds[j] - dot) for j < n, where ds
/// holds dL/dp on entry and dot = sum over the row of dL/dp p (a weight of 0 gives exactly 0).
void softmax_backward_row(const float* p, float* ds, std::size_t n, float dot);

/// @brief at[cols, rows] = transpose of a[rows, cols].
void transpose(const float* a, float* at, std::size_t rows, std::size_t cols);

/// @brief True if no x[i] is infinite or NaN.
bool all_finite(const float* x, std::size_t n);

/// @brief y[i] = x[i] * s for i < n. Returns false if any y[i] is infinite or NaN. `x` and `y`
/// are the same array (in place) or do not overlap.
bool scale(const float* x, float* y, std::size_t n, float s);

/// @brief Largest of x[0..n), or -infinity for n = 0.
float row_max(const float* x, std::size_t n);

/// @brief exp(x) for x <= 0 to about 2 ulp (3e-7 relative); exp(-inf) and anything below -87.3 give exactly 0.
float exp_nonpositive(float x);

/// @brief y[j] = exp(x[j] - shift) for j < n, for shift >= every x[j]; returns the sum of
/// the y[j]. `x` and `y` are the same array (in place) or do not overlap.
float exp_shifted_sum(const float* x, float* y, std::size_t n, float shift);

/// @brief y[i] = tanh(x[i]) for i < n, to 2e-7 absolute (vectorised; see kernels.cpp). `x` and
/// `y` are the same array (in place) or do not overlap.
void tanh_map(const float* x, float* y, std::size_t n);

/// @brief Softmax of one row: y = exp(x - max) / sum. Returns false (and writes zeros) when
/// every entry is -infinity, i.e. the row is fully masked. `x` and `y` are the same array (in
/// place) or do not overlap.
bool softmax_row(const float* x, float* y, std::size_t n);

/// @brief s[j] = dot(q, rows[j * stride .. + d)) * scale for j < n: one query against n rows.
/// Returns false if any s[j] is infinite or NaN.
bool scaled_dots(const float* q, const float* rows, std::size_t stride, std::size_t n, std::size_t d, float scale,
                 float* s);

/// @brief out[0..d) += sum over j < n of w[j] * rows[j * stride .. + d). Returns false if any
/// out entry is infinite or NaN afterwards.
bool add_weighted_rows(const float* w, const float* rows, std::size_t stride, std::size_t n, std::size_t d,
                       float* out);

}  // namespace attnlab::kernels
