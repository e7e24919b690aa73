#include "attnlab/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/ablation.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/random.hpp"

namespace attnlab {

namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

void check_range(std::size_t x, std::size_t lo, std::size_t hi, const std::string& fn, const char* name) {
    if (x < lo || x > hi) {
        fail(error_text(fn) << ": " << name << " = " << x << "; expected a whole number from " << lo << " to " << hi);
    }
}

std::size_t product(const shape_t& s) {
    std::size_t p = 1;
    for (std::size_t x : s) p *= x;
    return p;
}

}  // namespace

transformer::transformer(const transformer_config& c, std::size_t batch, const std::string& fn, std::size_t max_len, bool allocate_now)
    : config_(c), max_batch_(batch) {
    check_range(c.vocab, 2, max_vocab, fn, "vocab");
    check_range(c.seq_len, 2, max_len, fn, "seqLen");
    check_range(c.layers, 1, max_layers, fn, "layers");
    check_range(c.heads, 1, max_heads, fn, "heads");
    check_range(c.d_model, 1, max_d_model, fn, "dModel");
    check_range(c.mlp, 0, max_mlp, fn, "mlp");
    check_range(batch, 1, max_batch, fn, "batch");
    if (c.d_model % c.heads != 0) {
        fail(error_text(fn) << ": heads = " << c.heads << " does not divide dModel = " << c.d_model
            << "; expected a number of heads that splits dModel evenly (d_head = dModel / heads)");
    }
    const std::size_t d = c.d_model, v = c.vocab, t = c.seq_len, h = c.mlp;
    const std::size_t rows = batch * t, dh = c.d_head();

    // Packed matrix operands: below 2^31 within the limits.
    std::size_t scratch = std::max({grad::linear_scratch(rows, d, 3 * d), grad::linear_scratch(rows, d, d),
                                    grad::linear_scratch(rows, d, v), grad::attention_scratch(t, t, dh, dh)});
    if (h) scratch = std::max({scratch, grad::linear_scratch(rows, d, h), grad::linear_scratch(rows, h, d)});
    const std::size_t wide = std::max(3 * d, h);
    // The plan, counted in 64 bits (wasm's size_t has 32) before anything is allocated.
    {
        using u64 = std::uint64_t;
        const u64 D = d, V = v, T = t, Hd = h, R = rows, L = c.layers, ln = c.layer_norm ? 1 : 0;
        const u64 learned = c.positions == position_kind::learned ? 1 : 0;
        u64 params = V * D + learned * T * D + D * V + V + ln * 2 * D;
        u64 block_params = 4 * D * D + ln * 2 * D;
        if (h) block_params += D * Hd + Hd + Hd * D + D + ln * 2 * D;
        params += L * block_params;
        u64 block_act = R * D * 9 + u64(batch) * c.heads * T * T + ln * (R * D + 2 * R);
        if (h) block_act += R * D + 2 * R * Hd + ln * (R * D + 2 * R);
        const u64 acts = L * block_act + R * D + ln * (R * D + 2 * R) + R * V + R;
        const u64 scr = u64(scratch) + R * V + R * D * 6 + R * wide + T * T;
        const u64 total = 4 * params + acts + scr;
        if (total > max_plan_floats) {
            fail(error_text(fn) << ": this model needs " << total << " floats (" << (total * 4 + (1 << 20) - 1) / (1 << 20)
                << " MB) to train with batch = " << batch << "; expected at most " << max_plan_floats
                << " (256 MB): make batch, seqLen, dModel, mlp or vocab smaller");
        }
        plan_.parameters = static_cast<std::size_t>(params);
        plan_.activations = static_cast<std::size_t>(acts);
        plan_.scratch = static_cast<std::size_t>(scr);
    }
    scratch_floats_ = scratch;
    tok_emb_ = add_parameter(none, "tokenEmbedding", {v, d}, true);
    position_setup(fn);
    for (std::size_t l = 0; l < c.layers; ++l) {
        block_params b{none, none, none, none, none, none, none, none, none, none};
        if (c.layer_norm) {
            b.ln1_gain = add_parameter(l, "ln1.gain", {d}, false);
            b.ln1_bias = add_parameter(l, "ln1.bias", {d}, false);
        }
        b.qkv = add_parameter(l, "qkv", {d, 3 * d}, true);
        b.out = add_parameter(l, "out", {d, d}, true);
        if (h) {
            if (c.layer_norm) {
                b.ln2_gain = add_parameter(l, "ln2.gain", {d}, false);
                b.ln2_bias = add_parameter(l, "ln2.bias", {d}, false);
            }
            b.mlp_in = add_parameter(l, "mlp.in", {d, h}, true);
            b.mlp_in_bias = add_parameter(l, "mlp.inBias", {h}, false);
            b.mlp_out = add_parameter(l, "mlp.out", {h, d}, true);
            b.mlp_out_bias = add_parameter(l, "mlp.outBias", {d}, false);
        }
        blocks_.push_back(b);
    }
    if (c.layer_norm) {
        final_gain_ = add_parameter(none, "final.gain", {d}, false);
        final_bias_ = add_parameter(none, "final.bias", {d}, false);
    }
    unembed_ = add_parameter(none, "unembedding", {d, v}, true);
    unembed_bias_ = add_parameter(none, "unembeddingBias", {v}, false);

    if (allocate_now) allocate();
}

