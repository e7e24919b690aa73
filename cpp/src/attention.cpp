#include "attnlab/attention.hpp"

#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

const std::string fn = "attention";

shape_t with_tail(shape_t lead, std::initializer_list<std::size_t> tail) {
    lead.insert(lead.end(), tail);
    return lead;
}

std::size_t product(const shape_t& s) {
    std::size_t p = 1;
    for (std::size_t x : s) p *= x;
    return p;
}

float resolve_scale(const attention_options& opts, std::size_t d_k) {
    if (!opts.scale) {
        if (!(std::isfinite(opts.temperature) && opts.temperature > 0)) {
            throw argument_error(fn + ": temperature is " + number_string(opts.temperature) +
                                 "; expected a number > 0");
        }
        const float base = opts.rule == scaling::none     ? 1.0f
                           : opts.rule == scaling::inv_dk ? 1.0f / static_cast<float>(d_k)
                                                          : 1.0f / std::sqrt(static_cast<float>(d_k));
        return base / opts.temperature;
    }
    if (!std::isfinite(*opts.scale)) {
        throw argument_error(fn + ": scale is " + number_string(*opts.scale) + "; expected a finite number");
    }
    return *opts.scale;
}

// Allocates every stage for [...lead, m, n] scores and [...lead, m, d_v] output, refusing
// sizes over the limit before touching memory.
void allocate(attention_result& r, const shape_t& lead, std::size_t m, std::size_t n,
              std::size_t d_v, std::size_t max_elements) {
    const shape_t score_shape = with_tail(lead, {m, n});
    const shape_t out_shape = with_tail(lead, {m, d_v});
    const std::size_t per_stage = checked_size(score_shape, max_elements, fn + ": the scores");
    const std::size_t out = checked_size(out_shape, max_elements, fn + ": the output");
    if (per_stage > (max_elements - out) / 4) {
        throw argument_error(fn + ": the four score-sized stages " + shape_string(score_shape) +
                             " and the output " + shape_string(out_shape) + " need " +
                             std::to_string(per_stage) + " x 4 + " + std::to_string(out) +
                             " floats, more than the limit of " + std::to_string(max_elements));
    }
    r.scores = tensor::from_shape(score_shape);
    r.scaled = tensor::from_shape(score_shape);
    r.masked = tensor::from_shape(score_shape);
    r.weights = tensor::from_shape(score_shape);
    r.output = tensor::from_shape(out_shape);
}

shape_t unflatten(const shape_t& lead, std::size_t batch, std::size_t row) {
    shape_t index(lead.size() + 1);
    index.back() = row;
    for (std::size_t d = lead.size(); d-- > 0;) {
        index[d] = batch % lead[d];
        batch /= lead[d];
    }
    return index;
}

// The hot path: all batch slices of one call, into preallocated stages.
void compute(const tensor& q, const tensor& k, const tensor& v, const row_masks& masks,
             const shape_t& lead, std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v,
             std::vector<float>& key_t, attention_result& r) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const std::size_t batches = product(lead);
    key_t.resize(d_k * n);
    r.fully_masked_rows.clear();
    for (std::size_t b = 0; b < batches; ++b) {
        const float* qb = q.data() + b * m * d_k;   // [m, d_k]
        const float* kb = k.data() + b * n * d_k;   // [n, d_k]
        const float* vb = v.data() + b * n * d_v;   // [n, d_v]
        float* scores = r.scores.data() + b * m * n;
        float* scaled = r.scaled.data() + b * m * n;
        float* masked = r.masked.data() + b * m * n;
        float* weights = r.weights.data() + b * m * n;
        float* out = r.output.data() + b * m * d_v;

        // pass 1: scores [m, n] = Q [m, d_k] K^T [d_k, n]
        kernels::transpose(kb, key_t.data(), n, d_k);
        kernels::matmul(qb, key_t.data(), scores, m, d_k, n);
        // pass 2: scaled = scores * scale
        const bool finite = kernels::scale(scores, scaled, m * n, r.scale);
        for (std::size_t i = 0; !finite && i < m * n; ++i) {
            if (!std::isfinite(scaled[i])) {
                throw argument_error(fn + ": the scaled score" +
                                     index_string(with_tail(lead, {m, n}), b * m * n + i) + " is " +
                                     (std::isnan(scaled[i]) ? "NaN" : "infinite") +
                                     ", beyond float32; expected smaller inputs or scale");
            }
        }
        // pass 3: masked = scaled, with -inf where a key is hidden; then row softmax
        for (std::size_t i = 0; i < m; ++i) {
            const float* src = scaled + i * n;
            float* dst = masked + i * n;
            const std::size_t lim = masks.limit(b, i);
            for (std::size_t j = 0; j < lim; ++j) dst[j] = src[j];
            for (std::size_t j = lim; j < n; ++j) dst[j] = neg_inf;
            if (const float* allow = masks.mask_row(b, i)) {
                const std::size_t cs = masks.column_stride();
                for (std::size_t j = 0; j < lim; ++j) dst[j] = allow[j * cs] != 0.0f ? dst[j] : neg_inf;
            }
            if (!kernels::softmax_row(dst, weights + i * n, n)) {
                r.fully_masked_rows.push_back(unflatten(lead, b, i));
            }
        }
        // pass 4: output [m, d_v] = weights [m, n] V [n, d_v]; masked rows give 0
        kernels::matmul(weights, vb, out, m, n, d_v);
    }
}

