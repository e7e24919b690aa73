#include "attnlab/tiled.hpp"

// The cold half of tiled attention, built for size: argument checks, error messages, the
// figures, and the block-by-block account of one row. The hot loop is in tiled.cpp.

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

using detail::tiled_setup;

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// Q, K, V checked as attention() checks them.
tiled_setup check_inputs(const tensor& q, const tensor& k, const tensor& v, const std::string& fn) {
    detail::qkv_shapes s = detail::check_qkv(q, k, v, fn);
    tiled_setup d{std::move(s.lead), 1, s.m, s.n, s.d_k, s.d_v, row_masks({}, {}, 0, 0, fn)};
    for (std::size_t x : d.lead) d.batches *= x;
    return d;
}

void refuse_mask(const attention_options& opts, const std::string& fn) {
    if (opts.mask) {
        fail(error_text(fn) << ": mask is not supported here; expected causal, validLens or window");
    }
}

}  // namespace

namespace detail {

tiled_setup setup_tiled(const tensor& q, const tensor& k, const tensor& v, const tiled_options& opts,
                        const std::string& fn, tiled_result& r) {
    tiled_setup d = check_inputs(q, k, v, fn);
    refuse_mask(opts, fn);
    r.scale = attention_scale(opts, d.d_k, fn);
    d.masks = row_masks(opts, d.lead, d.m, d.n, fn);
    r.block_q = block_size(opts.block_q, d.m, fn, "blockQ", "m, the number of queries");
    r.block_k = block_size(opts.block_k, d.n, fn, "blockK", "n, the number of keys");
    const shape_t out_shape = with_tail(d.lead, {d.m, d.d_v});
    checked_size(out_shape, default_max_elements, fn, "the output");
    r.output = zeros(out_shape);
    r.lse = empty(with_tail(d.lead, {d.m}));
    std::fill(r.lse.begin(), r.lse.end(), neg_inf);
    return d;
}

void throw_score_overflow(const float* s, std::size_t rows, std::size_t cols, const tiled_setup& d,
                          std::size_t b, std::size_t i0, std::size_t j0, const std::string& fn) {
    std::size_t x = 0;
    while (x + 1 < rows * cols && std::isfinite(s[x])) ++x;
    const std::size_t flat = (b * d.m + i0 + x / cols) * d.n + j0 + x % cols;
    fail(error_text(fn) << ": the scaled score" << index_at{with_tail(d.lead, {d.m, d.n}), flat} << " is "
        << (std::isnan(s[x]) ? "NaN" : "infinite") << ", beyond float32; expected smaller inputs or scale");
}

void finish_figures(const tile_tally& tally, const tiled_setup& d, tiled_result& r, const std::string& fn) {
    const exact_count slices(d.batches);
    r.figures.peak_extra_floats = tiled_peak_extra(r.block_q, r.block_k, d.d_k, d.d_v).value(fn, "the extra floats");
    r.figures.floats_read = tally.floats_read.value(fn, "the floats read");
    r.figures.floats_written = (slices * exact_count(d.m) * exact_count(d.d_v + 1)).value(fn, "the floats written");
    r.figures.multiply_adds = tally.multiply_adds.value(fn, "the multiply-adds");
    r.figures.blocks_computed = tally.blocks_computed.value(fn, "the blocks computed");
    r.figures.blocks_skipped = tally.blocks_skipped.value(fn, "the blocks skipped");
}

}  // namespace detail

online_softmax_trace explain_online_softmax(const tensor& q, const tensor& k, const tensor& v, std::size_t row,
                                            const attention_options& opts, std::optional<double> block,
                                            const std::string& fn) {
    const struct { const tensor* t; const char* name; } inputs[] = {{&q, "Q"}, {&k, "K"}, {&v, "V"}};
    for (const auto& in : inputs) {
        if (in.t->dimension() != 2) {
            fail(error_text(fn) << ": " << in.name << " has shape " << shape_of(*in.t)
                << "; expected a matrix (one head, no batch axes)");
        }
    }
    const tiled_setup d = check_inputs(q, k, v, fn);
    refuse_mask(opts, fn);
    if (row >= d.m) {
        fail(error_text(fn) << ": row = " << row << " but Q has " << d.m << " rows; expected 0 to "
            << d.m - 1);
    }
    std::size_t bk = std::min<std::size_t>(4, d.n);
    if (block) {
        bk = size_arg(*block).to_size(fn, "block", {1, static_cast<double>(d.n), nullptr, "n, the number of keys"});
    }
    const attention_result full = attention(q, k, v, opts, fn);
    const row_masks masks(opts, {}, d.m, d.n, fn);
    const std::size_t n = d.n, d_v = d.d_v;

    online_softmax_trace t;
    t.row = row;
    t.scale = full.scale;
    t.scores.assign(full.masked.data() + row * n, full.masked.data() + (row + 1) * n);
    t.weights.assign(full.weights.data() + row * n, full.weights.data() + (row + 1) * n);
    t.full_output.assign(full.output.data() + row * d_v, full.output.data() + (row + 1) * d_v);

    const key_range seen = masks.range(0, row);
    float running_max = neg_inf, running_sum = 0.0f;
    std::vector<float> o(d_v, 0.0f), p;
    for (std::size_t j0 = 0; j0 < n; j0 += bk) {
        online_block blk;
        blk.start = j0;
        blk.end = std::min(n, j0 + bk);
        blk.scores.assign(t.scores.begin() + j0, t.scores.begin() + blk.end);
        blk.block_max = kernels::row_max(blk.scores.data(), blk.scores.size());
        blk.max_before = running_max;
        blk.sum_before = running_sum;
        blk.output_before = o;
        blk.skipped = seen.empty() || blk.end <= seen.begin || blk.start >= seen.end;
        if (blk.skipped) {
            blk.rescale = running_max == neg_inf ? 0.0f : 1.0f;
        } else {
            p = blk.scores;
            blk.rescale = detail::online_softmax_step(p.data(), p.size(), running_max, running_sum);
            for (std::size_t c = 0; c < d_v; ++c) o[c] *= blk.rescale;
            // Summed key by key in order, as the kernel's weights-V product does for each row.
            for (std::size_t c = 0; c < d_v; ++c) {
                float acc = 0.0f;
                for (std::size_t j = 0; j < p.size(); ++j) acc += p[j] * v.data()[(j0 + j) * d_v + c];
                o[c] += acc;
            }
        }
        blk.max_after = running_max;
        blk.sum_after = running_sum;
        blk.output_after = o;
        t.blocks.push_back(std::move(blk));
    }
    t.output.assign(d_v, 0.0f);
    t.lse = neg_inf;
    if (running_sum > 0.0f) {
        const float inv = 1.0f / running_sum;  // as the kernel finishes a row
        for (std::size_t c = 0; c < d_v; ++c) t.output[c] = o[c] * inv;
        t.lse = running_max + std::log(running_sum);
    }
    return t;
}

}  // namespace attnlab
