#include "attnlab/grad.hpp"

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
    return std::max({packed_size(in, out), packed_size(out, in), in * rows + packed_size(rows, out)});
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
    // dw [in, out] = x^T [in, rows] dy [rows, out]
    float* xt = scratch;
    float* packed = scratch + in * rows;
    kernels::transpose(x, xt, rows, in);
    pack_b(dy, rows, out, packed);
    matmul_packed(xt, packed, dw, in, rows, out);
    if (!db) return;
    std::fill(db, db + out, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        const float* dyr = dy + r * out;
        for (std::size_t c = 0; c < out; ++c) db[c] += dyr[c];
    }
}

std::size_t attention_scratch(std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v) {
    const std::size_t packs = std::max({packed_size(d_k, n), packed_size(n, d_v), packed_size(m, d_v),
                                        packed_size(d_v, n), packed_size(n, d_k), packed_size(m, d_k)});
    return m * n + packs;
}

void causal_attention(const float* q, const float* k, const float* v, float* p, float* o, std::size_t n,
                      std::size_t d, std::size_t d_v, float scale, float* scratch) {
    // pass 1: scores [n, n] = q k^T, into p
    pack_bt(k, n, d, scratch);
    matmul_packed(q, scratch, p, n, d, n);
    // pass 2: row i keeps keys 0..i, scaled, and softmaxes them; the rest is 0
    for (std::size_t i = 0; i < n; ++i) {
        float* row = p + i * n;
        kernels::scale(row, row, i + 1, scale);
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
    float* t = scratch;                // a transposed [n, m] matrix
    float* packed = scratch + m * n;   // one packed operand at a time
    // dv [n, d_v] = p^T [n, m] d_o [m, d_v]
    kernels::transpose(p, t, m, n);
    pack_b(d_o, m, d_v, packed);
    matmul_packed(t, packed, dv, n, m, d_v);
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
        const float* pi = p + i * n;
        float* si = ds + i * n;
        for (std::size_t j = 0; j < n; ++j) si[j] = pi[j] * (si[j] - dot);
    }
    // dq [m, d_k] = scale ds [m, n] k [n, d_k]
    pack_b(k, n, d_k, packed);
    matmul_packed(ds, packed, dq, m, n, d_k);
    kernels::scale(dq, dq, m * d_k, scale);
    // dk [n, d_k] = scale ds^T [n, m] q [m, d_k]
    kernels::transpose(ds, t, m, n);
    pack_b(q, m, d_k, packed);
    matmul_packed(t, packed, dk, n, m, d_k);
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

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) <= 1, on the engine's own exp: within
// 1.3e-7 of tanh (absolute; measured over [-20, 20] in steps of 1e-4), all GELU needs, without
// libm's tanh in the module.
float tanh_of(float x) {
    const float e = kernels::exp_nonpositive(-2.0f * (x < 0 ? -x : x));
    const float t = (1.0f - e) / (1.0f + e);
    return x < 0 ? -t : t;
}
}  // namespace

void activate(activation f, const float* x, float* y, std::size_t n) {
    if (f == activation::relu) {
        for (std::size_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const float u = x[i];
        y[i] = 0.5f * u * (1.0f + tanh_of(gelu_c * (u + gelu_a * u * u * u)));
    }
}

void activate_backward(activation f, const float* x, const float* dy, float* dx, std::size_t n) {
    if (f == activation::relu) {
        for (std::size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const float u = x[i];
        const float th = tanh_of(gelu_c * (u + gelu_a * u * u * u));
        const float dth = (1.0f - th * th) * gelu_c * (1.0f + 3.0f * gelu_a * u * u);
        dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * u * dth);
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

void add(float* y, const float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] += x[i];
}

void move_heads(float* rows, float* heads, bool to_rows, std::size_t parts, std::size_t batch, std::size_t n,
                std::size_t heads_count, std::size_t d_head) {
    const std::size_t d = heads_count * d_head, slab = batch * n * d;
    for (std::size_t r = 0; r < batch * n; ++r) {
        const std::size_t b = r / n, t = r % n;
        for (std::size_t part = 0; part < parts; ++part) {
            for (std::size_t h = 0; h < heads_count; ++h) {
                float* row = rows + r * parts * d + part * d + h * d_head;
                float* head = heads + part * slab + ((b * heads_count + h) * n + t) * d_head;
                if (to_rows) std::copy(head, head + d_head, row);
                else std::copy(row, row + d_head, head);
            }
        }
    }
}

void embed(const std::int32_t* tokens, const float* token_embedding, const float* position_embedding, float* x,
           std::size_t rows, std::size_t n, std::size_t d) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float* a = token_embedding + static_cast<std::size_t>(tokens[r]) * d;
        const float* b = position_embedding + (r % n) * d;
        for (std::size_t c = 0; c < d; ++c) x[r * d + c] = a[c] + b[c];
    }
}

void embed_backward(const std::int32_t* tokens, const float* dx, float* d_token, float* d_position, std::size_t rows,
                    std::size_t n, std::size_t d, std::size_t vocab, std::size_t positions) {
    std::fill(d_token, d_token + vocab * d, 0.0f);
    std::fill(d_position, d_position + positions * d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
        add(d_token + static_cast<std::size_t>(tokens[r]) * d, dx + r * d, d);
        add(d_position + (r % n) * d, dx + r * d, d);
    }
}

}  // namespace attnlab::grad
