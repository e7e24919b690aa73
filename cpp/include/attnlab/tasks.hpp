#pragma once
/// @file tasks.hpp
/// @brief The training tasks of the trainer: seeded generators of token sequences, with the
/// positions whose next token the loss scores.
///
/// An example is seq_len + 1 tokens s; the model reads s[0..seq_len) and at position t
/// predicts s[t + 1]. `scored` marks the positions whose prediction the task can demand.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/random.hpp"

namespace attnlab {

enum class task_kind {
    /// A block of L distinct random tokens (L drawn from induction_block_range) repeated to fill
    /// the context; scored where the current token has occurred before (t >= L), which only
    /// an induction head can predict.
    induction,
    /// k = seq_len / 2 random tokens, a separator (the last token id), the same k again;
    /// scored on the repeat.
    copy,
    /// As copy, with the tokens reversed after the separator.
    reverse,
    /// As copy, with the tokens sorted (ascending ids) after the separator.
    sort,
    /// Author-supplied sequences, drawn at random; scored from score_from on.
    sequences,
    /// One long author-supplied token stream; each example is a window at a random offset. With
    /// `repeats` above 0, that fraction of the examples repeats the window's first L tokens
    /// (L from seq_len / 8 to seq_len / 2, at least 2) right after them, then goes on with the
    /// stream after those L tokens: text in which only copying from earlier predicts the
    /// second copy, as induction heads do.
    text,
};

/// @brief Which task, and its data for the author-supplied kinds.
struct task_spec {
    task_kind kind = task_kind::induction;
    std::vector<std::vector<std::int32_t>> sequences;  ///< kind == sequences: each 2..seq_len + 1 tokens
    std::vector<std::int32_t> stream;                  ///< kind == text: at least seq_len + 1 tokens
    std::size_t score_from = 0;                        ///< sequences, text: first position scored
    double repeats = 0;                                ///< text: the fraction of examples with a repeated span, 0 to 1
};

/// @brief A batch of examples: tokens, targets and scored, each [batch, n].
struct task_batch {
    std::size_t batch = 0, n = 0;
    std::vector<std::int32_t> tokens, targets;
    std::vector<std::uint8_t> scored;
};

/// @brief The shortest and longest block of the induction task for a context of seq_len
/// tokens and a vocabulary of vocab: [min(4, longest), min(vocab, max(2, seq_len / 2 - 1))].
struct block_range {
    std::size_t shortest, longest;
};
block_range induction_block_range(std::size_t vocab, std::size_t seq_len);

/// @brief A task checked against a model's vocabulary and context.
class task_sampler {
public:
    /// @throws argument_error naming `fn` for a vocabulary or context too small for the task, or
    /// author data with tokens outside the vocabulary or lengths outside the context
    task_sampler(const task_spec& spec, std::size_t vocab, std::size_t seq_len, const std::string& fn);

    /// @brief Fills `out` with `batch` fresh examples drawn from `rng`.
    void sample(normal_generator& rng, std::size_t batch, task_batch& out) const;

    /// @brief One example's seq_len + 1 tokens, drawn from rng, and which of its positions are
    /// scored (seq_len flags).
    void example(normal_generator& rng, std::int32_t* tokens, std::uint8_t* scored) const;

    task_kind kind() const { return spec_.kind; }
    /// @brief Token ids the generated tasks draw from: all of them, or all but the separator.
    std::size_t content_tokens() const;

private:
    task_spec spec_;
    std::size_t vocab_, seq_len_;
    mutable std::vector<std::int32_t> ids_, example_;  // scratch, so drawing allocates nothing
};

/// @brief The one rule for a token id from outside: a whole number from 0 to vocab - 1.
/// @throws argument_error "<fn>: <where> = <x>; expected a token id from 0 to <vocab - 1> (vocab = <vocab>)"
std::int32_t to_token(double x, std::size_t vocab, const std::string& fn, const std::string& where);

/// @brief The task's name as the JavaScript API spells it ('induction', 'copy', ...).
const char* task_name(task_kind kind);

}  // namespace attnlab
