#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/examples.hpp"
#include "reference.hpp"

using attnlab::argument_error;
using attnlab::attention;
using attnlab::attention_options;
using attnlab::shape_t;
using attnlab::tensor;
using Catch::Matchers::Message;

TEST_CASE("the worked example reproduces every intermediate number", "[attention][lesson]") {
    const auto ex = attnlab::worked_example();
    const auto r = attention(ex.q, ex.k, ex.v);
    CHECK(r.scale == Approx(1 / std::sqrt(2.0)));
    CHECK(r.scores(0, 0) == 1.0f);
    CHECK(r.scores(0, 1) == 0.0f);
    CHECK(r.scaled(0, 0) == Approx(0.7071).margin(5e-5));
    CHECK(r.scaled(0, 1) == 0.0f);
    CHECK(r.weights(0, 0) == Approx(0.6698).margin(5e-5));
    CHECK(r.weights(0, 1) == Approx(0.3302).margin(5e-5));
    CHECK(r.output(0, 0) == Approx(6.6976).margin(5e-4));
    CHECK(r.output(0, 1) == Approx(1.9814).margin(5e-4));
    // exp(0.7071) / (exp(0.7071) + 1) exactly, in double:
    const double e = std::exp(1 / std::sqrt(2.0));
    CHECK(r.weights(0, 0) == Approx(e / (e + 1)).epsilon(1e-6));
}

TEST_CASE("time flies like an arrow: flies attends mostly to arrow", "[attention][lesson]") {
    const auto ex = attnlab::time_flies_example();
    REQUIRE(ex.tokens == std::vector<std::string>{"time", "flies", "like", "an", "arrow"});
    const auto r = attention(ex.q, ex.k, ex.v);
    const float flies_scores[] = {0, 6, 0, 0, 9};
    const float flies_scaled[] = {0, 3, 0, 0, 4.5f};
    const double flies_weights[] = {0.01, 0.18, 0.01, 0.01, 0.80};
    for (int j = 0; j < 5; ++j) {
        CHECK(r.scores(1, j) == flies_scores[j]);
        CHECK(r.scaled(1, j) == flies_scaled[j]);
        CHECK(r.weights(1, j) == Approx(flies_weights[j]).margin(0.005));
    }
    // Without scaling the row is much spikier.
    attention_options unscaled;
    unscaled.scale = 1.0f;
    const auto u = attention(ex.q, ex.k, ex.v, unscaled);
    CHECK(u.weights(1, 4) > 0.95f);
    CHECK(u.weights(1, 4) > r.weights(1, 4));
    // "like" and "an" spread out: no weight above 0.3, none below 0.1.
    for (int i : {2, 3}) {
        const float* row = r.weights.data() + i * 5;
        CHECK(*std::max_element(row, row + 5) < 0.3f);
        CHECK(*std::min_element(row, row + 5) > 0.1f);
    }
}

TEST_CASE("every stage matches the double-precision reference for random batched shapes", "[attention]") {
    std::mt19937 gen(42);
    struct case_t { shape_t lead; std::size_t m, n, dk, dv; };
    const case_t cases[] = {{{}, 5, 5, 4, 4}, {{}, 3, 7, 5, 2}, {{2}, 9, 4, 8, 3},
                            {{2, 3}, 6, 11, 16, 9}, {{1}, 1, 1, 1, 1}, {{}, 33, 65, 64, 17}};
    for (const auto& c : cases) {
        shape_t qs = c.lead, ks = c.lead, vs = c.lead;
        qs.insert(qs.end(), {c.m, c.dk});
        ks.insert(ks.end(), {c.n, c.dk});
        vs.insert(vs.end(), {c.n, c.dv});
        const tensor q = ref::random_tensor(qs, gen), k = ref::random_tensor(ks, gen), v = ref::random_tensor(vs, gen);
        const auto r = attention(q, k, v);
        const std::size_t batches = std::accumulate(c.lead.begin(), c.lead.end(), std::size_t(1), std::multiplies<>());
        double worst = 0;
        for (std::size_t b = 0; b < batches; ++b) {
            const auto want = ref::attention(q.data() + b * c.m * c.dk, k.data() + b * c.n * c.dk,
                                             v.data() + b * c.n * c.dv, c.m, c.n, c.dk, c.dv,
                                             1 / std::sqrt(double(c.dk)), ref::everything);
            worst = std::max({worst, ref::max_diff(r.scores, want.scores, b * c.m * c.n),
                              ref::max_diff(r.scaled, want.scaled, b * c.m * c.n),
                              ref::max_diff(r.weights, want.weights, b * c.m * c.n),
                              ref::max_diff(r.output, want.output, b * c.m * c.dv)});
        }
        INFO("shape m=" << c.m << " n=" << c.n << " dk=" << c.dk << " dv=" << c.dv << ": max difference " << worst);
        CHECK(worst < 2e-5);
        CHECK((r.masked == r.scaled));
        CHECK(r.fully_masked_rows.empty());
    }
}

