#pragma once
// Float64 references for the trainer's gradients, written independently of cpp/src: plain
// loops, std::exp and std::tanh, every intermediate kept in double. The tests differentiate
// them by central differences and compare with the engine's float32 analytic gradients.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attnlab/transformer.hpp"

namespace ref {

using vec = std::vector<double>;

// d f / d x[i] by central differences with step h, for every i (f reads x).
inline vec central_differences(vec& x, const std::function<double()>& f, double h = 1e-6) {
    vec g(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = f();
        x[i] = keep - h;
        const double down = f();
        x[i] = keep;
        g[i] = (up - down) / (2 * h);
    }
    return g;
}

// y[rows, out] = x[rows, in] w[in, out] + b[out] (b may be empty).
inline vec linear(const vec& x, const vec& w, const vec& b, std::size_t rows, std::size_t in, std::size_t out) {
    vec y(rows * out, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t o = 0; o < out; ++o) {
            double s = b.empty() ? 0.0 : b[o];
            for (std::size_t i = 0; i < in; ++i) s += x[r * in + i] * w[i * out + o];
            y[r * out + o] = s;
        }
    }
    return y;
}

// One attention slice: out[m, dv] = softmax(q k^T * scale, hidden where !allow(i, j)) v;
// a row with no visible key gives 0.
inline vec attention(const vec& q, const vec& k, const vec& v, std::size_t m, std::size_t n, std::size_t dk,
                     std::size_t dv, double scale, const std::function<bool(std::size_t, std::size_t)>& allow,
                     const std::function<double(std::size_t, std::size_t)>& bias = nullptr) {
    vec out(m * dv, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
        vec s(n, 0.0);
        double best = -INFINITY;
        for (std::size_t j = 0; j < n; ++j) {
            if (!allow(i, j)) continue;
            double dot = 0;
            for (std::size_t c = 0; c < dk; ++c) dot += q[i * dk + c] * k[j * dk + c];
            s[j] = dot * scale + (bias ? bias(i, j) : 0.0);
            best = std::max(best, s[j]);
        }
        if (best == -INFINITY) continue;
        double total = 0;
        for (std::size_t j = 0; j < n; ++j) {
            s[j] = allow(i, j) ? std::exp(s[j] - best) : 0.0;
            total += s[j];
        }
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t c = 0; c < dv; ++c) out[i * dv + c] += s[j] / total * v[j * dv + c];
        }
    }
    return out;
}

inline vec layer_norm(const vec& x, const vec& gain, const vec& bias, std::size_t rows, std::size_t d) {
    vec y(x.size());
    for (std::size_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (std::size_t c = 0; c < d; ++c) mean += x[r * d + c];
        mean /= double(d);
        for (std::size_t c = 0; c < d; ++c) var += (x[r * d + c] - mean) * (x[r * d + c] - mean);
        var /= double(d);
        for (std::size_t c = 0; c < d; ++c) {
            y[r * d + c] = (x[r * d + c] - mean) / std::sqrt(var + 1e-5) * gain[c] + bias[c];
        }
    }
    return y;
}

inline double activate(bool gelu, double x) {
    if (!gelu) return x > 0 ? x : 0;
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Sum over scored rows of -log softmax(logits[r])[target[r]].
inline double cross_entropy(const vec& logits, const std::int32_t* targets, const std::uint8_t* scored,
                            std::size_t rows, std::size_t vocab) {
    double loss = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        if (!scored[r]) continue;
        double best = -INFINITY;
        for (std::size_t c = 0; c < vocab; ++c) best = std::max(best, logits[r * vocab + c]);
        double total = 0;
        for (std::size_t c = 0; c < vocab; ++c) total += std::exp(logits[r * vocab + c] - best);
        loss += std::log(total) + best - logits[r * vocab + targets[r]];
    }
    return loss;
}

// The whole model's mean loss over the scored positions of tokens [batch, n], with the
// parameters given by name (as the engine names and shapes them).
struct model {
    attnlab::transformer_config c;
    std::map<std::string, vec> p;

    const vec& at(const std::string& name) const { return p.at(name); }

    // What is added to the token embedding at position t, dimension i.
    double position_vector(std::size_t t, std::size_t i) const {
        if (c.positions == attnlab::position_kind::learned) return at("positionEmbedding")[t * c.d_model + i];
        if (c.positions != attnlab::position_kind::sinusoidal) return 0.0;
        const double angle = double(t) / std::pow(10000.0, double(i - i % 2) / double(c.d_model));
        return i % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }

    // RoPE with the paper's interleaved pairs (2i, 2i + 1), row t at position t, base 10000.
    static void turn_pairs(vec& x, std::size_t n, std::size_t dh) {
        for (std::size_t t = 0; t < n; ++t) {
            for (std::size_t i = 0; i < dh / 2; ++i) {
                const double angle = double(t) * std::pow(10000.0, -2.0 * double(i) / double(dh));
                const double a = x[t * dh + 2 * i], b = x[t * dh + 2 * i + 1];
                x[t * dh + 2 * i] = a * std::cos(angle) - b * std::sin(angle);
                x[t * dh + 2 * i + 1] = a * std::sin(angle) + b * std::cos(angle);
            }
        }
    }

