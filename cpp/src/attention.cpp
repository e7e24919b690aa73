#include "attnlab/attention.hpp"

#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

const std::string run_fn = "attention";

shape_t with_tail(shape_t lead, std::initializer_list<std::size_t> tail) {
    lead.insert(lead.end(), tail);
    return lead;
}

std::size_t product(const shape_t& s) {
    std::size_t p = 1;
    for (std::size_t x : s) p *= x;
    return p;
}

// The scale as float32, refusing any value float32 cannot hold rather than rounding it to 0
// or infinity (a 0 scale from 1e-60 would silently give uniform weights).
float resolve_scale(const attention_options& opts, std::size_t d_k, const std::string& fn) {
    constexpr double lo = std::numeric_limits<float>::min(), hi = std::numeric_limits<float>::max();
    if (opts.scale) {
        const double s = *opts.scale;
        if (!std::isfinite(s)) {
            fail(error_text(fn) << ": scale is " << s << "; expected a finite number");
        }
        if (s != 0 && !(std::abs(s) >= lo && std::abs(s) <= hi)) {
            fail(error_text(fn) << ": scale = " << s << " is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38");
        }
        return static_cast<float>(s);
    }
    const double t = opts.temperature;
    if (!(std::isfinite(t) && t > 0)) {
        fail(error_text(fn) << ": temperature is " << t << "; expected a number > 0");
    }
    const float base = opts.rule == scaling::none     ? 1.0f
                       : opts.rule == scaling::inv_dk ? 1.0f / static_cast<float>(d_k)
                                                      : 1.0f / std::sqrt(static_cast<float>(d_k));
    const char* formula = opts.rule == scaling::none     ? "1 / temperature"
                          : opts.rule == scaling::inv_dk ? "1/d_k / temperature"
                                                         : "1/sqrt(d_k) / temperature";
    const double s = base / t;
    if (s > hi) {
        fail(error_text(fn) << ": temperature = " << t << " makes the scale " << formula << " overflow float32; expected a larger temperature");
    }
    if (s < lo) {
        fail(error_text(fn) << ": temperature = " << t << " makes the scale " << formula << " underflow float32; expected a smaller temperature");
    }
    return static_cast<float>(s);
}

// Allocates every stage for [...lead, m, n] scores and [...lead, m, d_v] output, refusing
// sizes over the limit before touching memory.
void allocate(attention_result& r, const shape_t& lead, std::size_t m, std::size_t n,
              std::size_t d_v, std::size_t max_elements, const std::string& fn) {
    const shape_t score_shape = with_tail(lead, {m, n});
    const shape_t out_shape = with_tail(lead, {m, d_v});
    const std::size_t per_stage = checked_size(score_shape, max_elements, fn + ": the scores");
    const std::size_t out = checked_size(out_shape, max_elements, fn + ": the output");
    if (per_stage > (max_elements - out) / 4) {
        fail(error_text(fn) << ": the four score-sized stages " << score_shape << " and the output " << out_shape << " need " << per_stage << " x 4 + " << out << " floats, more than the limit of " << max_elements);
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

// Floats of scratch for one head's K and V, packed for kernels::matmul_packed.
std::size_t packed_floats(std::size_t n, std::size_t d_k, std::size_t d_v) {
    return kernels::packed_size(d_k, n) + kernels::packed_size(n, d_v);
}

// Queries per block of the hot path: about 64 KB per score-sized stage, so a block's four
// stages stay in L2 from its Q K^T to its weights V; a multiple of the matmul's 4-row tile.
std::size_t block_rows(std::size_t n) {
    const std::size_t rows = (std::size_t(1) << 14) / n / 4 * 4;
    return rows < 4 ? 4 : rows > 64 ? 64 : rows;
}

// The hot path: all batch slices of one call, into preallocated stages.
void compute(const tensor& q, const tensor& k, const tensor& v, const row_masks& masks,
             const shape_t& lead, std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v,
             std::vector<float>& packed, attention_result& r, const std::string& fn) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const std::size_t batches = product(lead);
    packed.resize(packed_floats(n, d_k, d_v));
    float* const packed_k = packed.data();
    float* const packed_v = packed.data() + kernels::packed_size(d_k, n);
    const std::size_t step = block_rows(n);
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
        kernels::pack_bt(kb, n, d_k, packed_k);
        kernels::pack_b(vb, n, d_v, packed_v);
        for (std::size_t i0 = 0; i0 < m; i0 += step) {
            const std::size_t rows = m - i0 < step ? m - i0 : step;
            const std::size_t at = i0 * n;
            // pass 1: scores [rows, n] = Q [rows, d_k] K^T [d_k, n]
            kernels::matmul_packed(qb + i0 * d_k, packed_k, scores + at, rows, d_k, n);
            // pass 2: scaled = scores * scale
            const bool finite = kernels::scale(scores + at, scaled + at, rows * n, r.scale);
            for (std::size_t i = at; !finite && i < at + rows * n; ++i) {
                if (!std::isfinite(scaled[i])) {
                    fail(error_text(fn) << ": the scaled score" << index_at{with_tail(lead, {m, n}), b * m * n + i} << " is " << (std::isnan(scaled[i]) ? "NaN" : "infinite") << ", beyond float32; expected smaller inputs or scale");
                }
            }
            // pass 3: masked = scaled, with -inf where a key is hidden; then row softmax
            for (std::size_t i = i0; i < i0 + rows; ++i) {
                const float* src = scaled + i * n;
                float* dst = masked + i * n;
                const key_range seen = masks.range(b, i);
                for (std::size_t j = 0; j < seen.begin; ++j) dst[j] = neg_inf;
                for (std::size_t j = seen.begin; j < seen.end; ++j) dst[j] = src[j];
                for (std::size_t j = seen.end; j < n; ++j) dst[j] = neg_inf;
                if (const float* allow = masks.mask_row(b, i)) {
                    const std::size_t cs = masks.column_stride();
                    for (std::size_t j = seen.begin; j < seen.end; ++j) dst[j] = allow[j * cs] != 0.0f ? dst[j] : neg_inf;
                }
                if (!kernels::softmax_row(dst, weights + i * n, n)) {
                    r.fully_masked_rows.push_back(unflatten(lead, b, i));
                }
            }
            // pass 4: output [rows, d_v] = weights [rows, n] V [n, d_v]; masked rows give 0.
            kernels::matmul_packed(weights + at, packed_v, out + i0 * d_v, rows, n, d_v);
        }
        // Weights summing to a hair over 1 times values near the float32 limit can overflow.
        if (!kernels::all_finite(out, m * d_v)) {
            require_no_overflow(r.output.data(), with_tail(lead, {m, d_v}), fn, "the output", "V");
        }
    }
}

