// A bound on every activation of a transformer's forward pass from its weights alone, for any
// tokens: what lets a model or trainer refuse, at load, weights whose forward pass would
// overflow float32 (attention scores of inf - inf = NaN, a NaN loss, head scores of nothing).
#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/transformer.hpp"

namespace attnlab {

namespace {

double max_abs(const float* w, std::size_t n) {
    double m = 0;
    for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(static_cast<double>(w[i])));
    return m;
}

// The largest sum of |w| down one column of w [in, out]: for y = x w, max |y| <= max |x| times it.
double column_norm(const float* w, std::size_t in, std::size_t out) {
    double m = 0;
    for (std::size_t j = 0; j < out; ++j) {
        double sum = 0;
        for (std::size_t i = 0; i < in; ++i) sum += std::fabs(static_cast<double>(w[i * out + j]));
        m = std::max(m, sum);
    }
    return m;
}

}  // namespace

void transformer::check_forward_bound(const float* w, const std::string& fn) const {
    const transformer_config& c = config_;
    const std::size_t d = c.d_model, h = c.mlp;
    // Each stage's bound, checked as it is reached: the first past the limit names its weights.
    const auto check = [&](double bound, std::size_t offset, double limit = max_activation) {
        if (bound <= limit) return;
        const parameter* p = &layout_.front();
        for (const parameter& q : layout_) if (q.offset == offset) p = &q;
        fail(error_text(fn) << ": " << p->name << " can take the forward pass to " << bound
            << " (a bound over every input); expected weights that keep every activation within " << max_activation
            << " and every attention score within " << max_score << ", so that float32 cannot overflow");
    };
    // the layer norm's output: each (x - mean) / std is at most sqrt(d) in size
    const auto norm = [&](std::size_t gain, std::size_t bias) {
        return std::sqrt(static_cast<double>(d)) * max_abs(w + gain, d) + max_abs(w + bias, d);
    };
    // positions: a learned table's largest entry; a sinusoid's is at most 1; RoPE, ALiBi and none add nothing here
    const double pos = c.positions == position_kind::learned ? max_abs(w + pos_emb_, c.seq_len * d)
                       : c.positions == position_kind::sinusoidal ? 1.0 : 0.0;
    double x = max_abs(w + tok_emb_, c.vocab * d) + pos;
    // RoPE turns each pair of q's and k's dimensions: an entry can grow to the pair's length, sqrt(2)
    // times the larger, so a score to 2x; ALiBi adds at most its steepest slope times the context.
    const double turned = c.positions == position_kind::rope ? 2.0 : 1.0;
    double bias = 0;
    if (c.positions == position_kind::alibi) for (float s : slopes_) bias = std::max(bias, static_cast<double>(s) * static_cast<double>(c.seq_len));
    check(x, tok_emb_);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const block_params& b = blocks_[l];
        const double in = c.layer_norm ? norm(b.ln1_gain, b.ln1_bias) : x;
        // q, k and v; the scores are at most d_head q k, the attention's output at most |v|
        const double qkv = in * column_norm(w + b.qkv, d, 3 * d);
        check(qkv, b.qkv);
        check(turned * qkv * qkv * static_cast<double>(c.d_head()) + bias, b.qkv, max_score);
        x += qkv * column_norm(w + b.out, d, d);
        check(x, b.out);
        if (!h) continue;
        const double m = c.layer_norm ? norm(b.ln2_gain, b.ln2_bias) : x;
        const double hidden = m * column_norm(w + b.mlp_in, d, h) + max_abs(w + b.mlp_in_bias, h);
        check(hidden, b.mlp_in);
        x += hidden * column_norm(w + b.mlp_out, h, d) + max_abs(w + b.mlp_out_bias, d);  // |f(z)| <= |z|
        check(x, b.mlp_out);
    }
    const double last = c.layer_norm ? norm(final_gain_, final_bias_) : x;
    check(last * column_norm(w + unembed_, d, c.vocab) + max_abs(w + unembed_bias_, c.vocab), unembed_);
}

}  // namespace attnlab
