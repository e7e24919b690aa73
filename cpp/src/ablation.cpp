#include "attnlab/ablation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/language_model.hpp"
#include "attnlab/trainer.hpp"

namespace attnlab {

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// Sets the patch on a model for one scope: the model is left unpatched however the scope ends.
class patched {
public:
    patched(transformer& m, const head_patch& p) : m_(m) { m_.patch_heads(&p); }
    ~patched() { m_.patch_heads(nullptr); }
    patched(const patched&) = delete;
    patched& operator=(const patched&) = delete;

private:
    transformer& m_;
};

// Adds every ablated head's output rows of the last forward ([batch, n] rows) into sums
// [layers * heads * d_head].
void add_outputs(const transformer& m, const head_patch& p, std::size_t batch, std::size_t n, std::vector<double>& sums) {
    const transformer_config& c = m.config();
    const std::size_t H = c.heads, dh = c.d_head();
    for (std::size_t l = 0; l < c.layers; ++l) {
        const float* o = m.head_outputs(l);
        for (std::size_t h = 0; h < H; ++h) {
            if (!p.ablated(l, h)) continue;
            double* sum = sums.data() + (l * H + h) * dh;
            for (std::size_t b = 0; b < batch; ++b) {
                const float* rows = o + (b * H + h) * n * dh;
                for (std::size_t i = 0; i < n * dh; ++i) sum[i % dh] += rows[i];
            }
        }
    }
}

// The means from the sums over `rows` positions, into the patch.
void set_means(const transformer_config& c, head_patch& p, const std::vector<double>& sums, std::size_t rows) {
    const std::size_t dh = c.d_head();
    for (std::size_t l = 0; l < c.layers; ++l) {
        for (std::size_t h = 0; h < c.heads; ++h) {
            if (!p.ablated(l, h)) continue;
            float* v = p.value(l, h);
            for (std::size_t i = 0; i < dh; ++i) v[i] = static_cast<float>(sums[(l * c.heads + h) * dh + i] / double(rows));
        }
    }
}

double mean_of(const grad::cross_entropy_totals& t) {
    return t.scored ? t.loss / static_cast<double>(t.scored) : not_a_number;
}

// The softmax of each of `rows` rows of the last forward's logits from first_row, in double, into out [rows, vocab].
void probabilities_into(const transformer& m, std::size_t first_row, std::size_t rows, std::vector<double>& out) {
    const std::size_t V = m.config().vocab;
    out.resize(rows * V);
    for (std::size_t r = 0; r < rows; ++r) {
        const std::vector<double> p = probabilities_of(m.logits() + (first_row + r) * V, V);
        std::copy(p.begin(), p.end(), out.begin() + static_cast<std::ptrdiff_t>(r * V));
    }
}

// The trainer's evaluation set through its model: the losses over every position and over the
// scored ones. With `sums`, also each ablated head's output summed (the model unpatched).
ablation_losses evaluation_losses(trainer& t, const head_patch& p, std::vector<double>* sums) {
    transformer& m = t.network();
    const task_batch& e = t.evaluation_set();
    const std::size_t T = e.n, cap = m.batch_capacity();
    const std::vector<std::uint8_t> every(cap * T, 1);
    grad::cross_entropy_totals all, scored;
    for (std::size_t b0 = 0; b0 < e.batch; b0 += cap) {
        const std::size_t b = std::min(cap, e.batch - b0);
        m.forward(e.tokens.data() + b0 * T, b, T);
        if (sums) add_outputs(m, p, b, T, *sums);
        const grad::cross_entropy_totals a = m.loss(e.targets.data() + b0 * T, every.data());
        const grad::cross_entropy_totals s = m.loss(e.targets.data() + b0 * T, e.scored.data() + b0 * T);
        all.loss += a.loss;
        all.scored += a.scored;
        scored.loss += s.loss;
        scored.scored += s.scored;
    }
    return ablation_losses{mean_of(all), mean_of(scored), all.scored, scored.scored};
}

// Tokens [n] through a model with room for one sequence: losses over positions 0..n-2 and the
// repeated ones, the next token's probabilities into `next`.
ablation_losses text_losses(transformer& m, const std::int32_t* tokens, std::size_t n,
                            const std::vector<std::uint8_t>& repeated, std::vector<double>& next) {
    m.forward(tokens, 1, n);
    // targets: the next token; the last position has none and is never scored
    std::vector<std::int32_t> targets(n, 0);
    std::copy(tokens + 1, tokens + n, targets.begin());
    std::vector<std::uint8_t> every(n, 1);
    every[n - 1] = 0;
    const grad::cross_entropy_totals a = m.loss(targets.data(), every.data());
    const grad::cross_entropy_totals s = m.loss(targets.data(), repeated.data());
    probabilities_into(m, n - 1, 1, next);
    return ablation_losses{mean_of(a), mean_of(s), a.scored, s.scored};
}

}  // namespace