TEST_CASE("with the causal mask row 0 is [1, 0, ...] and everything above the diagonal is 0", "[attention][mask]") {
    std::mt19937 gen(3);
    const tensor x = ref::random_tensor({6, 4}, gen);
    attention_options opts;
    opts.causal = true;
    const auto r = attention(x, x, x, opts);
    CHECK(r.weights(0, 0) == 1.0f);
    for (std::size_t i = 0; i < 6; ++i) {
        float total = 0;
        for (std::size_t j = 0; j < 6; ++j) {
            total += r.weights(i, j);
            if (j > i) {
                CHECK(r.weights(i, j) == 0.0f);
                CHECK(r.masked(i, j) == -std::numeric_limits<float>::infinity());
            }
        }
        CHECK(total == Approx(1.0f).epsilon(1e-6));
    }
    const auto want = ref::attention(x.data(), x.data(), x.data(), 6, 6, 4, 4, 0.5,
                                     [](std::size_t i, std::size_t j) { return j <= i; });
    CHECK(ref::max_diff(r.weights, want.weights) < 1e-6);
    CHECK(ref::max_diff(r.output, want.output) < 1e-5);
}

TEST_CASE("a fully masked row gives zero weights and a zero output row and is reported", "[attention][mask]") {
    std::mt19937 gen(5);
    const tensor q = ref::random_tensor({2, 3, 4}, gen), k = ref::random_tensor({2, 5, 4}, gen),
                 v = ref::random_tensor({2, 5, 2}, gen);
    attention_options opts;
    opts.valid_lens = tensor{{5.0f, 2.0f, 0.0f}, {3.0f, 0.0f, 5.0f}};  // per query row
    const auto r = attention(q, k, v, opts);
    REQUIRE(r.fully_masked_rows == std::vector<shape_t>{{0, 2}, {1, 1}});
    for (std::size_t j = 0; j < 5; ++j) {
        CHECK(r.weights(0, 2, j) == 0.0f);
        CHECK(r.weights(1, 1, j) == 0.0f);
    }
    for (std::size_t d = 0; d < 2; ++d) {
        CHECK(r.output(0, 2, d) == 0.0f);
        CHECK(r.output(1, 1, d) == 0.0f);
    }
    for (float w : r.weights) CHECK(std::isfinite(w));
    CHECK(r.weights(0, 1, 2) == 0.0f);  // row length 2: key 2 is padding
    CHECK(r.weights(0, 1, 0) + r.weights(0, 1, 1) == Approx(1.0f));
}

TEST_CASE("padding by one valid length per batch element hides keys past it", "[attention][mask]") {
    std::mt19937 gen(6);
    const tensor q = ref::random_tensor({2, 4, 3}, gen), k = ref::random_tensor({2, 4, 3}, gen),
                 v = ref::random_tensor({2, 4, 3}, gen);
    attention_options opts;
    opts.valid_lens = tensor{2.0f, 4.0f};
    const auto r = attention(q, k, v, opts);
    const double s = 1 / std::sqrt(3.0);
    const auto b0 = ref::attention(q.data(), k.data(), v.data(), 4, 4, 3, 3, s,
                                   [](std::size_t, std::size_t j) { return j < 2; });
    const auto b1 = ref::attention(q.data() + 12, k.data() + 12, v.data() + 12, 4, 4, 3, 3, s, ref::everything);
    CHECK(ref::max_diff(r.weights, b0.weights, 0) < 1e-6);
    CHECK(ref::max_diff(r.weights, b1.weights, 16) < 1e-6);
    CHECK(ref::max_diff(r.output, b1.output, 12) < 1e-5);
}

