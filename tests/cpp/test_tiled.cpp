#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "attnlab/attention.hpp"
#include "attnlab/cost.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/tiled.hpp"
#include "reference.hpp"

using attnlab::argument_error;
using attnlab::attention;
using attnlab::shape_t;
using attnlab::tensor;
using attnlab::tiled_attention;
using attnlab::tiled_options;
using Catch::Matchers::Message;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Query i at position p = i + (n - m) sees key j when every given rule allows it.
struct rule {
    std::size_t m, n;
    bool causal = false;
    std::size_t window = 0;  // 0: none
    std::size_t valid = ~std::size_t(0);
    bool operator()(std::size_t i, std::size_t j) const {
        const long long p = static_cast<long long>(i + n) - static_cast<long long>(m);
        const long long jj = static_cast<long long>(j);
        if (j >= valid) return false;
        if ((causal || window) && jj > p) return false;
        if (window && jj <= p - static_cast<long long>(window)) return false;
        return true;
    }
};

// Log-sum-exp of one row of the reference's scaled scores under `allow`, in double.
double ref_lse(const ref::head& h, std::size_t i, std::size_t n, const rule& allow) {
    double best = -inf;
    for (std::size_t j = 0; j < n; ++j) if (allow(i, j)) best = std::max(best, h.scaled[i * n + j]);
    if (best == -inf) return -inf;
    double total = 0;
    for (std::size_t j = 0; j < n; ++j) if (allow(i, j)) total += std::exp(h.scaled[i * n + j] - best);
    return best + std::log(total);
}

}  // namespace

TEST_CASE("tiled attention equals the float64 reference and full attention on random shapes, masks and blocks",
          "[tiled][property]") {
    std::mt19937 gen(20261130);
    auto pick = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(gen); };
    double worst_ref = 0, worst_full = 0, worst_lse = 0;
    std::size_t ragged = 0, skipped = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t batches = pick(1, 3), m = pick(1, 40), n = pick(1, 70), dk = pick(1, 24), dv = pick(1, 12);
        tiled_options opts;
        rule allow{m, n};
        allow.causal = pick(0, 2) == 0;
        opts.causal = allow.causal;
        if (pick(0, 1)) {
            allow.window = pick(1, n + 2);
            opts.window = double(allow.window);
        }
        std::vector<std::size_t> lens(batches, n);
        if (pick(0, 2) == 0) {
            tensor vl = tensor::from_shape({batches});
            for (std::size_t b = 0; b < batches; ++b) vl(b) = float(lens[b] = pick(0, n));
            opts.valid_lens = vl;
        }
        const std::size_t bq = pick(1, m), bk = pick(1, n);
        opts.block_q = double(bq);
        opts.block_k = double(bk);
        ragged += (n % bk != 0);
        const tensor q = ref::random_tensor({batches, m, dk}, gen);
        const tensor k = ref::random_tensor({batches, n, dk}, gen);
        const tensor v = ref::random_tensor({batches, n, dv}, gen, -1, 1);
        const auto t = tiled_attention(q, k, v, opts);
        REQUIRE(attnlab::shape_of(t.output) == shape_t{batches, m, dv});
        REQUIRE(attnlab::shape_of(t.lse) == shape_t{batches, m});
        skipped += t.figures.blocks_skipped > 0;
        const auto full = attention(q, k, v, opts);
        worst_full = std::max(worst_full, attnlab::max_abs_diff(t.output, full.output));
        for (std::size_t b = 0; b < batches; ++b) {
            rule row_rule = allow;
            row_rule.valid = lens[b];
            const auto h = ref::attention(q.data() + b * m * dk, k.data() + b * n * dk, v.data() + b * n * dv, m, n, dk,
                                          dv, 1 / std::sqrt(double(dk)), row_rule);
            worst_ref = std::max(worst_ref, ref::max_diff(t.output, h.output, b * m * dv));
            for (std::size_t i = 0; i < m; ++i) {
                const double want = ref_lse(h, i, n, row_rule), got = t.lse(b, i);
                if (want == -inf) {
                    CHECK(got == -inf);
                } else {
                    worst_lse = std::max(worst_lse, std::abs(got - want));
                }
            }
        }
    }
    INFO("max |tiled - reference| = " << worst_ref << ", |tiled - full| = " << worst_full << ", lse " << worst_lse);
    CHECK(worst_ref <= 1e-5);
    CHECK(worst_full <= 1e-5);
    CHECK(worst_lse <= 1e-5);
    CHECK(ragged > 100);   // most cases have n not a multiple of the block
    CHECK(skipped > 30);   // and many skip fully masked blocks
}