    // ALiBi's slope of head h of H, for H a power of two: 2^(-8 (h + 1) / H).
    static double paper_slope(std::size_t h, std::size_t H) { return std::pow(2.0, -8.0 * double(h + 1) / double(H)); }

    double loss(const std::int32_t* tokens, const std::int32_t* targets, const std::uint8_t* scored,
                std::size_t batch, std::size_t n) const {
        const vec z = logits(tokens, batch, n);
        std::size_t count = 0;
        for (std::size_t r = 0; r < batch * n; ++r) count += scored[r] ? 1 : 0;
        return cross_entropy(z, targets, scored, batch * n, c.vocab) / double(count);
    }

    // Head (layer, head) as the key layer * heads + head.
    using head_rows = std::map<std::size_t, vec>;

    // The logits [batch * n, vocab]. `replace`: heads whose output rows all become the given
    // d_head numbers; `outputs`: where each head's output rows are summed (before replacing).
    vec logits(const std::int32_t* tokens, std::size_t batch, std::size_t n, const head_rows* replace = nullptr,
               head_rows* outputs = nullptr) const {
        const std::size_t d = c.d_model, rows = batch * n, H = c.heads, dh = d / H;
        const bool gelu = c.act == attnlab::grad::activation::gelu;
        vec x(rows * d);
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t i = 0; i < d; ++i) {
                x[r * d + i] = at("tokenEmbedding")[tokens[r] * d + i] + position_vector(r % n, i);
            }
        }
        for (std::size_t l = 0; l < c.layers; ++l) {
            const std::string pre = "layers." + std::to_string(l) + ".";
            const vec a = c.layer_norm ? layer_norm(x, at(pre + "ln1.gain"), at(pre + "ln1.bias"), rows, d) : x;
            const vec qkv = linear(a, at(pre + "qkv"), {}, rows, d, 3 * d);
            vec merged(rows * d, 0.0);
            for (std::size_t b = 0; b < batch; ++b) {
                for (std::size_t h = 0; h < H; ++h) {
                    vec q(n * dh), k(n * dh), v(n * dh);
                    for (std::size_t t = 0; t < n; ++t) {
                        for (std::size_t i = 0; i < dh; ++i) {
                            const std::size_t at_row = (b * n + t) * 3 * d + h * dh + i;
                            q[t * dh + i] = qkv[at_row];
                            k[t * dh + i] = qkv[at_row + d];
                            v[t * dh + i] = qkv[at_row + 2 * d];
                        }
                    }
                    if (c.positions == attnlab::position_kind::rope) {
                        turn_pairs(q, n, dh);
                        turn_pairs(k, n, dh);
                    }
                    const double slope = c.positions == attnlab::position_kind::alibi ? paper_slope(h, H) : 0.0;
                    const vec o = attention(q, k, v, n, n, dh, dh, 1 / std::sqrt(double(dh)),
                                            [](std::size_t i, std::size_t j) { return j <= i; },
                                            [slope](std::size_t i, std::size_t j) { return -slope * double(i - j); });
                    const std::size_t key = l * H + h;
                    if (outputs) {
                        vec& sum = (*outputs)[key];
                        sum.resize(dh, 0.0);
                        for (std::size_t t = 0; t < n * dh; ++t) sum[t % dh] += o[t];
                    }
                    const vec* value = replace && replace->count(key) ? &replace->at(key) : nullptr;
                    for (std::size_t t = 0; t < n; ++t) {
                        for (std::size_t i = 0; i < dh; ++i) merged[(b * n + t) * d + h * dh + i] = value ? (*value)[i] : o[t * dh + i];
                    }
                }
            }
            const vec y = linear(merged, at(pre + "out"), {}, rows, d, d);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
            if (c.mlp) {
                const vec m = c.layer_norm ? layer_norm(x, at(pre + "ln2.gain"), at(pre + "ln2.bias"), rows, d) : x;
                vec hidden = linear(m, at(pre + "mlp.in"), at(pre + "mlp.inBias"), rows, d, c.mlp);
                for (double& e : hidden) e = activate(gelu, e);
                const vec z = linear(hidden, at(pre + "mlp.out"), at(pre + "mlp.outBias"), rows, c.mlp, d);
                for (std::size_t i = 0; i < x.size(); ++i) x[i] += z[i];
            }
        }
        const vec f = c.layer_norm ? layer_norm(x, at("final.gain"), at("final.bias"), rows, d) : x;
        return linear(f, at("unembedding"), at("unembeddingBias"), rows, d, c.vocab);
    }
};

}  // namespace ref