TEST_CASE("an explicit boolean mask broadcasts over batch axes and combines with causal", "[attention][mask]") {
    std::mt19937 gen(8);
    const tensor x = ref::random_tensor({3, 4, 4}, gen);
    attention_options opts;
    opts.mask = tensor{{1, 0, 1, 1}, {1, 1, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 0}};  // [4, 4] for all 3
    opts.causal = true;
    const auto r = attention(x, x, x, opts);
    const auto allow = [&](std::size_t i, std::size_t j) { return j <= i && (*opts.mask)(i, j) != 0; };
    for (std::size_t b = 0; b < 3; ++b) {
        const float* xb = x.data() + b * 16;
        const auto want = ref::attention(xb, xb, xb, 4, 4, 4, 4, 0.5, allow);
        CHECK(ref::max_diff(r.weights, want.weights, b * 16) < 1e-6);
    }
}

TEST_CASE("causal cross-attention aligns the last query with the last key", "[attention][mask]") {
    std::mt19937 gen(9);
    const tensor q = ref::random_tensor({1, 3}, gen), k = ref::random_tensor({4, 3}, gen);
    attention_options opts;
    opts.causal = true;
    const auto r = attention(q, k, k, opts);  // one new query against a cache of 4 keys sees all
    for (std::size_t j = 0; j < 4; ++j) CHECK(r.weights(0, j) > 0.0f);
}

TEST_CASE("attention without a mask is permutation-equivariant", "[attention]") {
    std::mt19937 gen(11);
    const std::size_t n = 7, d = 5;
    const tensor x = ref::random_tensor({n, d}, gen);
    const std::size_t perm[] = {3, 0, 6, 2, 5, 1, 4};
    tensor px = attnlab::zeros({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < d; ++c) px(i, c) = x(perm[i], c);
    }
    const auto r = attention(x, x, x);
    const auto pr = attention(px, px, px);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < d; ++c) worst = std::max(worst, double(std::abs(pr.output(i, c) - r.output(perm[i], c))));
    }
    INFO("max difference after un-permuting: " << worst);
    CHECK(worst < 1e-6);
}

TEST_CASE("the scaling rule and temperature set the scale when none is given", "[attention]") {
    const auto ex = attnlab::time_flies_example();
    attention_options opts;
    opts.rule = attnlab::scaling::inv_dk;
    CHECK(attention(ex.q, ex.k, ex.v, opts).scale == 0.25f);
    opts.rule = attnlab::scaling::none;
    opts.temperature = 2;
    CHECK(attention(ex.q, ex.k, ex.v, opts).scale == 0.5f);
    opts.rule = attnlab::scaling::inv_sqrt_dk;
    opts.temperature = 0.5f;
    CHECK(attention(ex.q, ex.k, ex.v, opts).scale == 1.0f);
    opts.temperature = 0;
    CHECK_THROWS_MATCHES(attention(ex.q, ex.k, ex.v, opts), argument_error,
                         Message("attention: temperature is 0; expected a number > 0"));
}

TEST_CASE("scale can be 1 (none) or 1/d_k (the common mistake)", "[attention]") {
    const auto ex = attnlab::time_flies_example();
    attention_options opts;
    opts.scale = 0.25f;
    const auto r = attention(ex.q, ex.k, ex.v, opts);
    CHECK(r.scale == 0.25f);
    CHECK(r.scaled(1, 4) == 2.25f);
}

