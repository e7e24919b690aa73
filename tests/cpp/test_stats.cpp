#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/random.hpp"
#include "attnlab/stats.hpp"

using attnlab::argument_error;
using attnlab::dot_product_stats;
using Catch::Matchers::Message;

TEST_CASE("the std of q.k lands near sqrt(d_k) for d_k = 4, 64, 512", "[stats][lesson]") {
    for (double dk : {4.0, 64.0, 512.0}) {
        const auto s = dot_product_stats(dk, 20000, 2017);
        INFO("d_k " << dk << ": mean " << s.mean << " std " << s.std);
        CHECK(s.std == Approx(std::sqrt(dk)).epsilon(0.03));
        CHECK(std::abs(s.mean) < 4 * std::sqrt(dk / 20000));
        CHECK(s.variance == Approx(s.std * s.std));
    }
}

TEST_CASE("the same seed gives the same numbers and another seed different ones", "[stats]") {
    const auto a = dot_product_stats(16, 1000, 7), b = dot_product_stats(16, 1000, 7), c = dot_product_stats(16, 1000, 8);
    CHECK(a.mean == b.mean);
    CHECK(a.std == b.std);
    CHECK(a.std != c.std);
}

TEST_CASE("the normal generator has mean 0 and variance 1", "[stats]") {
    attnlab::normal_generator gen(1);
    double sum = 0, sq = 0;
    const int count = 200000;
    for (int i = 0; i < count; ++i) {
        const double x = gen.normal();
        sum += x;
        sq += x * x;
    }
    CHECK(std::abs(sum / count) < 0.01);
    CHECK(sq / count == Approx(1.0).epsilon(0.01));
}

TEST_CASE("dotProductStats rejects out-of-range arguments by name", "[stats][errors]") {
    CHECK_THROWS_MATCHES(dot_product_stats(0, 10, 1), argument_error,
                         Message("dotProductStats: dk = 0; expected a whole number from 1 to 65536"));
    CHECK_THROWS_MATCHES(dot_product_stats(4, 2.5, 1), argument_error,
                         Message("dotProductStats: samples = 2.5; expected a whole number from 2 to 10,000,000"));
    CHECK_THROWS_MATCHES(dot_product_stats(4, 10, -1), argument_error,
                         Message("dotProductStats: seed = -1; expected a whole number from 0 to 2^53 - 1"));
    CHECK_THROWS_MATCHES(dot_product_stats(65536, 10000, 1), argument_error,
                         Message("dotProductStats: dk * samples = 655360000; expected at most 100,000,000 draws per call"));
}

TEST_CASE("without scaling the softmax saturates and its gradient vanishes as d_k grows", "[stats][saturation]") {
    const auto pts = attnlab::softmax_saturation({4, 64, 512}, 5, 200, 3);
    REQUIRE(pts.size() == 3);
    // Scaled rows keep about the same spread at every d_k.
    CHECK(std::abs(pts[2].max_weight_scaled - pts[0].max_weight_scaled) < 0.1);
    CHECK(pts[2].max_grad_scaled > 0.1);
    // Unscaled rows get closer to one-hot and their largest gradient falls.
    CHECK(pts[2].max_weight_unscaled > 0.95);
    CHECK(pts[2].max_grad_unscaled < 0.05);
    CHECK(pts[2].max_grad_unscaled < pts[0].max_grad_unscaled);
    for (const auto& p : pts) {
        CHECK(p.max_grad_scaled <= 0.25);
        CHECK(p.max_grad_unscaled <= 0.25);
    }
    CHECK_THROWS_MATCHES(attnlab::softmax_saturation({}, 5, 1, 1), argument_error,
                         Message("softmaxSaturation: dks has 0 entries; expected 1 to 64 values of d_k"));
}
