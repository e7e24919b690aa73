#include "attnlab/attention.hpp"

// The cold half of attention, built for size: argument checks, the scale, allocation and the
// workspace's construction. The hot loop is in attention.cpp.

#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

void require_matrix_like(const tensor& t, const char* name, const char* axes, const std::string& fn) {
    if (t.dimension() < 2) {
        fail(error_text(fn) << ": " << name << " has rank " << t.dimension() << " (shape " << shape_of(t)
            << "); expected rank >= 2, " << axes);
    }
}

}  // namespace

namespace detail {

qkv_shapes check_qkv(const tensor& q, const tensor& k, const tensor& v, const std::string& fn) {
    require_matrix_like(q, "Q", "[..., m, d_k]", fn);
    require_matrix_like(k, "K", "[..., n, d_k]", fn);
    require_matrix_like(v, "V", "[..., n, d_v]", fn);
    const shape_t qs = shape_of(q), ks = shape_of(k), vs = shape_of(v);
    qkv_shapes s;
    s.lead.assign(qs.begin(), qs.end() - 2);
    const shape_t k_lead(ks.begin(), ks.end() - 2), v_lead(vs.begin(), vs.end() - 2);
    if (k_lead != s.lead) {
        fail(error_text(fn) << ": K has leading axes " << k_lead << " but Q has " << s.lead
            << "; expected the same batch/head axes");
    }
    if (v_lead != s.lead) {
        fail(error_text(fn) << ": V has leading axes " << v_lead << " but Q has " << s.lead
            << "; expected the same batch/head axes");
    }
    s.m = qs[qs.size() - 2];
    s.d_k = qs.back();
    s.n = ks[ks.size() - 2];
    s.d_v = vs.back();
    if (s.d_k == 0) fail(error_text(fn) << ": Q has d_k = 0; expected at least one feature per query");
    if (ks.back() != s.d_k) fail(error_text(fn) << ": K has d_k = " << ks.back() << " but Q has d_k = "
        << s.d_k);
    if (vs[vs.size() - 2] != s.n) {
        fail(error_text(fn) << ": V has " << vs[vs.size() - 2] << " rows but K has " << s.n
            << "; expected one value per key");
    }
    require_nonempty(q, fn, "Q");
    require_nonempty(k, fn, "K");
    require_nonempty(v, fn, "V");
    require_finite(q, fn, "Q");
    require_finite(k, fn, "K");
    require_finite(v, fn, "V");
    return s;
}

void allocate_stages(attention_result& r, const qkv_shapes& s, std::size_t max_elements, const std::string& fn) {
    const shape_t& lead = s.lead;
    const std::size_t m = s.m, n = s.n, d_v = s.d_v;
    // The inputs are under the same limit as the results, whether attention() was handed them
    // or a workspace allocates them.
    checked_size(with_tail(lead, {m, s.d_k}), max_elements, fn, "Q");
    checked_size(with_tail(lead, {n, s.d_k}), max_elements, fn, "K");
    checked_size(with_tail(lead, {n, d_v}), max_elements, fn, "V");
    const shape_t score_shape = with_tail(lead, {m, n});
    const shape_t out_shape = with_tail(lead, {m, d_v});
    const std::size_t per_stage = checked_size(score_shape, max_elements, fn, "the scores");
    const std::size_t out = checked_size(out_shape, max_elements, fn, "the output");
    if (per_stage > (max_elements - out) / 4) {
        fail(error_text(fn) << ": the four score-sized stages " << score_shape << " and the output "
            << out_shape << " need " << per_stage << " x 4 + " << out << " floats, more than the limit of "
            << max_elements);
    }
    r.scores = empty(score_shape);
    r.scaled = empty(score_shape);
    r.masked = empty(score_shape);
    r.weights = empty(score_shape);
    r.output = empty(out_shape);
}

std::size_t packed_floats(std::size_t n, std::size_t d_k, std::size_t d_v) {
    return kernels::packed_size(d_k, n) + kernels::packed_size(n, d_v);
}

}  // namespace detail

