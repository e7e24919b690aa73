#include "attnlab/grad.hpp"
#include "attnlab/positions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/kernels.hpp"

namespace attnlab::grad {

using kernels::matmul_packed;
using kernels::pack_b;
using kernels::pack_bt;
using kernels::packed_size;

std::size_t linear_scratch(std::size_t rows, std::size_t in, std::size_t out) {
    return std::max({packed_size(in, out), packed_size(out, in), packed_size(rows, out)});
}

void linear(const float* x, const float* w, const float* b, float* y, std::size_t rows, std::size_t in,
            std::size_t out, float* scratch) {
    pack_b(w, in, out, scratch);
    matmul_packed(x, scratch, y, rows, in, out);  // y: [rows, out]
    if (!b) return;
    for (std::size_t r = 0; r < rows; ++r) {
        float* yr = y + r * out;
        for (std::size_t c = 0; c < out; ++c) yr[c] += b[c];
    }
}

void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, float* db,
                     std::size_t rows, std::size_t in, std::size_t out, float* scratch) {
    if (dx) {
        // dx [rows, in] = dy [rows, out] w^T [out, in]
        pack_bt(w, in, out, scratch);
        matmul_packed(dy, scratch, dx, rows, out, in);
    }
    // dw [in, out] = x^T [in, rows] dy [rows, out], x read in place
    pack_b(dy, rows, out, scratch);
    kernels::matmul_packed_at(x, scratch, dw, in, rows, out);
    if (!db) return;
    std::fill(db, db + out, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        const float* dyr = dy + r * out;
        for (std::size_t c = 0; c < out; ++c) db[c] += dyr[c];
    }
}

std::size_t attention_scratch(std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v) {
    return std::max({packed_size(d_k, n), packed_size(n, d_v), packed_size(m, d_v), packed_size(d_v, n),
                     packed_size(n, d_k), packed_size(m, d_k)});
}

void causal_attention(const float* q, const float* k, const float* v, float* p, float* o, std::size_t n,
                      std::size_t d, std::size_t d_v, float scale, float* scratch, float alibi_slope) {
    // pass 1: scores [n, n] = q k^T, into p
    pack_bt(k, n, d, scratch);
    matmul_packed(q, scratch, p, n, d, n);
    // pass 2: row i keeps keys 0..i, scaled, and softmaxes them; the rest is 0
    for (std::size_t i = 0; i < n; ++i) {
        float* row = p + i * n;
        kernels::scale(row, row, i + 1, scale);
        if (alibi_slope != 0.0f) add_alibi(row, 1, i + 1, double(i), alibi_slope);
        kernels::softmax_row(row, row, i + 1);
        std::fill(row + i + 1, row + n, 0.0f);
    }
    // pass 3: o [n, d_v] = p v
    pack_b(v, n, d_v, scratch);
    matmul_packed(p, scratch, o, n, n, d_v);
}

void attention_backward(const float* p, const float* q, const float* k, const float* v, const float* o,
                        const float* d_o, std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v,
                        float scale, float* dq, float* dk, float* dv, float* ds, float* scratch) {
    float* packed = scratch;  // one packed operand at a time
    // dv [n, d_v] = p^T [n, m] d_o [m, d_v], p read in place
    pack_b(d_o, m, d_v, packed);
    kernels::matmul_packed_at(p, packed, dv, n, m, d_v);
    // dp [m, n] = d_o [m, d_v] v^T [d_v, n], into ds
    pack_bt(v, n, d_v, packed);
    matmul_packed(d_o, packed, ds, m, d_v, n);
    // ds = p (dp - D), D_i = rowsum(d_o o)_i: the softmax's backward, row by row. A masked
    // weight is 0, so its ds is exactly 0.
    for (std::size_t i = 0; i < m; ++i) {
        const float* oi = o + i * d_v;
        const float* gi = d_o + i * d_v;
        float dot = 0.0f;
        for (std::size_t c = 0; c < d_v; ++c) dot += gi[c] * oi[c];
        kernels::softmax_backward_row(p + i * n, ds + i * n, n, dot);
    }
    // dq [m, d_k] = scale ds [m, n] k [n, d_k]
    pack_b(k, n, d_k, packed);
    matmul_packed(ds, packed, dq, m, n, d_k);
    kernels::scale(dq, dq, m * d_k, scale);
    // dk [n, d_k] = scale ds^T [n, m] q [m, d_k], ds read in place
    pack_b(q, m, d_k, packed);
    kernels::matmul_packed_at(ds, packed, dk, n, m, d_k);
    kernels::scale(dk, dk, n * d_k, scale);
}

namespace {
constexpr float layer_norm_eps = 1e-5f;
}

void layer_norm(const float* x, const float* gain, const float* bias, float* y, float* stats, std::size_t rows,
                std::size_t d) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        float mean = 0.0f;
        for (std::size_t c = 0; c < d; ++c) mean += xr[c];
        mean /= static_cast<float>(d);
        float var = 0.0f;
        for (std::size_t c = 0; c < d; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        var /= static_cast<float>(d);
        const float rstd = 1.0f / std::sqrt(var + layer_norm_eps);
        for (std::size_t c = 0; c < d; ++c) yr[c] = (xr[c] - mean) * rstd * gain[c] + bias[c];
        stats[2 * r] = mean;
        stats[2 * r + 1] = rstd;
    }
}

