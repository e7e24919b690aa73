#include "attnlab/tiled.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

}  // namespace

namespace detail {

float online_softmax_step(float* s, std::size_t count, float& running_max, float& running_sum) {
    const float block_max = kernels::row_max(s, count);
    const float new_max = std::max(running_max, block_max);
    if (new_max == neg_inf) {
        // Nothing visible yet: p = 0, and the (zero) running output stays as it is.
        std::fill(s, s + count, 0.0f);
        return 0.0f;
    }
    const float rescale = running_max == neg_inf ? 0.0f : kernels::exp_nonpositive(running_max - new_max);
    const float sum = kernels::exp_shifted_sum(s, s, count, new_max);
    running_sum = running_sum * rescale + sum;
    running_max = new_max;
    return rescale;
}

}  // namespace detail

tiled_result tiled_attention(const tensor& q, const tensor& k, const tensor& v, const tiled_options& opts,
                             const std::string& fn) {
    tiled_result r;
    const detail::tiled_setup d = detail::setup_tiled(q, k, v, opts, fn, r);
    const row_masks& masks = d.masks;
    const std::size_t bq = r.block_q, bk = r.block_k, d_k = d.d_k, d_v = d.d_v, m = d.m, n = d.n;

    // The only working memory: one tile's scores, a K or V block packed for the matmul,
    // weights V, and row state.
    std::vector<float> s(bq * bk), pv(bq * d_v), row_max(bq), row_sum(bq);
    std::vector<float> packed(std::max(kernels::packed_size(d_k, bk), kernels::packed_size(bk, d_v)));
    detail::tile_tally tally;
    for (std::size_t b = 0; b < d.batches; ++b) {
        const float* qb = q.data() + b * m * d_k;  // [m, d_k]
        const float* kb = k.data() + b * n * d_k;  // [n, d_k]
        const float* vb = v.data() + b * n * d_v;  // [n, d_v]
        float* out = r.output.data() + b * m * d_v;  // [m, d_v]: the running output o, then o / l
        float* lse = r.lse.data() + b * m;
        std::size_t block_start = m;  // row block whose state is held; m: none
        const auto finish = [&](std::size_t i0) {
            const std::size_t i1 = std::min(m, i0 + bq);
            for (std::size_t i = i0; i < i1; ++i) {
                const float l = row_sum[i - i0];
                if (!(l > 0.0f)) continue;  // fully masked: output 0, lse -inf
                const float inv = 1.0f / l;
                for (std::size_t c = 0; c < d_v; ++c) out[i * d_v + c] *= inv;
                lse[i] = row_max[i - i0] + std::log(l);
            }
        };
        auto tile = [&](std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
            if (i0 != block_start) {
                if (block_start != m) finish(block_start);
                block_start = i0;
                std::fill(row_max.begin(), row_max.end(), neg_inf);
                std::fill(row_sum.begin(), row_sum.end(), 0.0f);
            }
            const std::size_t rows = i1 - i0, cols = j1 - j0;
            // pass 1: s [rows, cols] = Q block [rows, d_k] K block^T [d_k, cols], times scale
            kernels::pack_bt(kb + j0 * d_k, cols, d_k, packed.data());
            kernels::matmul_packed(qb + i0 * d_k, packed.data(), s.data(), rows, d_k, cols);
            if (!kernels::scale(s.data(), s.data(), rows * cols, r.scale)) {
                detail::throw_score_overflow(s.data(), rows, cols, d, b, i0, j0, fn);
            }
            // pass 2: mask, then the online-softmax update of each row; s becomes p
            for (std::size_t rr = 0; rr < rows; ++rr) {
                float* srow = s.data() + rr * cols;
                const key_range seen = masks.range(b, i0 + rr);
                // Columns before seen.begin and from seen.end on are hidden.
                const std::size_t lo = std::min(cols, std::max(seen.begin, j0) - j0);
                const std::size_t hi = std::max(lo, std::min(cols, std::max(seen.end, j0) - j0));
                std::fill(srow, srow + lo, neg_inf);
                std::fill(srow + hi, srow + cols, neg_inf);
                const float rescale = detail::online_softmax_step(srow, cols, row_max[rr], row_sum[rr]);
                if (rescale != 1.0f) {
                    float* orow = out + (i0 + rr) * d_v;
                    for (std::size_t c = 0; c < d_v; ++c) orow[c] *= rescale;
                }
            }
            // pass 3: o += p [rows, cols] V block [cols, d_v]
            kernels::pack_b(vb + j0 * d_v, cols, d_v, packed.data());
            kernels::matmul_packed(s.data(), packed.data(), pv.data(), rows, cols, d_v);
            float* o = out + i0 * d_v;
            for (std::size_t x = 0; x < rows * d_v; ++x) o[x] += pv[x];
        };
        detail::plan_tiles(masks, b, m, n, d_k, d_v, bq, bk, tally, detail::tile_visitor(tile));
        if (block_start != m) finish(block_start);
        if (!kernels::all_finite(out, m * d_v)) {
            require_no_overflow(r.output.data(), shape_of(r.output), fn, "the output", "V");
        }
    }
    detail::finish_figures(tally, d, r, fn);
    return r;
}

}  // namespace attnlab