TEST_CASE("the workspace gives the same stages as attention() and reuses its buffers", "[attention][workspace]") {
    std::mt19937 gen(12);
    attention_options opts;
    opts.causal = true;
    attnlab::attention_workspace ws({2}, 6, 6, 4, 3, opts);
    const float* before = ws.result().weights.data();
    for (int round = 0; round < 3; ++round) {
        const tensor q = ref::random_tensor({2, 6, 4}, gen), k = ref::random_tensor({2, 6, 4}, gen),
                     v = ref::random_tensor({2, 6, 3}, gen);
        std::copy(q.begin(), q.end(), ws.q().begin());
        std::copy(k.begin(), k.end(), ws.k().begin());
        std::copy(v.begin(), v.end(), ws.v().begin());
        const auto& got = ws.run();
        const auto want = attention(q, k, v, opts);
        CHECK((got.weights == want.weights));
        CHECK((got.output == want.output));
        CHECK(got.weights.data() == before);
    }
    ws.q()(0, 0, 0) = NAN;
    CHECK_THROWS_MATCHES(ws.run(), argument_error, Message("attention: Q[0, 0, 0] is NaN; expected finite numbers"));
}

TEST_CASE("attention rejects bad input with a message naming the argument", "[attention][errors]") {
    const tensor q = attnlab::zeros({2, 4}), k3 = attnlab::zeros({3, 3}), k = attnlab::zeros({3, 4}),
                 v = attnlab::zeros({3, 2});
    CHECK_THROWS_MATCHES(attention(q, k3, v), argument_error, Message("attention: K has d_k = 3 but Q has d_k = 4"));
    CHECK_THROWS_MATCHES(attention(tensor{1.0f, 2.0f}, k, v), argument_error,
                         Message("attention: Q has rank 1 (shape [2]); expected rank >= 2, [..., m, d_k]"));
    CHECK_THROWS_MATCHES(attention(q, k, attnlab::zeros({2, 2})), argument_error,
                         Message("attention: V has 2 rows but K has 3; expected one value per key"));
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({2, 0}), attnlab::zeros({3, 0}), v), argument_error,
                         Message("attention: Q has d_k = 0; expected at least one feature per query"));
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({0, 4}), k, v), argument_error,
                         Message("attention: Q has shape [0, 4]; expected no zero-sized axis"));
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({2, 2, 4}), attnlab::zeros({3, 3, 4}), v), argument_error,
                         Message("attention: K has leading axes [3] but Q has [2]; expected the same batch/head axes"));
    tensor bad = attnlab::zeros({3, 4});
    bad(2, 1) = std::numeric_limits<float>::infinity();
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({2, 4}), bad, attnlab::zeros({3, 2})), argument_error,
                         Message("attention: K[2, 1] is Infinity; expected finite numbers"));
    attention_options opts;
    opts.valid_lens = tensor{4.0f};
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({1, 2, 4}), attnlab::zeros({1, 3, 4}), attnlab::zeros({1, 3, 2}), opts),
                         argument_error,
                         Message("attention: validLens[0] = 4; expected an integer in [0, 3] (the number of keys)"));
    opts.valid_lens = tensor{1.0f, 2.0f};
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({1, 2, 4}), attnlab::zeros({1, 3, 4}), attnlab::zeros({1, 3, 2}), opts),
                         argument_error,
                         Message("attention: validLens has shape [2]; expected a prefix of [1, 2] (one length per batch element, or one per query row)"));
    attention_options big;
    big.max_elements = 1000;
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({40, 1}), attnlab::zeros({40, 1}), attnlab::zeros({40, 1}), big),
                         argument_error, Message("attention: the scores [40, 40] would take 1600 floats, more than the limit of 1000"));
    // Inputs over the limit are refused as the workspace refuses them, even when every stage fits.
    attention_options small;
    small.max_elements = 10;
    const char* q_message = "attention: Q [2, 8] would take 16 floats, more than the limit of 10";
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({2, 8}), attnlab::zeros({1, 8}), attnlab::zeros({1, 1}), small),
                         argument_error, Message(q_message));
    CHECK_THROWS_MATCHES(attnlab::attention_workspace({}, 2, 1, 8, 1, small), argument_error, Message(q_message));
    attention_options overflow;
    overflow.scale = 1e30f;
    CHECK_THROWS_WITH(attention(attnlab::zeros({1, 1}) + 1e20f, attnlab::zeros({1, 1}) + 1e20f, attnlab::zeros({1, 1}), overflow),
                      Catch::Contains("beyond float32"));
}

