#include "attnlab/language_model.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/tasks.hpp"

namespace attnlab {

void check_model_tokens(const transformer_config& c, const std::int32_t* tokens, std::size_t n, const std::string& fn) {
    if (n < 1 || n > c.seq_len) {
        fail(error_text(fn) << ": tokens has " << n << " entries; expected 1 to " << c.seq_len << " (seqLen)");
    }
    for (std::size_t i = 0; i < n; ++i) to_token(tokens[i], c.vocab, fn, (error_text("tokens[") << i << "]").str());
}

void load_weights(transformer& model, const float* data, std::size_t size, const std::string& fn) {
    if (size != model.param_count()) {
        fail(error_text(fn) << ": the weights hold " << size << " numbers; expected " << model.param_count()
            << " for this model");
    }
    for (std::size_t i = 0; i < size; ++i) {
        if (std::isfinite(data[i])) continue;
        for (const parameter& p : model.parameters()) {
            if (i >= p.offset && i < p.offset + p.size) {
                fail(error_text(fn) << ": " << p.name << index_at{p.shape, i - p.offset} << " is " << double(data[i])
                    << "; expected finite weights");
            }
        }
    }
    model.check_forward_bound(data, fn);
    model.allocate();
    std::copy(data, data + size, model.params());
}

void read_attention(transformer& model, const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn) {
    const transformer_config& c = model.config();
    check_model_tokens(c, tokens, n, fn);
    model.forward(tokens, 1, n);
    const std::size_t per_layer = c.heads * n * n;
    for (std::size_t l = 0; l < c.layers; ++l) std::copy(model.weights(l), model.weights(l) + per_layer, out + l * per_layer);
}

std::vector<double> probabilities_of(const float* logits, std::size_t vocab) {
    // subtract the largest logit so exp never overflows; the sum is then at least 1
    const double top = *std::max_element(logits, logits + vocab);
    std::vector<double> p(vocab);
    double sum = 0;
    for (std::size_t i = 0; i < vocab; ++i) sum += (p[i] = std::exp(static_cast<double>(logits[i]) - top));
    for (double& x : p) x /= sum;
    return p;
}

std::vector<next_token> top_tokens(const std::vector<double>& probabilities, std::size_t k) {
    std::vector<next_token> all(probabilities.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = {static_cast<std::int32_t>(i), probabilities[i]};
    k = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                      [](const next_token& a, const next_token& b) {
                          return a.probability != b.probability ? a.probability > b.probability : a.id < b.id;
                      });
    all.resize(k);
    return all;
}

// Only the layout until weights load: a file that does not fit is refused before any buffer is taken.
language_model::language_model(const transformer_config& config, const std::string& fn) : model_(config, 1, fn, max_seq_len, false) {}

void language_model::set_weights(const float* data, std::size_t size, const std::string& fn) {
    loaded_ = false;
    load_weights(model_, data, size, fn);
    loaded_ = true;
}

void language_model::ready(const std::string& fn) const {
    if (!loaded_) fail(error_text(fn) << ": the model has no weights; expected set_weights() to have succeeded first");
}

void language_model::attention(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn) {
    ready(fn);
    read_attention(model_, tokens, n, out, fn);
}

void language_model::next_logits(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn) {
    ready(fn);
    const transformer_config& c = model_.config();
    check_model_tokens(c, tokens, n, fn);
    model_.forward(tokens, 1, n);
    const float* last = model_.logits() + (n - 1) * c.vocab;  // logits: [n, vocab]
    std::copy(last, last + c.vocab, out);
}

std::vector<next_token> language_model::predict(const std::int32_t* tokens, std::size_t n, std::size_t k,
                                                const std::string& fn) {
    if (k < 1 || k > max_top) fail(error_text(fn) << ": top = " << k << "; expected a whole number from 1 to " << max_top);
    std::vector<float> logits(model_.config().vocab);
    next_logits(tokens, n, logits.data(), fn);
    return top_tokens(probabilities_of(logits.data(), logits.size()), k);
}

std::vector<head_scores> language_model::scores(const std::int32_t* tokens, std::size_t n, const std::string& fn) {
    const transformer_config& c = model_.config();
    std::vector<float> p(c.layers * c.heads * n * n);  // [layers, heads, n, n]
    attention(tokens, n, p.data(), fn);
    std::vector<head_scores> out;
    for (std::size_t s = 0; s < c.layers * c.heads; ++s) {
        head_score_sums sums;
        sums.add_self(p.data() + s * n * n, n, tokens);
        out.push_back(scores_of(sums));
    }
    return out;
}

}  // namespace attnlab