TEST_CASE("tiled attention skips the blocks a causal mask hides entirely", "[tiled]") {
    std::mt19937 gen(7);
    const tensor q = ref::random_tensor({8, 4}, gen), k = ref::random_tensor({8, 4}, gen), v = ref::random_tensor({8, 3}, gen);
    tiled_options opts;
    opts.causal = true;
    opts.block_q = 2;
    opts.block_k = 2;
    const auto t = tiled_attention(q, k, v, opts);
    CHECK(t.figures.blocks_computed == 10);  // row block r visits key blocks 0..r
    CHECK(t.figures.blocks_skipped == 6);
    CHECK(t.figures.multiply_adds == 10 * 2 * 2 * (4 + 3));
    CHECK(t.figures.floats_read == 4 * 2 * 4 + 10 * 2 * (4 + 3));  // Q once per row block, K and V per tile
    CHECK(t.figures.floats_written == 8 * (3 + 1));
    // scores 2 x 2, the larger packed block (K's 4 rows of a panel 8 wide), p V 2 x 3, max and sum
    CHECK(t.figures.peak_extra_floats == 2 * 2 + 4 * 8 + 2 * 3 + 2 * 2);
}

TEST_CASE("a fully masked row has output 0 and log-sum-exp -infinity", "[tiled]") {
    std::mt19937 gen(3);
    const tensor q = ref::random_tensor({2, 3, 4}, gen), k = ref::random_tensor({2, 5, 4}, gen);
    const tensor v = ref::random_tensor({2, 5, 2}, gen);
    tiled_options opts;
    opts.valid_lens = tensor{0.0f, 5.0f};
    const auto t = tiled_attention(q, k, v, opts);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(t.lse(0, i) == -std::numeric_limits<float>::infinity());
        CHECK(t.output(0, i, 0) == 0.0f);
        CHECK(std::isfinite(t.lse(1, i)));
    }
    CHECK(t.figures.blocks_computed == 1);  // defaults: one 3 x 5 tile per batch, the first skipped
    CHECK(t.figures.blocks_skipped == 1);
}

TEST_CASE("tiled attention's figures are the ones cost_figures counts", "[tiled][cost]") {
    std::mt19937 gen(11);
    const tensor q = ref::random_tensor({2, 3, 37, 8}, gen), k = ref::random_tensor({2, 3, 53, 8}, gen);
    const tensor v = ref::random_tensor({2, 3, 53, 5}, gen);
    for (int variant = 0; variant < 3; ++variant) {
        tiled_options opts;
        opts.causal = variant == 1;
        if (variant == 2) opts.window = 9;
        opts.block_q = 6;
        opts.block_k = 7;
        const auto t = tiled_attention(q, k, v, opts);
        attnlab::cost_spec spec;
        spec.batch = 2;
        spec.heads = 3;
        spec.m = 37;
        spec.n = 53;
        spec.d_k = 8;
        spec.d_v = 5;
        spec.block_q = 6;
        spec.block_k = 7;
        spec.causal = opts.causal;
        spec.window = opts.window;
        const auto c = attnlab::cost_figures(spec);
        CHECK(c.tiled.peak_extra_floats == t.figures.peak_extra_floats);
        CHECK(c.tiled.floats_read == t.figures.floats_read);
        CHECK(c.tiled.floats_written == t.figures.floats_written);
        CHECK(c.tiled.multiply_adds == t.figures.multiply_adds);
        CHECK(c.tiled.blocks_computed == t.figures.blocks_computed);
        CHECK(c.tiled.blocks_skipped == t.figures.blocks_skipped);
        CHECK(c.tiled.blocks_computed + c.tiled.blocks_skipped == 2 * 3 * 7 * 8);
    }
}

