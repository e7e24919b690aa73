#pragma once
/// @file mask.hpp
/// @brief Attention masks: causal, padding by valid lengths, and explicit boolean masks.
///
/// All masks are optional and combine with AND: a key is visible to a query only if every
/// given mask allows it. Masked scores become -infinity before the softmax.

#include <cstddef>
#include <optional>
#include <string>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Which keys each query may attend to.
struct mask_options {
    /// Query i may see key j only if j <= i + (n - m): the usual lower triangle when m = n,
    /// aligned to the last key when m != n (so one new query sees the whole cache).
    bool causal = false;
    /// Keys at positions >= the valid length are padding. Shape: a prefix of [...batch, m]:
    /// one length per batch element ([...batch]), per query row ([...batch, m]), or fewer
    /// leading axes to share lengths across heads. Integers in [0, n].
    std::optional<tensor> valid_lens;
    /// 1 = may attend, 0 = masked; broadcastable (NumPy rules) to [...batch, m, n].
    std::optional<tensor> mask;
    /// Sliding window: the query at position p (aligned as for `causal`) sees only the last
    /// `window` keys, p - window < j <= p (so it also hides the future). A whole number >= 1;
    /// a double so that any value from JavaScript is checked before it is narrowed.
    std::optional<double> window;
};

/// @brief The keys one query row may see under causal, window and valid lengths: [begin, end).
struct key_range {
    std::size_t begin = 0, end = 0;
    bool empty() const { return begin >= end; }
};

/// @brief Masks validated against one attention call's shapes, queried row by row.
class row_masks {
public:
    /// @param opts the masks to apply
    /// @param lead the leading batch/head axes of Q
    /// @param m query count, @param n key count
    /// @param fn function name used in error messages
    /// @throws argument_error if a mask's shape or values do not fit
    row_masks(const mask_options& opts, const shape_t& lead, std::size_t m, std::size_t n,
              const std::string& fn);

    /// @brief True if some mask is set.
    bool any() const { return causal_ || window_ || valid_lens_ || mask_; }

    /// @brief The one rule for "may query `row` of batch slice `batch` see key j" under causal,
    /// window and valid lengths: exactly the j in the returned range. Full and tiled attention
    /// and the KV cache all ask this. (The explicit mask is applied on top, by mask_row.)
    key_range range(std::size_t batch, std::size_t row) const;

    /// @brief The end of range(batch, row).
    std::size_t limit(std::size_t batch, std::size_t row) const { return range(batch, row).end; }

    /// @brief True when the visible range depends on the batch slice (valid lengths are set).
    bool per_batch() const { return valid_lens_.has_value(); }

    /// @brief True when an explicit boolean mask is set.
    bool has_mask() const { return mask_.has_value(); }

    /// @brief Row i of batch slice b of the explicit mask (entries spaced by column_stride()),
    /// or nullptr when there is no explicit mask.
    const float* mask_row(std::size_t batch, std::size_t row) const;

    /// @brief Distance between neighbouring keys in mask_row (0 when broadcast).
    std::size_t column_stride() const { return mask_strides_.empty() ? 0 : mask_strides_.back(); }

private:
    std::size_t offset(const shape_t& strides, std::size_t batch, std::size_t row) const;

    shape_t lead_;
    std::size_t m_, n_;
    bool causal_;
    std::size_t window_ = 0;  // 0: no window
    std::optional<tensor> valid_lens_;
    shape_t valid_strides_;  // over [...lead, m], 0 where broadcast
    std::optional<tensor> mask_;
    shape_t mask_strides_;   // over [...lead, m, n], 0 where broadcast
};

}  // namespace attnlab