void require_matrix_like(const tensor& t, const std::string& name, const char* axes) {
    if (t.dimension() < 2) {
        throw argument_error(fn + ": " + name + " has rank " + std::to_string(t.dimension()) +
                             " (shape " + shape_string(shape_of(t)) + "); expected rank >= 2, " +
                             axes);
    }
}

}  // namespace

attention_result attention(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts) {
    require_matrix_like(q, "Q", "[..., m, d_k]");
    require_matrix_like(k, "K", "[..., n, d_k]");
    require_matrix_like(v, "V", "[..., n, d_v]");
    const shape_t qs = shape_of(q), ks = shape_of(k), vs = shape_of(v);
    const shape_t lead(qs.begin(), qs.end() - 2);
    const shape_t k_lead(ks.begin(), ks.end() - 2), v_lead(vs.begin(), vs.end() - 2);
    if (k_lead != lead) {
        throw argument_error(fn + ": K has leading axes " + shape_string(k_lead) + " but Q has " +
                             shape_string(lead) + "; expected the same batch/head axes");
    }
    if (v_lead != lead) {
        throw argument_error(fn + ": V has leading axes " + shape_string(v_lead) + " but Q has " +
                             shape_string(lead) + "; expected the same batch/head axes");
    }
    const std::size_t m = qs[qs.size() - 2], d_k = qs.back();
    const std::size_t n = ks[ks.size() - 2], d_v = vs.back();
    if (d_k == 0) throw argument_error(fn + ": Q has d_k = 0; expected at least one feature per query");
    if (ks.back() != d_k) {
        throw argument_error(fn + ": K has d_k = " + std::to_string(ks.back()) + " but Q has d_k = " +
                             std::to_string(d_k));
    }
    if (vs[vs.size() - 2] != n) {
        throw argument_error(fn + ": V has " + std::to_string(vs[vs.size() - 2]) +
                             " rows but K has " + std::to_string(n) + "; expected one value per key");
    }
    require_nonempty(q, fn, "Q");
    require_nonempty(k, fn, "K");
    require_nonempty(v, fn, "V");
    require_finite(q, fn, "Q");
    require_finite(k, fn, "K");
    require_finite(v, fn, "V");

    attention_result r;
    r.scale = resolve_scale(opts, d_k);
    const row_masks masks(opts, lead, m, n, fn);
    allocate(r, lead, m, n, d_v, opts.max_elements);
    std::vector<float> key_t;
    compute(q, k, v, masks, lead, m, n, d_k, d_v, key_t, r);
    return r;
}

attention_workspace::attention_workspace(const shape_t& lead, std::size_t m, std::size_t n,
                                         std::size_t d_k, std::size_t d_v,
                                         const attention_options& opts)
    : lead_(lead), m_(m), n_(n), d_k_(d_k), d_v_(d_v), masks_(opts, lead, m, n, fn) {
    const struct { const char* name; std::size_t value; } sizes[] = {
        {"m", m}, {"n", n}, {"d_k", d_k}, {"d_v", d_v}};
    for (const auto& s : sizes) {
        if (s.value == 0) {
            throw argument_error(fn + ": workspace " + s.name + " = 0; expected at least 1");
        }
    }
    for (std::size_t i = 0; i < lead.size(); ++i) {
        if (lead[i] == 0) throw argument_error(fn + ": workspace batch axis " + std::to_string(i) + " is 0; expected at least 1");
    }
    result_.scale = resolve_scale(opts, d_k);
    checked_size(with_tail(lead, {m, d_k}), opts.max_elements, fn + ": Q");
    checked_size(with_tail(lead, {n, d_k}), opts.max_elements, fn + ": K");
    checked_size(with_tail(lead, {n, d_v}), opts.max_elements, fn + ": V");
    allocate(result_, lead, m, n, d_v, opts.max_elements);
    q_ = zeros(with_tail(lead, {m, d_k}));
    k_ = zeros(with_tail(lead, {n, d_k}));
    v_ = zeros(with_tail(lead, {n, d_v}));
    key_t_.resize(d_k * n);
}

const attention_result& attention_workspace::run() {
    require_finite(q_, fn, "Q");
    require_finite(k_, fn, "K");
    require_finite(v_, fn, "V");
    compute(q_, k_, v_, masks_, lead_, m_, n_, d_k_, d_v_, key_t_, result_);
    return result_;
}

}  // namespace attnlab