// The scale as float32, refusing any value float32 cannot hold rather than rounding it to 0
// or infinity (a 0 scale from 1e-60 would silently give uniform weights).
float attention_scale(const attention_options& opts, std::size_t d_k, const std::string& fn) {
    constexpr double lo = std::numeric_limits<float>::min(), hi = std::numeric_limits<float>::max();
    if (opts.scale) {
        const double s = *opts.scale;
        if (!std::isfinite(s)) {
            fail(error_text(fn) << ": scale is " << s << "; expected a finite number");
        }
        if (s != 0 && !(std::abs(s) >= lo && std::abs(s) <= hi)) {
            fail(error_text(fn) << ": scale = " << s
                << " is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38");
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
        fail(error_text(fn) << ": temperature = " << t << " makes the scale " << formula
            << " overflow float32; expected a larger temperature");
    }
    if (s < lo) {
        fail(error_text(fn) << ": temperature = " << t << " makes the scale " << formula
            << " underflow float32; expected a smaller temperature");
    }
    return static_cast<float>(s);
}

attention_result attention(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts, const std::string& fn) {
    const detail::qkv_shapes s = detail::check_qkv(q, k, v, fn);
    attention_result r;
    r.scale = attention_scale(opts, s.d_k, fn);
    const row_masks masks(opts, s.lead, s.m, s.n, fn);
    const detail::position_setup pos(opts.positions, s, fn);
    detail::allocate_stages(r, s, opts.max_elements, fn);
    std::vector<float> packed;
    if (!opts.positions.rope) {
        detail::compute(q, k, v, masks, s.lead, s.m, s.n, s.d_k, s.d_v, packed, r, fn, pos.slopes_or_null());
        return r;
    }
    // RoPE: Q and K turned, on copies, to their positions
    tensor qr = q, kr = k;
    pos.rotate(qr, kr, s);
    detail::compute(qr, kr, v, masks, s.lead, s.m, s.n, s.d_k, s.d_v, packed, r, fn, pos.slopes_or_null());
    return r;
}

namespace detail {

position_setup::position_setup(const position_options& o, const qkv_shapes& s, const std::string& fn) {
    const double m = double(s.m), n = double(s.n);
    if (o.rope) {
        if (s.d_k % 2 != 0) {
            fail(error_text(fn) << ": rope needs an even d_k (it turns pairs of dimensions); Q has d_k = " << s.d_k);
        }
        require_position_base(o.rope->base, fn, "rope.base");
        require_positions(o.rope->offset, n, fn, "rope.offset");
        // The queries end at the last key's position: with more queries than keys the first
        // ones come before the first key.
        if (m > n && o.rope->offset < m - n) {
            fail(error_text(fn) << ": rope.offset = " << o.rope->offset << " puts the first of " << s.m
                << " queries at position " << o.rope->offset + n - m << " (the last query sits at the last key's, with "
                << s.n << " keys); expected rope.offset >= " << m - n);
        }
        const double first = o.rope->offset + (m > n ? n - m : 0);
        table = rope_table(first, s.m > s.n ? s.m : s.n, s.d_k, o.rope->base, o.rope->layout);
    }
    if (o.alibi) {
        const std::size_t heads = s.lead.empty() ? 1 : s.lead.back();
        slopes = alibi_slopes(heads, fn, "alibi: the heads (axis -3 of Q)");
    }
}

void position_setup::rotate(tensor& q, tensor& k, const qkv_shapes& s) const {
    std::size_t batches = 1;
    for (std::size_t x : s.lead) batches *= x;
    const std::size_t q0 = s.m > s.n ? 0 : s.n - s.m, k0 = s.m > s.n ? s.m - s.n : 0;
    for (std::size_t b = 0; b < batches; ++b) {
        table.rotate(q.data() + b * s.m * s.d_k, s.m, q0);
        table.rotate(k.data() + b * s.n * s.d_k, s.n, k0);
    }
}

}  // namespace detail

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
    result_.scale = attention_scale(opts, d_k, fn);
    detail::allocate_stages(result_, detail::qkv_shapes{lead, m, n, d_k, d_v}, opts.max_elements, fn);
    q_ = zeros(with_tail(lead, {m, d_k}));
    k_ = zeros(with_tail(lead, {n, d_k}));
    v_ = zeros(with_tail(lead, {n, d_v}));
    packed_.resize(detail::packed_floats(n, d_k, d_v));
}

}  // namespace attnlab
