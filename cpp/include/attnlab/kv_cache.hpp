#pragma once
/// @file kv_cache.hpp
/// @brief A key/value cache for decoding one token at a time.
///
/// Under the causal mask earlier keys and values never change, so a decoder keeps them and
/// each new token attends its one query row over the cache: O(length d) per step instead of
/// recomputing the prefix, O(length^2 d). Grouped-query attention: h query heads share
/// h_kv key/value heads (h_kv divides h; query head i uses key/value head i / (h / h_kv));
/// multi-query is h_kv = 1. The output shape is the same; the cache shrinks by h / h_kv.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/positions.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief One attend() step: the newest query row over every cached token.
struct kv_step {
    tensor output;   ///< [heads, d_head]
    tensor weights;  ///< [heads, length]
    double multiply_adds = 0;                ///< this step with the cache: heads x length x 2 d_head
    double multiply_adds_without_cache = 0;  ///< recomputing causal attention over the prefix:
                                             ///< heads x length (length + 1) / 2 x 2 d_head
    /// Decoding all `length` tokens one at a time, a step per token: the sum of multiply_adds
    /// over lengths 1..length (heads x length (length + 1) / 2 x 2 d_head, which equals this
    /// step's multiply_adds_without_cache), and of multiply_adds_without_cache
    /// (heads x length (length + 1) (length + 2) / 6 x 2 d_head).
    double decode_multiply_adds = 0;
    double decode_multiply_adds_without_cache = 0;
};

/// @brief The grouped-query rule: kv_heads divides heads (so kv_heads <= heads).
/// @throws argument_error "<fn>: kvHeads = 5 does not divide heads = 32; expected a divisor ..."
void require_kv_heads(std::uint64_t heads, std::uint64_t kv_heads, const std::string& fn);

class kv_cache {
public:
    /// Sizes as JavaScript gives them (doubles), each checked by size_arg before it is narrowed.
    /// @param scale multiplies the scores; default 1/sqrt(d_head)
    /// @throws argument_error naming `fn` and the argument: sizes not whole numbers >= 1,
    /// kv_heads not dividing heads, a query, a token or the full cache past the float limit
    /// (naming the sizes in it), a scale outside float32
    /// @param positions RoPE (the token appended at length L has its key turned to position
    /// rope.offset + L, and the query of attend() to that of the newest token) and ALiBi (one
    /// slope per query head, over the distance to each cached token)
    /// @throws argument_error also for an odd dHead with rope, a bad rope.base, rope.offset or
    /// positions past max_position at maxLength, and heads past ALiBi's slopes
    kv_cache(size_arg heads, size_arg kv_heads, size_arg d_head, size_arg max_length, std::optional<double> scale,
             const std::string& fn = "createKVCache", const position_options& positions = {});

    /// @brief Appends one token's keys and values, each [kv_heads, d_head]. Returns the new length.
    /// @throws argument_error ("KVCache.append: ...") for a wrong shape, a non-finite entry or a full cache
    std::size_t append(const tensor& k, const tensor& v);

    /// @brief Attends q [heads, d_head], the query of the newest token (position length - 1),
    /// over all cached tokens. @throws argument_error ("KVCache.attend: ...") for a wrong
    /// shape, a non-finite entry, an empty cache, or scores or outputs past float32
    kv_step attend(const tensor& q) const;

    std::size_t length() const { return length_; }
    std::size_t max_length() const { return max_length_; }
    std::size_t heads() const { return heads_; }
    std::size_t kv_heads() const { return kv_heads_; }
    std::size_t d_head() const { return d_head_; }
    float scale() const { return scale_; }
    const position_options& positions() const { return positions_; }
    /// @brief float32 bytes per cached token: 2 x kv_heads x d_head x 4.
    double bytes_per_token() const { return 2.0 * kv_heads_ * d_head_ * 4; }
    /// @brief Bytes the cache holds now: length x bytes_per_token().
    double bytes() const { return bytes_per_token() * length_; }

private:
    std::size_t heads_, kv_heads_, d_head_, max_length_, length_ = 0;
    float scale_;
    position_options positions_;
    std::vector<float> slopes_;  // ALiBi's, one per query head (empty without alibi)
    // Per key/value head, its rows one token after another: [kv_heads][length, d_head].
    std::vector<std::vector<float>> keys_, values_;
};

}  // namespace attnlab
