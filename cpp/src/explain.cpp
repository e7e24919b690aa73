#include "attnlab/explain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/errors.hpp"

namespace attnlab {

row_derivation explain_row(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts, std::size_t row) {
    const std::string fn = "explainRow";
    const struct { const tensor* t; const char* name; } inputs[] = {{&q, "Q"}, {&k, "K"}, {&v, "V"}};
    for (const auto& in : inputs) {
        if (in.t->dimension() != 2) {
            fail(error_text(fn) << ": " << in.name << " has shape " << shape_of(*in.t)
                << "; expected a matrix (one head, no batch axes)");
        }
    }
    if (row >= q.shape()[0]) {
        fail(error_text(fn) << ": row = " << row << " but Q has " << q.shape()[0] << " rows; expected 0 to "
            << q.shape()[0] - 1);
    }
    const attention_result r = attention(q, k, v, opts, fn);
    const std::size_t n = k.shape()[0], d_k = k.shape()[1], d_v = v.shape()[1];
    row_derivation d;
    d.row = row;
    d.scale = r.scale;
    d.terms = empty({n, d_k});
    d.scores = empty({n});
    d.scaled = empty({n});
    d.masked = empty({n});
    d.exp_raw = empty({n});
    d.exp_shifted = empty({n});
    d.weights = empty({n});
    d.weighted_values = empty({n, d_v});
    d.output = empty({d_v});
    d.row_max = -std::numeric_limits<double>::infinity();
    // Plain pointers into row `row` of each stage: element access through xtensor's
    // dynamic-rank strides costs code at every use on this cold path.
    const float* qr = q.data() + row * d_k;
    const float* scores = r.scores.data() + row * n;
    const float* scaled = r.scaled.data() + row * n;
    const float* masked = r.masked.data() + row * n;
    const float* weights = r.weights.data() + row * n;
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t c = 0; c < d_k; ++c) d.terms.data()[j * d_k + c] = qr[c] * k.data()[j * d_k + c];
        d.scores.data()[j] = scores[j];
        d.scaled.data()[j] = scaled[j];
        d.masked.data()[j] = masked[j];
        d.weights.data()[j] = weights[j];
        d.row_max = std::max(d.row_max, static_cast<double>(masked[j]));
    }
    d.fully_masked = d.row_max == -std::numeric_limits<double>::infinity();
    // The naive path stays in float32 throughout, as a float32 kernel would run it, so its
    // overflow (inf, then inf / inf = NaN) and underflow (0, then 0 / 0 = NaN) are the real ones.
    float naive_sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) {
        const float e_raw = std::exp(masked[j]);
        const double e_shift = d.fully_masked ? 0.0 : std::exp(masked[j] - d.row_max);
        d.exp_raw.data()[j] = e_raw;
        d.exp_shifted.data()[j] = static_cast<float>(e_shift);
        naive_sum += e_raw;
        d.sum_shifted += e_shift;
        for (std::size_t c = 0; c < d_v; ++c) d.weighted_values.data()[j * d_v + c] = weights[j] * v.data()[j * d_v + c];
    }
    d.sum_raw = naive_sum;
    d.naive_weights = empty({n});
    for (std::size_t j = 0; j < n; ++j) {
        d.naive_weights.data()[j] = d.exp_raw.data()[j] / naive_sum;
        const double gap = std::abs(double(d.naive_weights.data()[j]) - double(d.weights.data()[j]));
        if (!std::isnan(gap)) d.naive_error = std::max(d.naive_error, gap);
    }
    std::copy_n(r.output.data() + row * d_v, d_v, d.output.data());
    return d;
}

}  // namespace attnlab
