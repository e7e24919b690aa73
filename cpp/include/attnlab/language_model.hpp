#pragma once
/// @file language_model.hpp
/// @brief A trained transformer (transformer.hpp) used for reading only: weights in, every
/// head's attention and the next token's probabilities out. It needs no training text, no
/// optimiser and room for one sequence only, so a shipped model loads small and fast.
///
/// The checks and reads here are also the trainer's (trainer.cpp), so a model read through a
/// trainer and through a language_model gives the same numbers.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/head_scores.hpp"
#include "attnlab/transformer.hpp"

namespace attnlab {

/// @brief One candidate next token.
struct next_token {
    std::int32_t id = 0;
    double probability = 0;
};

/// @brief Checks tokens [n] against a model: n from 1 to seq_len, each id below vocab.
/// @throws argument_error "<fn>: tokens has <n> entries; expected 1 to <seq_len> (seqLen)", or
/// to_token's message naming tokens[i]
void check_model_tokens(const transformer_config& c, const std::int32_t* tokens, std::size_t n, const std::string& fn);

/// @brief Replaces a model's weights with `size` floats in parameters() order, taking the
/// model's buffers (transformer::allocate) only once they pass every check.
/// @throws argument_error naming `fn` for a wrong count, a value that is not finite (named by
/// its parameter and index), or weights that could overflow the forward pass (named by the
/// parameter, transformer::check_forward_bound)
void load_weights(transformer& model, const float* data, std::size_t size, const std::string& fn);

/// @brief Runs tokens [n] (checked) through the model and copies every head's attention
/// weights into out[layers, heads, n, n]: rows sum to 1, 0 above the diagonal.
void read_attention(transformer& model, const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn);

/// @brief The softmax of logits [vocab], in double: probabilities summing to 1.
std::vector<double> probabilities_of(const float* logits, std::size_t vocab);

/// @brief The k largest probabilities (k clipped to their count), largest first; equal
/// probabilities in id order.
std::vector<next_token> top_tokens(const std::vector<double>& probabilities, std::size_t k);

class language_model {
public:
    /// Longest list top_next_tokens returns.
    static constexpr std::size_t max_top = 100;

    /// @brief A model of this shape with every weight 0 until set_weights().
    /// @throws argument_error naming `fn` and the field for a configuration outside the
    /// transformer's limits
    language_model(const transformer_config& config, const std::string& fn);

    const transformer_config& config() const { return model_.config(); }
    const std::vector<parameter>& parameters() const { return model_.parameters(); }
    std::size_t param_count() const { return model_.param_count(); }

    /// @brief load_weights() into this model; after a failure the model holds no weights and
    /// refuses to run until weights load.
    void set_weights(const float* data, std::size_t size, const std::string& fn);

    /// @brief read_attention() of tokens [n]: out[layers, heads, n, n].
    /// @throws argument_error naming `fn` for bad tokens, or when no weights were set
    void attention(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn);

    /// @brief The logits of the token after tokens [n] (the last position's row): out[vocab].
    /// @throws as attention()
    void next_logits(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn);

    /// @brief The k (1..max_top) most probable next tokens after tokens [n], largest first.
    /// @throws as attention(), and for k outside 1..max_top
    std::vector<next_token> predict(const std::int32_t* tokens, std::size_t n, std::size_t k, const std::string& fn);

    /// @brief Every head's scores (head_scores.hpp) on its own attention over tokens [n], with
    /// the tokens for prefix matching: [layers * heads], layer by layer.
    /// @throws as attention()
    std::vector<head_scores> scores(const std::int32_t* tokens, std::size_t n, const std::string& fn);

    /// @brief The model itself, for other reads (ablation.cpp).
    /// @throws argument_error naming `fn` when no weights were set
    transformer& network(const std::string& fn) {
        ready(fn);
        return model_;
    }

private:
    void ready(const std::string& fn) const;
    transformer model_;
    bool loaded_ = false;
};

}  // namespace attnlab
