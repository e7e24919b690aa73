#pragma once
/// @file ablation.hpp
/// @brief Knocking heads out (Olsson et al. 2022): a trained transformer (transformer.hpp) run
/// with some heads' outputs replaced, and the loss and next-token probabilities it then gives.
///
/// A head's output is o_h = softmax(q_h k_h^T / sqrt(d_head), causal) v_h, one d_head row per
/// position, before the layer's output projection Wo. Ablation replaces every row of it:
/// - zero: by 0, which is the model with the head's d_head rows of Wo set to 0;
/// - mean: by the mean of the head's own output over every position of every sequence of a
///   stated batch, read from the model with no head ablated (so one head's mean does not
///   depend on which other heads are knocked out).
/// Ablating every head is allowed and defined: the model with no attention at all (what the
/// embeddings, MLPs and unembedding predict alone, plus the means in mean mode). Ablating no
/// head gives the model as it is.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/trainer.hpp"
#include "attnlab/transformer.hpp"

namespace attnlab {

class language_model;

enum class ablation_mode { zero, mean };

/// @brief Which heads' outputs a forward pass replaces, and by what (transformer::patch_heads).
class head_patch {
public:
    /// @param pairs [layer, head] pairs, flattened: 2 * `count` numbers
    /// @throws argument_error naming `fn` and heads[i] for a layer or head out of range, or a
    /// head given twice
    head_patch(const transformer_config& c, const std::size_t* pairs, std::size_t count, const std::string& fn);

    std::size_t count() const { return count_; }
    bool ablated(std::size_t layer, std::size_t head) const { return on_[layer * heads_ + head] != 0; }
    /// The d_head numbers head (layer, head)'s output rows become (0 until set).
    float* value(std::size_t layer, std::size_t head) { return values_.data() + (layer * heads_ + head) * d_head_; }

    /// Replaces the ablated heads' rows of layer `layer`'s head outputs o [batch, heads, n, d_head].
    void apply(std::size_t layer, float* o, std::size_t batch, std::size_t n) const;

private:
    std::size_t heads_, d_head_, count_ = 0;
    std::vector<std::uint8_t> on_;  // [layers * heads]
    std::vector<float> values_;     // [layers * heads * d_head]
};

/// @brief Mean cross-entropies (nats) over two sets of positions: every position with a
/// target, and the scored ones (the trainer's scored positions; a text's repeated ones).
/// A mean over no position is NaN, and its count 0.
struct ablation_losses {
    double loss = 0, scored_loss = 0;
    std::size_t positions = 0, scored = 0;
};

/// @brief The trainer's model with and without the ablation, on its fixed evaluation set
/// (losses) and on `tokens` (probabilities).
struct trainer_ablation {
    ablation_losses ablated, baseline;
    /// softmax of the logits at every position of the tokens, [n, vocab], in double
    std::vector<double> probabilities, baseline_probabilities;
    /// every head's scores on the trainer's probe (trainer::head_scores) with the ablation: a
    /// knocked-out head's own pattern is still computed (only its output is replaced), so its
    /// scores and those of earlier layers stay; later heads' may move
    std::vector<head_report> scores;
};

/// @brief Runs trainer `t`'s model with `patch`'s heads ablated. Mean mode averages each head's
/// output over the evaluation set (trainer::eval_examples sequences of seqLen tokens). Leaves
/// the model as it was: training afterwards is unaffected.
/// @throws argument_error naming `fn` for bad tokens (1..seqLen ids below vocab)
trainer_ablation ablate(trainer& t, head_patch& patch, ablation_mode mode, const std::int32_t* tokens,
                        std::size_t n, const std::string& fn);

/// @brief A text read by a language model with and without the ablation.
struct text_ablation {
    /// over positions 0..n-2 (each predicting the next token); scored: the repeated positions
    /// (repeated_positions())
    ablation_losses ablated, baseline;
    /// the next token after the text, [vocab], in double
    std::vector<double> probabilities, baseline_probabilities;
};

/// @brief Position i of tokens [n] (i < n - 1) is repeated when the pair (tokens[i],
/// tokens[i + 1]) occurred before, at some j < i: an induction head can predict tokens[i + 1]
/// from the earlier copy. Flags [n] (the last position is never repeated).
std::vector<std::uint8_t> repeated_positions(const std::int32_t* tokens, std::size_t n);

/// @brief Runs model `m` on tokens [n] with `patch`'s heads ablated. Mean mode averages each
/// head's output over every position of the batch: `texts` sequences, lengths[i] tokens each,
/// one after another in batch_tokens.
/// @throws argument_error naming `fn` for bad tokens, a model without weights, or, in mean
/// mode, an empty batch ("meanOver") or a bad sequence in it (named meanOver[i])
text_ablation ablate(language_model& m, head_patch& patch, ablation_mode mode, const std::int32_t* tokens,
                     std::size_t n, const std::int32_t* batch_tokens, const std::size_t* lengths, std::size_t texts,
                     const std::string& fn);

}  // namespace attnlab
