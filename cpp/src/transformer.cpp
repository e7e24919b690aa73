#include "attnlab/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
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

void add_into(float* y, const float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] += x[i];
}

// Rows [batch * n, parts * d] (each part's columns split into `heads` slices of d_head) to
// heads [parts, batch, heads, n, d_head], or back when `to_rows` is set. The copies are a few
// floats each, thousands per step: as loops here, not calls to memcpy, which clang would
// otherwise make of them (no_builtin), and which cost 6% of a default training step in wasm.
#if defined(__clang__)
__attribute__((no_builtin("memcpy", "memmove")))
#endif
void move_heads(float* rows, float* heads, bool to_rows, std::size_t parts, std::size_t batch, std::size_t n,
                std::size_t H, std::size_t dh) {
    const std::size_t d = H * dh, slab = batch * n * d;
    for (std::size_t r = 0; r < batch * n; ++r) {
        const std::size_t b = r / n, t = r % n;
        for (std::size_t part = 0; part < parts; ++part) {
            for (std::size_t h = 0; h < H; ++h) {
                float* row = rows + r * parts * d + part * d + h * dh;
                float* head = heads + part * slab + ((b * H + h) * n + t) * dh;
                const float* from = to_rows ? head : row;
                float* to = to_rows ? row : head;
                for (std::size_t c = 0; c < dh; ++c) to[c] = from[c];
            }
        }
    }
}

}  // namespace

transformer::transformer(const transformer_config& c, std::size_t batch, const std::string& fn)
    : config_(c), max_batch_(batch) {
    check_range(c.vocab, 2, max_vocab, fn, "vocab");
    check_range(c.seq_len, 2, max_seq_len, fn, "seqLen");
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
        u64 params = V * D + T * D + D * V + V + ln * 2 * D;
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
    tok_emb_ = add_parameter("tokenEmbedding", {v, d}, true);
    pos_emb_ = add_parameter("positionEmbedding", {t, d}, true);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        block_params b{none, none, none, none, none, none, none, none, none, none};
        if (c.layer_norm) {
            b.ln1_gain = add_parameter(p + "ln1.gain", {d}, false);
            b.ln1_bias = add_parameter(p + "ln1.bias", {d}, false);
        }
        b.qkv = add_parameter(p + "qkv", {d, 3 * d}, true);
        b.out = add_parameter(p + "out", {d, d}, true);
        if (h) {
            if (c.layer_norm) {
                b.ln2_gain = add_parameter(p + "ln2.gain", {d}, false);
                b.ln2_bias = add_parameter(p + "ln2.bias", {d}, false);
            }
            b.mlp_in = add_parameter(p + "mlp.in", {d, h}, true);
            b.mlp_in_bias = add_parameter(p + "mlp.inBias", {h}, false);
            b.mlp_out = add_parameter(p + "mlp.out", {h, d}, true);
            b.mlp_out_bias = add_parameter(p + "mlp.outBias", {d}, false);
        }
        blocks_.push_back(b);
    }
    if (c.layer_norm) {
        final_gain_ = add_parameter("final.gain", {d}, false);
        final_bias_ = add_parameter("final.bias", {d}, false);
    }
    unembed_ = add_parameter("unembedding", {d, v}, true);
    unembed_bias_ = add_parameter("unembeddingBias", {v}, false);

    params_.assign(layout_.empty() ? 0 : layout_.back().offset + layout_.back().size, 0.0f);
    grads_.assign(params_.size(), 0.0f);
    acts_.resize(c.layers);
    for (auto& a : acts_) {
        a.x.resize(rows * d);
        a.qkv.resize(rows * 3 * d);
        a.heads.resize(3 * rows * d);
        a.weights.resize(batch * c.heads * t * t);
        a.o.resize(rows * d);
        a.merged.resize(rows * d);
        if (c.layer_norm) {
            a.a.resize(rows * d);
            a.ln1.resize(2 * rows);
        }
        if (h) {
            a.mid.resize(rows * d);
            a.hidden.resize(rows * h);
            a.act.resize(rows * h);
            if (c.layer_norm) {
                a.m.resize(rows * d);
                a.ln2.resize(2 * rows);
            }
        }
    }
    tokens_.resize(rows);
    last_.resize(rows * d);
    if (c.layer_norm) {
        final_.resize(rows * d);
        final_stats_.resize(2 * rows);
    }
    logits_.resize(rows * v);
    dlogits_.resize(rows * v);
    dx_.resize(rows * d);
    dtmp_.resize(rows * d);
    dwide_.resize(rows * wide);
    dheads_.resize(3 * rows * d);
    dheads_o_.resize(rows * d);
    ds_.resize(t * t);
    scratch_.resize(scratch);
}