head_patch::head_patch(const transformer_config& c, const std::size_t* pairs, std::size_t count, const std::string& fn)
    : heads_(c.heads), d_head_(c.d_head()), on_(c.layers * c.heads, 0) {
    // at most one entry per head: a longer list repeats one, found at the first head past that
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t layer = pairs[2 * i], head = pairs[2 * i + 1];
        if (layer >= c.layers || head >= c.heads) {
            fail(error_text(fn) << ": heads[" << i << "] = [" << layer << ", " << head << "]: "
                << (layer >= c.layers ? "layer " : "head ") << (layer >= c.layers ? layer : head)
                << " is out of range; expected [layer, head] with layer from 0 to " << c.layers - 1
                << " and head from 0 to " << c.heads - 1);
        }
        if (on_[layer * c.heads + head]) {
            std::size_t first = 0;
            while (pairs[2 * first] != layer || pairs[2 * first + 1] != head) ++first;
            fail(error_text(fn) << ": heads[" << i << "] = [" << layer << ", " << head << "] repeats heads[" << first
                << "]; expected each head at most once");
        }
        on_[layer * c.heads + head] = 1;
    }
    count_ = count;
    values_.assign(on_.size() * d_head_, 0.0f);
}

void head_patch::apply(std::size_t layer, float* o, std::size_t batch, std::size_t n) const {
    if (count_ == 0) return;
    for (std::size_t h = 0; h < heads_; ++h) {
        if (!ablated(layer, h)) continue;
        const float* v = values_.data() + (layer * heads_ + h) * d_head_;
        for (std::size_t b = 0; b < batch; ++b) {
            float* rows = o + (b * heads_ + h) * n * d_head_;
            for (std::size_t i = 0; i < n; ++i) std::copy(v, v + d_head_, rows + i * d_head_);
        }
    }
}

std::vector<std::uint8_t> repeated_positions(const std::int32_t* tokens, std::size_t n) {
    std::vector<std::uint8_t> out(n, 0);
    // the pairs seen so far, searched linearly: n is at most seqLen (256)
    for (std::size_t i = 1; i + 1 < n; ++i) {
        for (std::size_t j = 0; j < i && !out[i]; ++j) out[i] = tokens[j] == tokens[i] && tokens[j + 1] == tokens[i + 1];
    }
    return out;
}

trainer_ablation ablate(trainer& t, head_patch& patch, ablation_mode mode, const std::int32_t* tokens, std::size_t n,
                        const std::string& fn) {
    transformer& m = t.network();
    const transformer_config& c = m.config();
    check_model_tokens(c, tokens, n, fn);
    trainer_ablation r;
    std::vector<double> sums;
    if (mode == ablation_mode::mean) sums.assign(c.layers * c.heads * c.d_head(), 0.0);
    r.baseline = evaluation_losses(t, patch, mode == ablation_mode::mean ? &sums : nullptr);
    if (mode == ablation_mode::mean) {
        const task_batch& e = t.evaluation_set();
        set_means(c, patch, sums, e.batch * e.n);
    }
    m.forward(tokens, 1, n);
    probabilities_into(m, 0, n, r.baseline_probabilities);
    const patched scope(m, patch);
    r.ablated = evaluation_losses(t, patch, nullptr);
    m.forward(tokens, 1, n);
    probabilities_into(m, 0, n, r.probabilities);
    r.scores = t.head_scores();
    return r;
}

text_ablation ablate(language_model& lm, head_patch& patch, ablation_mode mode, const std::int32_t* tokens, std::size_t n,
                     const std::int32_t* batch_tokens, const std::size_t* lengths, std::size_t texts,
                     const std::string& fn) {
    transformer& m = lm.network(fn);
    const transformer_config& c = m.config();
    check_model_tokens(c, tokens, n, fn);
    if (mode == ablation_mode::mean) {
        if (texts == 0) {
            fail(error_text(fn) << ": meanOver is empty; expected at least one text to average the heads' outputs over");
        }
        std::vector<double> sums(c.layers * c.heads * c.d_head(), 0.0);
        std::size_t at = 0;
        for (std::size_t i = 0; i < texts; ++i) {
            check_model_tokens(c, batch_tokens + at, lengths[i], (error_text(fn) << ": meanOver[" << i << "]").str());
            m.forward(batch_tokens + at, 1, lengths[i]);
            add_outputs(m, patch, 1, lengths[i], sums);
            at += lengths[i];
        }
        set_means(c, patch, sums, at);
    }
    const std::vector<std::uint8_t> repeated = repeated_positions(tokens, n);
    text_ablation r;
    r.baseline = text_losses(m, tokens, n, repeated, r.baseline_probabilities);
    const patched scope(m, patch);
    r.ablated = text_losses(m, tokens, n, repeated, r.probabilities);
    return r;
}

}  // namespace attnlab