void layer_norm_backward(const float* x, const float* gain, const float* stats, const float* dy, float* dx,
                         float* dgain, float* dbias, std::size_t rows, std::size_t d) {
    std::fill(dgain, dgain + d, 0.0f);
    std::fill(dbias, dbias + d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * d;
        const float* gr = dy + r * d;
        float* dxr = dx + r * d;
        const float mean = stats[2 * r], rstd = stats[2 * r + 1];
        // with xhat = (x - mean) rstd and g = dy gain:
        // dx = rstd (g - mean(g) - xhat mean(g xhat))
        float mean_g = 0.0f, mean_gx = 0.0f;
        for (std::size_t c = 0; c < d; ++c) {
            const float xhat = (xr[c] - mean) * rstd;
            const float g = gr[c] * gain[c];
            mean_g += g;
            mean_gx += g * xhat;
            dgain[c] += gr[c] * xhat;
            dbias[c] += gr[c];
        }
        mean_g /= static_cast<float>(d);
        mean_gx /= static_cast<float>(d);
        for (std::size_t c = 0; c < d; ++c) {
            const float xhat = (xr[c] - mean) * rstd;
            dxr[c] = rstd * (gr[c] * gain[c] - mean_g - xhat * mean_gx);
        }
    }
}

namespace {
constexpr float gelu_c = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float gelu_a = 0.044715f;

// GELU's tanh is taken chunk by chunk through a small buffer with kernels::tanh_map, so that
// both maps vectorise and y (or dx) may be x (or dy) itself.
constexpr std::size_t gelu_chunk = 256;

// th[j] = tanh(sqrt(2/pi) (u[j] + 0.044715 u[j]^3)) for j < len
void gelu_tanh(const float* u, float* th, std::size_t len) {
    for (std::size_t j = 0; j < len; ++j) th[j] = gelu_c * (u[j] + gelu_a * u[j] * u[j] * u[j]);
    kernels::tanh_map(th, th, len);
}

}  // namespace

void activate(activation f, const float* x, float* y, std::size_t n) {
    if (f == activation::relu) {
        for (std::size_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
        return;
    }
    float th[gelu_chunk];
    for (std::size_t i0 = 0; i0 < n; i0 += gelu_chunk) {
        const std::size_t len = std::min(gelu_chunk, n - i0);
        const float* u = x + i0;
        gelu_tanh(u, th, len);
        for (std::size_t j = 0; j < len; ++j) y[i0 + j] = 0.5f * u[j] * (1.0f + th[j]);
    }
}

void activate_backward(activation f, const float* x, const float* dy, float* dx, std::size_t n) {
    if (f == activation::relu) {
        for (std::size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
        return;
    }
    float th[gelu_chunk];
    for (std::size_t i0 = 0; i0 < n; i0 += gelu_chunk) {
        const std::size_t len = std::min(gelu_chunk, n - i0);
        const float* u = x + i0;
        gelu_tanh(u, th, len);
        for (std::size_t j = 0; j < len; ++j) {
            const float dth = (1.0f - th[j] * th[j]) * gelu_c * (1.0f + 3.0f * gelu_a * u[j] * u[j]);
            dx[i0 + j] = dy[i0 + j] * (0.5f * (1.0f + th[j]) + 0.5f * u[j] * dth);
        }
    }
}

cross_entropy_totals softmax_cross_entropy(const float* logits, const std::int32_t* targets,
                                           const std::uint8_t* scored, std::size_t rows, std::size_t vocab,
                                           float grad_scale, float* dlogits) {
    cross_entropy_totals totals;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* z = logits + r * vocab;
        float* g = dlogits + r * vocab;
        if (!scored[r]) {
            std::fill(g, g + vocab, 0.0f);
            continue;
        }
        const std::size_t target = static_cast<std::size_t>(targets[r]);
        std::size_t best = 0;
        for (std::size_t c = 1; c < vocab; ++c) best = z[c] > z[best] ? c : best;
        // log-sum-exp with the row maximum subtracted, so large logits cannot overflow
        const float mx = z[best];
        const float sum = kernels::exp_shifted_sum(z, g, vocab, mx);  // g = exp(z - max)
        totals.loss += std::log(static_cast<double>(sum)) + mx - z[target];
        ++totals.scored;
        if (best == target) ++totals.correct;
        const float k = grad_scale / sum;
        for (std::size_t c = 0; c < vocab; ++c) g[c] *= k;
        g[target] -= grad_scale;
    }
    return totals;
}

void embed(const std::int32_t* tokens, const float* token_embedding, const float* position_embedding, float* x,
           std::size_t rows, std::size_t n, std::size_t d) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float* a = token_embedding + static_cast<std::size_t>(tokens[r]) * d;
        if (!position_embedding) {
            std::copy(a, a + d, x + r * d);
            continue;
        }
        const float* b = position_embedding + (r % n) * d;
        for (std::size_t c = 0; c < d; ++c) x[r * d + c] = a[c] + b[c];
    }
}

void embed_backward(const std::int32_t* tokens, const float* dx, float* d_token, float* d_position, std::size_t rows,
                    std::size_t n, std::size_t d, std::size_t vocab, std::size_t positions) {
    std::fill(d_token, d_token + vocab * d, 0.0f);
    if (d_position) std::fill(d_position, d_position + positions * d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        kernels::add(d_token + static_cast<std::size_t>(tokens[r]) * d, dx + r * d, d);
        if (d_position) kernels::add(d_position + (r % n) * d, dx + r * d, d);
    }
}

}  // namespace attnlab::grad