void require_matrix_like(const tensor& t, const std::string& name, const char* axes, const std::string& fn) {
    if (t.dimension() < 2) {
        fail(error_text(fn) << ": " << name << " has rank " << t.dimension() << " (shape " << shape_of(t) << "); expected rank >= 2, " << axes);
    }
}

}  // namespace

attention_result attention(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts, const std::string& fn) {
    require_matrix_like(q, "Q", "[..., m, d_k]", fn);
    require_matrix_like(k, "K", "[..., n, d_k]", fn);
    require_matrix_like(v, "V", "[..., n, d_v]", fn);
    const shape_t qs = shape_of(q), ks = shape_of(k), vs = shape_of(v);
    const shape_t lead(qs.begin(), qs.end() - 2);
    const shape_t k_lead(ks.begin(), ks.end() - 2), v_lead(vs.begin(), vs.end() - 2);
    if (k_lead != lead) {
        fail(error_text(fn) << ": K has leading axes " << k_lead << " but Q has " << lead << "; expected the same batch/head axes");
    }
    if (v_lead != lead) {
        fail(error_text(fn) << ": V has leading axes " << v_lead << " but Q has " << lead << "; expected the same batch/head axes");
    }
    const std::size_t m = qs[qs.size() - 2], d_k = qs.back();
    const std::size_t n = ks[ks.size() - 2], d_v = vs.back();
    if (d_k == 0) fail(error_text(fn) << ": Q has d_k = 0; expected at least one feature per query");
    if (ks.back() != d_k) {
        fail(error_text(fn) << ": K has d_k = " << ks.back() << " but Q has d_k = " << d_k);
    }
    if (vs[vs.size() - 2] != n) {
        fail(error_text(fn) << ": V has " << vs[vs.size() - 2] << " rows but K has " << n << "; expected one value per key");
    }
    require_nonempty(q, fn, "Q");
    require_nonempty(k, fn, "K");
    require_nonempty(v, fn, "V");
    require_finite(q, fn, "Q");
    require_finite(k, fn, "K");
    require_finite(v, fn, "V");

    attention_result r;
    r.scale = resolve_scale(opts, d_k, fn);
    const row_masks masks(opts, lead, m, n, fn);
    allocate(r, lead, m, n, d_v, opts.max_elements, fn);
    std::vector<float> packed;
    compute(q, k, v, masks, lead, m, n, d_k, d_v, packed, r, fn);
    return r;
}

attention_workspace::attention_workspace(const shape_t& lead, std::size_t m, std::size_t n,
                                         std::size_t d_k, std::size_t d_v,
                                         const attention_options& opts, const std::string& fn)
    : lead_(lead), m_(m), n_(n), d_k_(d_k), d_v_(d_v), masks_(opts, lead, m, n, fn) {
    const struct { const char* name; std::size_t value; } sizes[] = {
        {"m", m}, {"n", n}, {"dk", d_k}, {"dv", d_v}};
    for (const auto& s : sizes) {
        if (s.value == 0) fail(error_text(fn) << ": " << s.name << " = 0; expected a whole number >= 1");
    }
    for (std::size_t i = 0; i < lead.size(); ++i) {
        if (lead[i] == 0) fail(error_text(fn) << ": batch[" << i << "] = 0; expected a whole number >= 1");
    }
    result_.scale = resolve_scale(opts, d_k, fn);
    checked_size(with_tail(lead, {m, d_k}), opts.max_elements, fn + ": Q");
    checked_size(with_tail(lead, {n, d_k}), opts.max_elements, fn + ": K");
    checked_size(with_tail(lead, {n, d_v}), opts.max_elements, fn + ": V");
    allocate(result_, lead, m, n, d_v, opts.max_elements, fn);
    q_ = zeros(with_tail(lead, {m, d_k}));
    k_ = zeros(with_tail(lead, {n, d_k}));
    v_ = zeros(with_tail(lead, {n, d_v}));
    packed_.resize(packed_floats(n, d_k, d_v));
}

const attention_result& attention_workspace::run() {
    require_finite(q_, run_fn, "Q");
    require_finite(k_, run_fn, "K");
    require_finite(v_, run_fn, "V");
    compute(q_, k_, v_, masks_, lead_, m_, n_, d_k_, d_v_, packed_, result_, run_fn);
    return result_;
}

float attention_scale(const attention_options& opts, std::size_t d_k, const std::string& fn) {
    return resolve_scale(opts, d_k, fn);
}

}  // namespace attnlab
