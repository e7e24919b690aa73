#include "attnlab/attention_backward.hpp"

#include "attnlab/errors.hpp"
#include "attnlab/grad.hpp"

namespace attnlab {

attention_gradients attention_backward(const tensor& q, const tensor& k, const tensor& v, const tensor& d_out,
                                       const attention_options& opts, const std::string& fn) {
    const detail::qkv_shapes s = detail::check_qkv(q, k, v, fn);
    const shape_t out_shape = with_tail(s.lead, {s.m, s.d_v});
    if (shape_of(d_out) != out_shape) {
        fail(error_text(fn) << ": dOutput has shape " << shape_of(d_out) << "; expected " << out_shape
            << ", the shape of the output (Q's leading axes and rows, V's width)");
    }
    require_finite(d_out, fn, "dOutput");
    // What the call holds at once: the forward's four score-sized stages and output, then dS
    // and dQ, dK, dV; all of it within the one limit.
    const std::size_t limit = opts.max_elements;
    const std::size_t per_stage = checked_size(with_tail(s.lead, {s.m, s.n}), limit, fn, "the scores");
    const std::size_t inputs = q.size() + k.size() + v.size();
    if (per_stage > limit / 5 || inputs > limit - 5 * per_stage || d_out.size() > limit - 5 * per_stage - inputs) {
        fail(error_text(fn) << ": the five score-sized stages " << with_tail(s.lead, {s.m, s.n})
            << ", the output and the three gradients need more than the limit of " << limit << " floats");
    }
    // The forward pass, for its weights and output (and every check attention() makes).
    const attention_result r = attention(q, k, v, opts, fn);
    attention_gradients g;
    g.scale = r.scale;
    g.dq = empty(shape_of(q));
    g.dk = empty(shape_of(k));
    g.dv = empty(shape_of(v));
    g.ds = empty(shape_of(r.weights));
    std::size_t slices = 1;
    for (std::size_t x : s.lead) slices *= x;
    std::vector<float> scratch(grad::attention_scratch(s.m, s.n, s.d_k, s.d_v));
    for (std::size_t b = 0; b < slices; ++b) {
        grad::attention_backward(r.weights.data() + b * s.m * s.n, q.data() + b * s.m * s.d_k,
                                 k.data() + b * s.n * s.d_k, v.data() + b * s.n * s.d_v,
                                 r.output.data() + b * s.m * s.d_v, d_out.data() + b * s.m * s.d_v, s.m, s.n, s.d_k,
                                 s.d_v, r.scale, g.dq.data() + b * s.m * s.d_k, g.dk.data() + b * s.n * s.d_k,
                                 g.dv.data() + b * s.n * s.d_v, g.ds.data() + b * s.m * s.n, scratch.data());
    }
    require_no_overflow(g.dv.data(), shape_of(v), fn, "dV", "dOutput");
    require_no_overflow(g.ds.data(), shape_of(g.ds), fn, "dS", "V or dOutput");
    require_no_overflow(g.dq.data(), shape_of(q), fn, "dQ", "K, V or dOutput");
    require_no_overflow(g.dk.data(), shape_of(k), fn, "dK", "Q, V or dOutput");
    return g;
}

}  // namespace attnlab
