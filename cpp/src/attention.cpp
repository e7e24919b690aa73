#include "attnlab/attention.hpp"

// The hot path of attention; the checks and allocation are in attention_setup.cpp.

#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

const std::string run_fn = "attention";

std::size_t product(const shape_t& s) {
    std::size_t p = 1;
    for (std::size_t x : s) p *= x;
    return p;
}

// Queries per block of the hot path: about 64 KB per score-sized stage, so a block's four
// stages stay in L2 from its Q K^T to its weights V; a multiple of the matmul's 4-row tile.
std::size_t block_rows(std::size_t n) {
    const std::size_t rows = (std::size_t(1) << 14) / n / 4 * 4;
    return rows < 4 ? 4 : rows > 64 ? 64 : rows;
}

}  // namespace

namespace detail {

shape_t row_index(const shape_t& lead, std::size_t batch, std::size_t row) {
    shape_t index(lead.size() + 1);
    index.back() = row;
    for (std::size_t d = lead.size(); d-- > 0;) {
        index[d] = batch % lead[d];
        batch /= lead[d];
    }
    return index;
}

void compute(const tensor& q, const tensor& k, const tensor& v, const row_masks& masks,
             const shape_t& lead, std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v,
             std::vector<float>& packed, attention_result& r, const std::string& fn, const float* slopes) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const std::size_t batches = product(lead);
    packed.resize(packed_floats(n, d_k, d_v));
    float* const packed_k = packed.data();
    float* const packed_v = packed.data() + kernels::packed_size(d_k, n);
    const std::size_t step = block_rows(n);
    const std::size_t heads = lead.empty() ? 1 : lead.back();
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
                    fail(error_text(fn) << ": the scaled score"
                        << index_at{with_tail(lead, {m, n}), b * m * n + i} << " is "
                        << (std::isnan(scaled[i]) ? "NaN" : "infinite")
                        << ", beyond float32; expected smaller inputs or scale");
                }
            }
            // ALiBi: query i sits at key position i + n - m
            if (slopes) add_alibi(scaled + at, rows, n, double(n) - double(m) + double(i0), slopes[b % heads]);
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
                    r.fully_masked_rows.push_back(row_index(lead, b, i));
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

}  // namespace detail

void add_alibi(float* scaled, std::size_t rows, std::size_t n, double q0, float slope) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float p = static_cast<float>(q0 + double(r));
        float* row = scaled + r * n;
        for (std::size_t j = 0; j < n; ++j) row[j] -= slope * std::fabs(p - static_cast<float>(j));
    }
}

const attention_result& attention_workspace::run() {
    require_finite(q_, run_fn, "Q");
    require_finite(k_, run_fn, "K");
    require_finite(v_, run_fn, "V");
    detail::compute(q_, k_, v_, masks_, lead_, m_, n_, d_k_, d_v_, packed_, result_, run_fn);
    return result_;
}

}  // namespace attnlab