TEST_CASE("block sizes outside 1..m and 1..n are rejected by name", "[tiled][errors]") {
    const tensor q = attnlab::zeros({3, 2}), k = attnlab::zeros({5, 2}), v = attnlab::zeros({5, 2});
    tiled_options opts;
    opts.block_k = 6;
    CHECK_THROWS_MATCHES(tiled_attention(q, k, v, opts), argument_error,
                         Message("tiledAttention: blockK = 6; expected a whole number from 1 to 5 (n, the number of keys)"));
    opts.block_k = 0;
    CHECK_THROWS_MATCHES(tiled_attention(q, k, v, opts), argument_error,
                         Message("tiledAttention: blockK = 0; expected a whole number from 1 to 5 (n, the number of keys)"));
    opts.block_k.reset();
    opts.block_q = 1.5;
    CHECK_THROWS_MATCHES(tiled_attention(q, k, v, opts), argument_error,
                         Message("tiledAttention: blockQ = 1.5; expected a whole number from 1 to 3 (m, the number of queries)"));
    tiled_options masked;
    masked.mask = tensor{1.0f};
    CHECK_THROWS_MATCHES(tiled_attention(q, k, v, masked), argument_error,
                         Message("tiledAttention: mask is not supported here; expected causal, validLens or window"));
}

TEST_CASE("full attention with a window matches the float64 reference", "[attention][window]") {
    std::mt19937 gen(5);
    const tensor q = ref::random_tensor({6, 4}, gen), k = ref::random_tensor({9, 4}, gen), v = ref::random_tensor({9, 3}, gen);
    attnlab::attention_options opts;
    opts.window = 3;
    const auto r = attention(q, k, v, opts);
    rule allow{6, 9};
    allow.window = 3;
    const auto h = ref::attention(q.data(), k.data(), v.data(), 6, 9, 4, 3, 0.5, allow);
    CHECK(ref::max_diff(r.weights, h.weights) <= 1e-6);
    CHECK(ref::max_diff(r.output, h.output) <= 1e-6);
    CHECK(r.weights(0, 0) == 0.0f);  // query 0 sits at position 3: keys 1, 2, 3 only
    CHECK(r.weights(0, 1) > 0.0f);
    CHECK(r.weights(0, 4) == 0.0f);
}

TEST_CASE("the online softmax step by step ends at the full softmax row", "[tiled][explain]") {
    std::mt19937 gen(9);
    const tensor q = ref::random_tensor({5, 3}, gen), k = ref::random_tensor({10, 3}, gen), v = ref::random_tensor({10, 2}, gen);
    attnlab::attention_options opts;
    opts.causal = true;
    const auto t = attnlab::explain_online_softmax(q, k, v, 2, opts, 3.0);
    // Query 2 sits at position 7: keys 0..7 in blocks [0,3) [3,6) [6,9) [9,10), the last masked.
    REQUIRE(t.blocks.size() == 4);
    CHECK(t.blocks[3].skipped);
    CHECK_FALSE(t.blocks[2].skipped);
    CHECK(t.blocks[0].max_before == -std::numeric_limits<float>::infinity());
    CHECK(t.blocks[0].rescale == 0.0f);
    double best = -inf;
    for (std::size_t b = 0; b < 3; ++b) {
        const auto& blk = t.blocks[b];
        for (float s : blk.scores) best = std::max(best, double(s));
        CHECK(blk.max_after == Approx(best));
        if (b > 0) CHECK(blk.rescale == Approx(std::exp(double(blk.max_before) - blk.max_after)));
        // The running sum is the sum of exp(s - running max) over every key seen so far.
        double total = 0;
        for (std::size_t j = 0; j < blk.end; ++j) if (t.scores[j] > -inf) total += std::exp(double(t.scores[j]) - blk.max_after);
        CHECK(blk.sum_after == Approx(total).epsilon(1e-6));
    }
    for (std::size_t c = 0; c < 2; ++c) CHECK(std::abs(t.output[c] - t.full_output[c]) <= 1e-6);
    const auto& last = t.blocks.back();
    for (std::size_t c = 0; c < 2; ++c) CHECK(t.output[c] == Approx(last.output_after[c] / last.sum_after).epsilon(1e-6));
    double lse = 0;
    for (std::size_t j = 0; j <= 7; ++j) lse += std::exp(double(t.scores[j]) - best);
    CHECK(t.lse == Approx(best + std::log(lse)).epsilon(1e-6));
}
