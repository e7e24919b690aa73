#pragma once
/// @file head_scores.hpp
/// @brief What kind of head an attention pattern belongs to, as numbers: the scores the
/// literature uses to find previous-token heads, induction heads, sinks and broad heads.
///
/// Each score is a mean of per-row quantities over the rows it is defined for. Scores over
/// several patterns (a head on several sequences) are pooled row by row with
/// head_score_sums, so every row weighs the same whatever sequence it came from.

#include <cstddef>
#include <cstdint>
#include <optional>

namespace attnlab {

/// @brief Running sums behind the scores of one head, over one or more patterns.
struct head_score_sums {
    double entropy = 0;        ///< sum over rows of -sum_j p log p (nats)
    std::size_t rows = 0;      ///< rows counted in `entropy`
    double previous = 0;       ///< sum over rows i >= 1 of p[i][i-1]
    double first = 0;          ///< sum over rows i >= 1 of p[i][0]
    double diagonal = 0;       ///< sum over rows i >= 1 of p[i][i]
    std::size_t later_rows = 0;  ///< rows i >= 1 counted in previous, first and diagonal
    double prefix = 0;         ///< sum over scored rows of their prefix-matching weight
    std::size_t prefix_rows = 0;  ///< rows that had an earlier copy of their token
    double prefix_apart = 0;   ///< the same weight on keys j <= i - 2 only, over rows that have one
    std::size_t prefix_apart_rows = 0;  ///< rows with such a key
    double next = 0;           ///< sum over rows i <= n - 2 of p[i][i+1]
    std::size_t next_rows = 0;   ///< rows counted in `next`
    double special = 0;        ///< sum over rows i >= 1 of their weight on special keys j >= 1
    std::size_t special_rows = 0;  ///< rows counted in `special` (none when no key j >= 1 is special)

    /// @brief Adds one self-attention pattern p[n, n] (row-major; rows sum to 1, or are all 0
    /// for a fully masked row, which counts nowhere). Row 0 is left out of the positional
    /// scores: a causal model must put all its weight on itself there, which says nothing
    /// about the head. `tokens` (n ids, or nullptr) enables the prefix-matching score;
    /// `special_keys` (n flags, 1 or 0, or nullptr) marks the special tokens ([CLS], [SEP], ...) for the
    /// special-token score, which leaves out key 0 (the first-token score's).
    void add_self(const float* p, std::size_t n, const std::int32_t* tokens = nullptr, const std::int32_t* special_keys = nullptr);

    /// @brief Adds a cross-attention pattern p[m, n]: only the entropy is defined there.
    void add_cross(const float* p, std::size_t m, std::size_t n);
};

/// @brief The scores of one head; a score with no row to average over is empty.
struct head_scores {
    /// Mean row entropy in nats: 0 for a head that looks at one key, log(k) for one that
    /// spreads evenly over k keys.
    std::optional<double> entropy;
    /// Previous-token score: the mean weight of row i on key i - 1, over rows i >= 1.
    std::optional<double> previous_token;
    /// First-token ("sink") score: the mean weight of row i on key 0, over rows i >= 1.
    std::optional<double> first_token;
    /// Diagonal score: the mean weight of row i on itself, over rows i >= 1.
    std::optional<double> diagonal;
    /// Prefix-matching score (Olsson et al. 2022): for each row i whose token occurred
    /// earlier, the total weight on the keys just after those earlier occurrences (keys j <= i
    /// with tokens[j - 1] == tokens[i]); the mean over such rows. An induction head scores
    /// near 1 on a repeated block of random tokens.
    std::optional<double> prefix_matching;
    /// Prefix matching apart from the query's own key and the one before it: the weight on keys
    /// j <= i - 2 just after an earlier copy of the row's token, over rows that have such a key.
    /// On text where a token comes back two places later ("the cat sat": the key after the first
    /// "at" is the one just before the second), plain prefix matching also credits a
    /// previous-token head (key i - 1), and a doubled token a head on itself (key i); this score
    /// gives neither of them anything, so it tells an induction head from them on any text.
    std::optional<double> prefix_matching_apart;
    /// Next-token score: the mean weight of row i on key i + 1, over rows i <= n - 2 (a
    /// bidirectional model's; under a causal mask that key is hidden, so it is always 0).
    std::optional<double> next_token;
    /// Special-token score: the mean total weight of row i on the special tokens after key 0
    /// (BERT's [SEP]; key 0, BERT's [CLS], is the first-token score's), over rows i >= 1.
    /// Empty when no key after the first is special.
    std::optional<double> special_tokens;
};

/// @brief The means of the sums.
head_scores scores_of(const head_score_sums& sums);

}  // namespace attnlab
