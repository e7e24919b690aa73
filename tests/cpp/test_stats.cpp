#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

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

namespace {

// The experiment written out in one loop, as a reference for the stepped sampler.
attnlab::dot_stats reference_stats(std::size_t dk, std::size_t samples, std::uint64_t seed) {
    attnlab::normal_generator gen(seed);
    double mean = 0, m2 = 0;
    for (std::size_t s = 0; s < samples; ++s) {
        double dot = 0;
        for (std::size_t i = 0; i < dk; ++i) {
            const double q = gen.normal();
            dot += q * gen.normal();
        }
        const double delta = dot - mean;
        mean += delta / static_cast<double>(s + 1);
        m2 += delta * (dot - mean);
    }
    attnlab::dot_stats r;
    r.mean = mean;
    r.variance = m2 / static_cast<double>(samples - 1);
    r.std = std::sqrt(r.variance);
    return r;
}

}  // namespace

TEST_CASE("any split of the samples over add() gives exactly the one-call numbers", "[stats][sampler]") {
    const auto whole = reference_stats(512, 5000, 2017);
    const auto direct = dot_product_stats(512, 5000, 2017);
    CHECK(direct.mean == whole.mean);
    CHECK(direct.variance == whole.variance);
    for (const std::vector<double>& split : std::vector<std::vector<double>>{{5000}, {2, 4998}, {1, 1, 3, 995, 4000}, {1000, 1000, 1000, 1000, 1000}}) {
        attnlab::dot_product_sampler sampler(512, 2017);
        for (double count : split) sampler.add(count);
        const auto r = sampler.result();
        CHECK(sampler.samples() == 5000);
        CHECK(r.mean == whole.mean);
        CHECK(r.variance == whole.variance);
        CHECK(r.std == whole.std);
        CHECK(r.expected_std == std::sqrt(512.0));
    }
}

TEST_CASE("the stepped sampler rejects bad counts by name and stays usable", "[stats][sampler][errors]") {
    CHECK_THROWS_MATCHES(attnlab::dot_product_sampler(0, 1), argument_error,
                         Message("createDotProductStats: dk = 0; expected a whole number from 1 to 65536"));
    attnlab::dot_product_sampler sampler(65536, 3);
    CHECK_THROWS_MATCHES(sampler.result(), argument_error,
                         Message("createDotProductStats: result: 0 samples drawn; expected add() to reach at least 2 first"));
    CHECK_THROWS_MATCHES(sampler.add(0.5), argument_error,
                         Message("createDotProductStats: add: count = 0.5; expected a whole number from 1 to 1525"));
    sampler.add(1500);
    CHECK_THROWS_MATCHES(sampler.add(26), argument_error,
                         Message("createDotProductStats: add: count = 26; expected a whole number from 1 to 25"));
    sampler.add(25);
    CHECK_THROWS_MATCHES(sampler.add(1), argument_error,
                         Message("createDotProductStats: add: 1525 samples drawn, the most for dk = 65536; expected no more calls to add"));
    CHECK(sampler.samples() == 1525);
    CHECK(std::isfinite(sampler.result().std));
}