std::size_t transformer::add_parameter(const std::string& name, const shape_t& shape, bool decay) {
    const std::size_t offset = layout_.empty() ? 0 : layout_.back().offset + layout_.back().size;
    layout_.push_back(parameter{name, shape, offset, product(shape), decay});
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
    float* x = acts_[0].x.data();
    const float* te = params_.data() + tok_emb_;
    const float* pe = params_.data() + pos_emb_;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* a = te + static_cast<std::size_t>(tokens[r]) * d;
        const float* b = pe + (r % n) * d;
        for (std::size_t c = 0; c < d; ++c) x[r * d + c] = a[c] + b[c];
    }
    for (std::size_t l = 0; l < config_.layers; ++l) {
        block_forward(l, acts_[l].x.data(), l + 1 < config_.layers ? acts_[l + 1].x.data() : last_.data());
    }
    const float* f = last_.data();
    if (config_.layer_norm) {
        grad::layer_norm(last_.data(), params_.data() + final_gain_, params_.data() + final_bias_, final_.data(),
                         final_stats_.data(), rows, d);
        f = final_.data();
    }
    grad::linear(f, params_.data() + unembed_, params_.data() + unembed_bias_, logits_.data(), rows, d,
                 config_.vocab, scratch_.data());
}

void transformer::block_forward(std::size_t l, const float* x, float* next) {
    const transformer_config& c = config_;
    const block_params& b = blocks_[l];
    block_acts& a = acts_[l];
    const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* scratch = scratch_.data();
    const float* in = x;
    if (c.layer_norm) {
        grad::layer_norm(x, w + b.ln1_gain, w + b.ln1_bias, a.a.data(), a.ln1.data(), rows, d);
        in = a.a.data();
    }
    grad::linear(in, w + b.qkv, nullptr, a.qkv.data(), rows, d, 3 * d, scratch);  // [rows, 3d]
    // split into heads: q, k, v each [batch, heads, n, d_head]
    const std::size_t slab = rows * d;
    move_heads(a.qkv.data(), a.heads.data(), false, 3, batch_, n, H, dh);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    for (std::size_t s = 0; s < batch_ * H; ++s) {
        const float* q = a.heads.data() + s * n * dh;
        grad::causal_attention(q, q + slab, q + 2 * slab, a.weights.data() + s * n * n, a.o.data() + s * n * dh, n, dh,
                               dh, scale, scratch);
    }
    move_heads(a.merged.data(), a.o.data(), true, 1, batch_, n, H, dh);  // merge the heads back into [rows, d]
    float* after = c.mlp ? a.mid.data() : next;
    grad::linear(a.merged.data(), w + b.out, nullptr, dtmp_.data(), rows, d, d, scratch);
    for (std::size_t i = 0; i < rows * d; ++i) after[i] = x[i] + dtmp_[i];
    if (!c.mlp) return;
    const float* m = a.mid.data();
    if (c.layer_norm) {
        grad::layer_norm(a.mid.data(), w + b.ln2_gain, w + b.ln2_bias, a.m.data(), a.ln2.data(), rows, d);
        m = a.m.data();
    }
    grad::linear(m, w + b.mlp_in, w + b.mlp_in_bias, a.hidden.data(), rows, d, c.mlp, scratch);
    grad::activate(c.act, a.hidden.data(), a.act.data(), rows * c.mlp);
    grad::linear(a.act.data(), w + b.mlp_out, w + b.mlp_out_bias, dtmp_.data(), rows, c.mlp, d, scratch);
    for (std::size_t i = 0; i < rows * d; ++i) next[i] = a.mid[i] + dtmp_[i];
}

grad::cross_entropy_totals transformer::loss(const std::int32_t* targets, const std::uint8_t* scored) {
    const std::size_t rows = batch_ * n_;
    std::size_t count = 0;
    for (std::size_t r = 0; r < rows; ++r) count += scored[r] ? 1 : 0;
    loss_scale_ = count ? 1.0f / static_cast<float>(count) : 0.0f;
    return grad::softmax_cross_entropy(logits_.data(), targets, scored, rows, config_.vocab, loss_scale_,
                                       dlogits_.data());
}