void transformer::allocate() {
    if (!params_.empty()) return;
    const transformer_config& c = config_;
    const std::size_t d = c.d_model, v = c.vocab, t = c.seq_len, h = c.mlp, batch = max_batch_;
    const std::size_t rows = batch * t, wide = std::max(3 * d, h);
    params_.assign(param_count(), 0.0f);
    grads_.assign(params_.size(), 0.0f);
    // The activations and scratch, from one arena (the tokens, counted in the plan, are ints).
    arena_.assign(plan_.activations + plan_.scratch - rows, 0.0f);
    acts_.resize(c.layers);
    for (block_acts& a : acts_) {
        a = block_acts{};
        a.x = take(rows * d);
        a.qkv = take(rows * 3 * d);
        a.heads = take(3 * rows * d);
        a.weights = take(batch * c.heads * t * t);
        a.o = take(rows * d);
        a.merged = take(rows * d);
        if (c.layer_norm) {
            a.a = take(rows * d);
            a.ln1 = take(2 * rows);
        }
        if (h) {
            a.mid = take(rows * d);
            a.hidden = take(rows * h);
            a.act = take(rows * h);
            if (c.layer_norm) {
                a.m = take(rows * d);
                a.ln2 = take(2 * rows);
            }
        }
    }
    tokens_.resize(rows);
    last_ = take(rows * d);
    if (c.layer_norm) {
        final_ = take(rows * d);
        final_stats_ = take(2 * rows);
    }
    logits_ = take(rows * v);
    dlogits_ = take(rows * v);
    dx_ = take(rows * d);
    dtmp_ = take(rows * d);
    dwide_ = take(rows * wide);
    dheads_ = take(3 * rows * d);
    dheads_o_ = take(rows * d);
    ds_ = take(t * t);
    scratch_ = take(scratch_floats_);
}

float* transformer::take(std::size_t floats) {
    float* p = arena_.data() + taken_;
    taken_ += floats;
    return p;
}

std::size_t transformer::add_parameter(std::size_t layer, const char* name, const shape_t& shape, bool decay) {
    const std::size_t offset = layout_.empty() ? 0 : layout_.back().offset + layout_.back().size;
    // "layers.<layer>.<name>", or the name alone for the model's own tables
    error_text full(layer == none ? "" : "layers.");
    if (layer != none) full << layer << ".";
    layout_.push_back(parameter{(full << name).str(), shape, offset, product(shape), decay});
    return offset;
}

void transformer::initialise(std::uint64_t seed) {
    normal_generator gen(seed);
    const double layers = static_cast<double>(config_.layers);
    for (const parameter& p : layout_) {
        float* w = params_.data() + p.offset;
        const std::string& n = p.name;
        const auto ends_with = [&](const char* tail) {
            const std::string t(tail);
            return n.size() >= t.size() && n.compare(n.size() - t.size(), t.size(), t) == 0;
        };
        double stddev = 0, constant = 0;
        if (n == "tokenEmbedding" || n == "positionEmbedding") {
            stddev = 1.0;
        } else if (ends_with(".gain")) {
            constant = 1.0;
        } else if (p.shape.size() == 2) {
            stddev = 1.0 / std::sqrt(static_cast<double>(p.shape[0]));  // 1 / sqrt(fan_in)
            if (ends_with(".out")) stddev /= std::sqrt(2.0 * layers);  // the writes into the residual stream
        }
        for (std::size_t i = 0; i < p.size; ++i) {
            w[i] = static_cast<float>(stddev > 0 ? gen.normal() * stddev : constant);
        }
    }
}

