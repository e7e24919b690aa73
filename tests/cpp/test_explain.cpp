#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/examples.hpp"
#include "attnlab/explain.hpp"
#include "attnlab/random.hpp"

using attnlab::tensor;

TEST_CASE("explaining the worked example gives the lesson's exp and sum", "[explain][lesson]") {
    const auto ex = attnlab::worked_example();
    const auto d = attnlab::explain_row(ex.q, ex.k, ex.v, {}, 0);
    CHECK(d.terms(0, 0) == 1.0f);
    CHECK(d.terms(1, 1) == 0.0f);
    CHECK(d.exp_raw(0) == Approx(2.0281).margin(5e-5));
    CHECK(d.exp_raw(1) == 1.0f);
    CHECK(d.sum_raw == Approx(3.0281).margin(5e-5));
    CHECK(d.weights(0) == Approx(d.exp_raw(0) / d.sum_raw).epsilon(1e-6));
    CHECK(d.weights(0) == Approx(d.exp_shifted(0) / d.sum_shifted).epsilon(1e-6));
    CHECK(d.weighted_values(0, 0) + d.weighted_values(1, 0) == Approx(d.output(0)).epsilon(1e-6));
    CHECK(d.output(0) == Approx(6.6976).margin(5e-4));
}

TEST_CASE("the terms of a row sum to its scores and masked keys get exp 0", "[explain]") {
    const auto ex = attnlab::time_flies_example();
    attnlab::attention_options opts;
    opts.causal = true;
    const auto d = attnlab::explain_row(ex.q, ex.k, ex.v, opts, 1);
    for (std::size_t j = 0; j < 5; ++j) {
        float sum = 0;
        for (std::size_t c = 0; c < 4; ++c) sum += d.terms(j, c);
        CHECK(sum == d.scores(j));
    }
    CHECK(d.exp_shifted(4) == 0.0f);
    CHECK(d.weights(4) == 0.0f);
    CHECK_THROWS_MATCHES(attnlab::explain_row(ex.q, ex.k, ex.v, {}, 5), attnlab::argument_error,
                         Catch::Matchers::Message("explainRow: row = 5 but Q has 5 rows; expected 0 to 4"));
    CHECK_THROWS_MATCHES(attnlab::explain_row(ex.q, attnlab::zeros({5, 3}), ex.v, {}, 0), attnlab::argument_error,
                         Catch::Matchers::Message("explainRow: K has d_k = 3 but Q has d_k = 4"));
}

TEST_CASE("the naive softmax overflows for scores near 1000 while the weights stay finite", "[explain]") {
    attnlab::attention_options opts;
    opts.scale = 1.0f;
    const tensor q = {{1000.0f, 1001.0f, 1002.0f}};
    const tensor keys = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    const auto d = attnlab::explain_row(q, keys, keys, opts, 0);
    CHECK(std::isinf(d.exp_raw(2)));
    CHECK(std::isnan(d.naive_weights(0)));
    CHECK(d.weights(0) == Approx(0.0900).margin(5e-5));
    CHECK(d.weights(2) == Approx(0.6652).margin(5e-5));
    const auto small = attnlab::explain_row(tensor{{0.0f, 1.0f, 2.0f}}, keys, keys, opts, 0);
    CHECK(small.naive_weights(1) == Approx(small.weights(1)).epsilon(1e-6));
}

TEST_CASE("the naive softmax is float32 throughout: overflow at 100 and underflow at -1000 give NaN", "[explain]") {
    attnlab::attention_options opts;
    opts.scale = 1.0f;
    const tensor keys = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    // e^100 is about 2.7e43, beyond float32's 3.4e38, though a double would hold it.
    const auto big = attnlab::explain_row(tensor{{100.0f, 101.0f, 102.0f}}, keys, keys, opts, 0);
    CHECK(std::isinf(big.exp_raw(0)));
    CHECK(std::isinf(big.sum_raw));
    for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(big.naive_weights(j)));
    CHECK(big.weights(2) == Approx(0.6652).margin(5e-5));
    const auto tiny = attnlab::explain_row(tensor{{-1000.0f, -1001.0f, -1002.0f}}, keys, keys, opts, 0);
    CHECK(tiny.exp_raw(0) == 0.0f);
    CHECK(tiny.sum_raw == 0.0);
    for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(tiny.naive_weights(j)));
    CHECK(tiny.weights(0) == Approx(0.6652).margin(5e-5));
    const auto fine = attnlab::explain_row(tensor{{80.0f, 81.0f, 82.0f}}, keys, keys, opts, 0);
    CHECK(std::isfinite(fine.sum_raw));
    CHECK(fine.naive_weights(2) == Approx(fine.weights(2)).epsilon(1e-5));
    CHECK(big.naive_error == 0);  // no naive weight is a number
    CHECK(tiny.naive_error == 0);
}

TEST_CASE("naive_error is the largest gap between the float32 naive weights and the weights, as float64 finds it", "[explain]") {
    attnlab::attention_options opts;
    opts.scale = 1.0f;
    const tensor keys = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    const auto d = attnlab::explain_row(tensor{{80.0f, 81.5f, 82.25f}}, keys, keys, opts, 0);
    // Reference: the float32 naive path written out here, against the engine's weights.
    float e[3], sum = 0;
    for (std::size_t j = 0; j < 3; ++j) sum += (e[j] = std::exp(float(d.masked(j))));
    double gap = 0;
    for (std::size_t j = 0; j < 3; ++j) gap = std::max(gap, std::abs(double(e[j] / sum) - double(d.weights(j))));
    INFO("reference gap " << gap);
    CHECK(d.naive_error == gap);
    CHECK(d.naive_error < 1e-6);
}

TEST_CASE("random_normal repeats for a seed and has the asked spread", "[random]") {
    const tensor a = attnlab::random_normal({100, 100}, 0.5, 9), b = attnlab::random_normal({100, 100}, 0.5, 9);
    CHECK((a == b));
    double sq = 0;
    for (float x : a) sq += double(x) * x;
    CHECK(std::sqrt(sq / a.size()) == Approx(0.5).epsilon(0.03));
    CHECK(attnlab::max_abs_diff(a, b) == 0.0);
}

TEST_CASE("random_normal refuses a stddev whose draws would overflow float32", "[random][errors]") {
    CHECK_THROWS_MATCHES(attnlab::random_normal({3}, 1e300, 1), attnlab::argument_error,
                         Catch::Matchers::Message("randomNormal: stddev = 1e+300; expected a number from 0 to 1e37"));
    const tensor big = attnlab::random_normal({10000}, 1e37, 3);
    for (float x : big) REQUIRE(std::isfinite(x));
}
