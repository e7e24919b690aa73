#pragma once
/// @file patterns.hpp
/// @brief Attention patterns made elsewhere (a real model's weights, pasted by a course author):
/// whether they are attention weights at all, and the head scores of each (head_scores.hpp).
///
/// The patterns arrive as one tensor [count, m, n], a matrix per (layer, head): row i of a
/// matrix is query i's weights over the n keys.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/head_scores.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief What the patterns claim to be, which decides what counts as a fault.
struct pattern_rule {
    /// The numbers were rounded to this many decimals (a whole number from 0 to 8) to keep a
    /// page small; empty when they were not rounded.
    std::optional<double> decimals;
    /// Self-attention under a causal mask: query i puts no weight on keys after it (the keys
    /// row_masks hides with `causal`, so j > i when m = n).
    bool causal = false;
};

/// @brief The largest |row sum - 1| accepted for a row over n keys: 1e-3 (float16 storage
/// moves a weight by at most 2^-11 of itself, so a row's sum by less than 5e-4), plus, when the
/// numbers were rounded to d decimals, half a unit of the last decimal kept for each key
/// (0.5 x 10^-d x n), the most that rounding every weight can move the sum.
double row_sum_tolerance(std::size_t n, std::optional<double> decimals);

/// @brief The largest weight accepted on a key a causal row may not see.
constexpr double causal_leak_tolerance = 1e-6;

/// @brief The kinds of fault, in the order each entry is checked.
enum class pattern_fault {
    not_finite,     ///< NaN or an infinity
    negative,       ///< below 0
    future_weight,  ///< causal, and more than causal_leak_tolerance on a hidden key
    row_sum,        ///< the row sums to neither 1 (within row_sum_tolerance) nor 0 (a row that sees no key)
};

/// @brief The first fault found, scanning patterns, rows and columns in order.
struct pattern_problem {
    pattern_fault fault = pattern_fault::not_finite;
    std::size_t pattern = 0;  ///< which of the `count` matrices
    std::size_t row = 0;
    std::size_t column = 0;   ///< the entry at fault (0 for row_sum)
    double value = 0;         ///< the entry, or for row_sum the row's sum
    double tolerance = 0;     ///< row_sum: the accepted |sum - 1|; future_weight: causal_leak_tolerance
};

/// @brief Checks that patterns [count, m, n] are attention weights under `rule`.
/// @param fn the public function's name, for messages about the arguments themselves
/// @return the first fault, or nothing when every entry and row passes
/// @throws argument_error if `patterns` is not [count, m, n] with no zero extent, or
///   rule.decimals is not a whole number from 0 to 8
std::optional<pattern_problem> find_pattern_problem(const tensor& patterns, const pattern_rule& rule, const char* fn);

/// @brief What the scores know of the keys besides their weights.
struct pattern_keys {
    std::vector<std::int32_t> tokens;   ///< n token ids (equal tokens, equal ids) for prefix matching, or none
    std::vector<std::int32_t> special;  ///< n flags (1: a special token such as [CLS] or [SEP]), or none
};

/// @brief The head scores of each pattern on its own (one sequence per head).
/// @param patterns [count, m, n]
/// @param rule rule.causal says which scores apply: under a causal mask the next token is
///   hidden (no next-token score); without one, a head may read the whole text, so prefix
///   matching (an induction head's test, which looks back only) is not defined
/// @param self true for self-attention (m = n, query i is key i): every score; false for
///   cross-attention, where only the entropy means anything
/// @param keys token ids for prefix matching and special-token flags (self-attention), or none
/// @param fn the public function's name, for messages
/// @return `count` scores, in the patterns' order
/// @throws argument_error if `patterns` is not [count, m, n], self-attention is not square, or
///   tokens or special is given with other than n entries (one message names both)
std::vector<head_scores> score_patterns(const tensor& patterns, const pattern_rule& rule, bool self, const pattern_keys& keys,
                                        const char* fn);

}  // namespace attnlab