void transformer::forward(const std::int32_t* tokens, std::size_t batch, std::size_t n) {
    const std::size_t d = config_.d_model, rows = batch * n;
    batch_ = batch;
    n_ = n;
    std::copy(tokens, tokens + rows, tokens_.begin());
    // the residual stream starts as token embedding + position embedding
    grad::embed(tokens, params_.data() + tok_emb_, position_table(), acts_[0].x, rows, n, d);
    for (std::size_t l = 0; l < config_.layers; ++l) {
        block_forward(l, acts_[l].x, l + 1 < config_.layers ? acts_[l + 1].x : last_);
    }
    const float* f = last_;
    if (config_.layer_norm) {
        grad::layer_norm(last_, params_.data() + final_gain_, params_.data() + final_bias_, final_,
                         final_stats_, rows, d);
        f = final_;
    }
    grad::linear(f, params_.data() + unembed_, params_.data() + unembed_bias_, logits_, rows, d,
                 config_.vocab, scratch_);
}

void transformer::block_forward(std::size_t l, const float* x, float* next) {
    const transformer_config& c = config_;
    const block_params& b = blocks_[l];
    block_acts& a = acts_[l];
    const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* scratch = scratch_;
    const float* in = x;
    if (c.layer_norm) {
        grad::layer_norm(x, w + b.ln1_gain, w + b.ln1_bias, a.a, a.ln1, rows, d);
        in = a.a;
    }
    grad::linear(in, w + b.qkv, nullptr, a.qkv, rows, d, 3 * d, scratch);  // [rows, 3d]
    // split into heads: q, k, v each [batch, heads, n, d_head]
    const std::size_t slab = rows * d;
    kernels::move_heads(a.qkv, a.heads, false, 3, batch_, n, H, dh);
    rotate_heads(a.heads, false);  // RoPE: q and k turned to their positions (kept so for the backward)
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    for (std::size_t s = 0; s < batch_ * H; ++s) {
        const float* q = a.heads + s * n * dh;
        grad::causal_attention(q, q + slab, q + 2 * slab, a.weights + s * n * n, a.o + s * n * dh, n, dh,
                               dh, scale, scratch, slopes_.empty() ? 0.0f : slopes_[s % H]);
    }
    if (patch_) patch_->apply(l, a.o, batch_, n);
    kernels::move_heads(a.merged, a.o, true, 1, batch_, n, H, dh);  // merge the heads back into [rows, d]
    float* after = c.mlp ? a.mid : next;
    grad::linear(a.merged, w + b.out, nullptr, dtmp_, rows, d, d, scratch);
    std::copy(x, x + rows * d, after);
    kernels::add(after, dtmp_, rows * d);
    if (!c.mlp) return;
    const float* m = a.mid;
    if (c.layer_norm) {
        grad::layer_norm(a.mid, w + b.ln2_gain, w + b.ln2_bias, a.m, a.ln2, rows, d);
        m = a.m;
    }
    grad::linear(m, w + b.mlp_in, w + b.mlp_in_bias, a.hidden, rows, d, c.mlp, scratch);
    grad::activate(c.act, a.hidden, a.act, rows * c.mlp);
    grad::linear(a.act, w + b.mlp_out, w + b.mlp_out_bias, dtmp_, rows, c.mlp, d, scratch);
    std::copy(a.mid, a.mid + rows * d, next);
    kernels::add(next, dtmp_, rows * d);
}

grad::cross_entropy_totals transformer::loss(const std::int32_t* targets, const std::uint8_t* scored) {
    const std::size_t rows = batch_ * n_;
    std::size_t count = 0;
    for (std::size_t r = 0; r < rows; ++r) count += scored[r] ? 1 : 0;
    loss_scale_ = count ? 1.0f / static_cast<float>(count) : 0.0f;
    return grad::softmax_cross_entropy(logits_, targets, scored, rows, config_.vocab, loss_scale_,
                                       dlogits_);
}

void transformer::backward() {
    const transformer_config& c = config_;
    const std::size_t d = c.d_model, n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* g = grads_.data();
    const float* f = c.layer_norm ? final_ : last_;
    grad::linear_backward(f, w + unembed_, dlogits_, dx_, g + unembed_, g + unembed_bias_, rows, d,
                          c.vocab, scratch_);
    if (c.layer_norm) {
        grad::layer_norm_backward(last_, w + final_gain_, final_stats_, dx_, dx_,
                                  g + final_gain_, g + final_bias_, rows, d);
    }
    for (std::size_t l = c.layers; l-- > 0;) block_backward(l, dx_);
    // embeddings: each row's gradient goes to its token's and its position's row
    grad::embed_backward(tokens_.data(), dx_, g + tok_emb_, c.positions == position_kind::learned ? g + pos_emb_ : nullptr,
                         rows, n, d, c.vocab, c.seq_len);
}