void transformer::backward() {
    const transformer_config& c = config_;
    const std::size_t d = c.d_model, n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* g = grads_.data();
    const float* f = c.layer_norm ? final_.data() : last_.data();
    grad::linear_backward(f, w + unembed_, dlogits_.data(), dx_.data(), g + unembed_, g + unembed_bias_, rows, d,
                          c.vocab, scratch_.data());
    if (c.layer_norm) {
        grad::layer_norm_backward(last_.data(), w + final_gain_, final_stats_.data(), dx_.data(), dx_.data(),
                                  g + final_gain_, g + final_bias_, rows, d);
    }
    for (std::size_t l = c.layers; l-- > 0;) block_backward(l, dx_.data());
    // embeddings: each row's gradient goes to its token's and its position's row
    float* gt = g + tok_emb_;
    float* gp = g + pos_emb_;
    std::fill(gt, gt + c.vocab * d, 0.0f);
    std::fill(gp, gp + c.seq_len * d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        add_into(gt + static_cast<std::size_t>(tokens_[r]) * d, dx_.data() + r * d, d);
        add_into(gp + (r % n) * d, dx_.data() + r * d, d);
    }
}

void transformer::block_backward(std::size_t l, float* dx) {
    const transformer_config& c = config_;
    const block_params& b = blocks_[l];
    block_acts& a = acts_[l];
    const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), n = n_, rows = batch_ * n;
    const float* w = params_.data();
    float* g = grads_.data();
    float* scratch = scratch_.data();
    if (c.mlp) {
        // next = mid + f(m W1 + b1) W2 + b2: dx is the gradient at next, and at mid through the residual
        grad::linear_backward(a.act.data(), w + b.mlp_out, dx, dwide_.data(), g + b.mlp_out, g + b.mlp_out_bias, rows,
                              c.mlp, d, scratch);
        grad::activate_backward(c.act, a.hidden.data(), dwide_.data(), dwide_.data(), rows * c.mlp);
        const float* m = c.layer_norm ? a.m.data() : a.mid.data();
        grad::linear_backward(m, w + b.mlp_in, dwide_.data(), dtmp_.data(), g + b.mlp_in, g + b.mlp_in_bias, rows, d,
                              c.mlp, scratch);
        if (c.layer_norm) {
            grad::layer_norm_backward(a.mid.data(), w + b.ln2_gain, a.ln2.data(), dtmp_.data(), dtmp_.data(),
                                      g + b.ln2_gain, g + b.ln2_bias, rows, d);
        }
        add_into(dx, dtmp_.data(), rows * d);
    }
    // mid = x + merged Wo
    grad::linear_backward(a.merged.data(), w + b.out, dx, dtmp_.data(), g + b.out, nullptr, rows, d, d, scratch);
    move_heads(dtmp_.data(), dheads_o_.data(), false, 1, batch_, n, H, dh);  // the gradient at merged, per head
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    const std::size_t slab = rows * d;
    for (std::size_t s = 0; s < batch_ * H; ++s) {
        const std::size_t at = s * n * dh;
        const float* q = a.heads.data() + at;
        float* dq = dheads_.data() + at;
        grad::attention_backward(a.weights.data() + s * n * n, q, q + slab, q + 2 * slab, a.o.data() + at,
                                 dheads_o_.data() + at, n, n, dh, dh, scale, dq, dq + slab, dq + 2 * slab, ds_.data(),
                                 scratch);
    }
    move_heads(dwide_.data(), dheads_.data(), true, 3, batch_, n, H, dh);  // dq, dk, dv into the gradient at qkv
    const float* in = c.layer_norm ? a.a.data() : a.x.data();
    grad::linear_backward(in, w + b.qkv, dwide_.data(), dtmp_.data(), g + b.qkv, nullptr, rows, d, 3 * d, scratch);
    if (c.layer_norm) {
        grad::layer_norm_backward(a.x.data(), w + b.ln1_gain, a.ln1.data(), dtmp_.data(), dtmp_.data(), g + b.ln1_gain,
                                  g + b.ln1_bias, rows, d);
    }
    add_into(dx, dtmp_.data(), rows * d);
}

const float* transformer::weights(std::size_t layer) const { return acts_[layer].weights.data(); }

}  // namespace attnlab