TEST_CASE("the example's embeddings and projections reproduce its Q, K and V exactly", "[attention][lesson]") {
    const auto ex = attnlab::time_flies_example();
    REQUIRE(ex.x.shape() == std::vector<std::size_t>{5, 6});
    for (std::size_t i = 0; i < 5; ++i) {
        for (std::size_t c = 0; c < 4; ++c) {
            double q = 0, k = 0, v = 0;
            for (std::size_t p = 0; p < 6; ++p) {
                q += double(ex.x(i, p)) * ex.w_q(p, c);
                k += double(ex.x(i, p)) * ex.w_k(p, c);
                v += double(ex.x(i, p)) * ex.w_v(p, c);
            }
            CHECK(q == ex.q(i, c));
            CHECK(k == ex.k(i, c));
            CHECK(v == ex.v(i, c));
        }
    }
    // With Q = K = V = X every token attends mostly to itself.
    const auto self = attention(ex.x, ex.x, ex.x);
    for (std::size_t i = 0; i < 5; ++i) {
        for (std::size_t j = 0; j < 5; ++j) {
            if (j != i) CHECK(self.weights(i, i) > 2 * self.weights(i, j));
        }
    }
}

TEST_CASE("finite inputs never give an infinite output: weights summing past 1 times huge V is refused by name", "[attention][errors]") {
    tensor v = attnlab::zeros({10, 1}) + 3.4028235e38f;
    CHECK_THROWS_MATCHES(attention(attnlab::zeros({1, 1}), attnlab::zeros({10, 1}), v), argument_error,
                         Message("attention: the output[0, 0] overflows float32; expected smaller values in V"));
}

TEST_CASE("a scale or temperature float32 cannot hold is refused, naming the option", "[attention][errors]") {
    const auto ex = attnlab::worked_example();
    attention_options opts;
    opts.scale = 1e-60;
    CHECK_THROWS_MATCHES(attention(ex.q, ex.k, ex.v, opts), argument_error,
                         Message("attention: scale = 1e-60 is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38"));
    opts.scale = 0.0;
    CHECK(attention(ex.q, ex.k, ex.v, opts).weights(0, 0) == 0.5f);
    attention_options hot;
    hot.temperature = 1e-40;
    CHECK_THROWS_MATCHES(attention(ex.q, ex.k, ex.v, hot), argument_error,
                         Message("attention: temperature = 1e-40 makes the scale 1/sqrt(d_k) / temperature overflow float32; expected a larger temperature"));
    hot.temperature = 1e300;
    CHECK_THROWS_WITH(attention(ex.q, ex.k, ex.v, hot, "explainRow"), Catch::StartsWith("explainRow: temperature = 1e+300 makes"));
}

TEST_CASE("sizes given as doubles are checked before narrowing and shown as given", "[tensor][errors]") {
    CHECK(attnlab::to_size(7, "f", "n") == 7);
    CHECK_THROWS_WITH(attnlab::to_size(1e20, "f", "n"), Catch::StartsWith("f: n = 100000000000000000000; expected a whole number from 0 to "));
    CHECK_THROWS_WITH(attnlab::to_size(-1, "f", "n"), Catch::StartsWith("f: n = -1;"));
    CHECK_THROWS_WITH(attnlab::to_size(0.5, "f", "n"), Catch::StartsWith("f: n = 0.5;"));
    CHECK(attnlab::number_string(1e-60) == "1e-60");
    CHECK(attnlab::number_string(4294967297.0) == "4294967297");
    CHECK(attnlab::number_string(0.1f) == "0.10000000149011612");  // as JavaScript prints Math.fround(0.1)
}

TEST_CASE("max_abs_diff refuses NaN and infinity rather than calling them equal", "[tensor][errors]") {
    CHECK_THROWS_MATCHES(attnlab::max_abs_diff(tensor{NAN, 2.0f}, tensor{1.0f, 2.0f}), argument_error,
                         Message("maxAbsDiff: a[0] is NaN; expected finite numbers"));
    const float inf = std::numeric_limits<float>::infinity();
    CHECK_THROWS_MATCHES(attnlab::max_abs_diff(tensor{1.0f}, tensor{inf}), argument_error,
                         Message("maxAbsDiff: b[0] is Infinity; expected finite numbers"));
    CHECK(attnlab::max_abs_diff(tensor{1.0f, 2.0f}, tensor{1.5f, 2.0f}) == 0.5);
}