void transformer::block_backward(std::size_t l, float* dx) {
    const transformer_config& c = config_;
    const block_params& b = blocks_[l];
    block_acts& a = acts_[l];
    const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* g = grads_.data();
    float* scratch = scratch_;
    if (c.mlp) {
        // next = mid + f(m W1 + b1) W2 + b2: dx is the gradient at next, and at mid through the residual
        grad::linear_backward(a.act, w + b.mlp_out, dx, dwide_, g + b.mlp_out, g + b.mlp_out_bias, rows,
                              c.mlp, d, scratch);
        grad::activate_backward(c.act, a.hidden, dwide_, dwide_, rows * c.mlp);
        const float* m = c.layer_norm ? a.m : a.mid;
        grad::linear_backward(m, w + b.mlp_in, dwide_, dtmp_, g + b.mlp_in, g + b.mlp_in_bias, rows, d,
                              c.mlp, scratch);
        if (c.layer_norm) {
            grad::layer_norm_backward(a.mid, w + b.ln2_gain, a.ln2, dtmp_, dtmp_,
                                      g + b.ln2_gain, g + b.ln2_bias, rows, d);
        }
        kernels::add(dx, dtmp_, rows * d);
    }
    // mid = x + merged Wo
    grad::linear_backward(a.merged, w + b.out, dx, dtmp_, g + b.out, nullptr, rows, d, d, scratch);
    kernels::move_heads(dtmp_, dheads_o_, false, 1, batch_, n, H, dh);  // the gradient at merged, per head
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    const std::size_t slab = rows * d;
    for (std::size_t s = 0; s < batch_ * H; ++s) {
        const std::size_t at = s * n * dh;
        const float* q = a.heads + at;
        float* dq = dheads_ + at;
        grad::attention_backward(a.weights + s * n * n, q, q + slab, q + 2 * slab, a.o + at,
                                 dheads_o_ + at, n, n, dh, dh, scale, dq, dq + slab, dq + 2 * slab, ds_,
                                 scratch);
    }
    rotate_heads(dheads_, true);  // RoPE's backward: dq and dk turned back
    kernels::move_heads(dwide_, dheads_, true, 3, batch_, n, H, dh);  // dq, dk, dv into the gradient at qkv
    const float* in = c.layer_norm ? a.a : a.x;
    grad::linear_backward(in, w + b.qkv, dwide_, dtmp_, g + b.qkv, nullptr, rows, d, 3 * d, scratch);
    if (c.layer_norm) {
        grad::layer_norm_backward(a.x, w + b.ln1_gain, a.ln1, dtmp_, dtmp_, g + b.ln1_gain,
                                  g + b.ln1_bias, rows, d);
    }
    kernels::add(dx, dtmp_, rows * d);
}

void transformer::position_setup(const std::string& fn) {
    const transformer_config& c = config_;
    switch (c.positions) {
        case position_kind::learned:
            pos_emb_ = add_parameter(none, "positionEmbedding", {c.seq_len, c.d_model}, true);
            break;
        case position_kind::sinusoidal:
            fixed_positions_ = sinusoidal_table(c.seq_len, c.d_model, default_position_base, fn);
            break;
        case position_kind::rope:
            if (c.d_head() % 2 != 0) {
                fail(error_text(fn) << ": positions = 'rope' needs an even d_head (RoPE turns pairs of dimensions); dModel = "
                    << c.d_model << " / heads = " << c.heads << " gives " << c.d_head());
            }
            rope_ = rope_table(0, c.seq_len, c.d_head(), default_position_base, rope_layout::interleaved);
            break;
        case position_kind::alibi:
            slopes_ = alibi_slopes(c.heads, fn, "heads");
            break;
        case position_kind::none:
            break;
    }
}

const float* transformer::position_table() const {
    return config_.positions == position_kind::learned      ? params_.data() + pos_emb_
           : config_.positions == position_kind::sinusoidal ? fixed_positions_.data()
                                                             : nullptr;
}

void transformer::rotate_heads(float* heads, bool inverse) {
    if (config_.positions != position_kind::rope) return;
    // q then k, each [batch, heads, n, d_head]: every slice's rows at positions 0..n-1
    const std::size_t dh = config_.d_head(), slices = 2 * batch_ * config_.heads;
    for (std::size_t s = 0; s < slices; ++s) rope_.rotate(heads + s * n_ * dh, n_, 0, inverse);
}

const float* transformer::weights(std::size_t layer) const { return acts_[layer].weights; }

}  // namespace attnlab
