#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/softmax.hpp"
#include "reference.hpp"

using attnlab::argument_error;
using attnlab::softmax;
using attnlab::tensor;
using Catch::Matchers::Message;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
}

TEST_CASE("softmax of [1000, 1001, 1002] equals softmax of [0, 1, 2] and is finite", "[softmax]") {
    const tensor big = softmax(tensor{1000.0f, 1001.0f, 1002.0f});
    const tensor small = softmax(tensor{0.0f, 1.0f, 2.0f});
    const double e1 = std::exp(1.0), e2 = std::exp(2.0), z = 1 + e1 + e2;
    const double expected[] = {1 / z, e1 / z, e2 / z};
    for (int i = 0; i < 3; ++i) {
        REQUIRE(std::isfinite(big(i)));
        CHECK(big(i) == Approx(expected[i]).epsilon(1e-6));
        CHECK(big(i) == Approx(small(i)).epsilon(1e-6));
    }
    CHECK(big(0) == Approx(0.0900).margin(5e-5));
    CHECK(big(1) == Approx(0.2447).margin(5e-5));
    CHECK(big(2) == Approx(0.6652).margin(5e-5));
}

TEST_CASE("softmax rows sum to 1 and match a double-precision reference", "[softmax]") {
    std::mt19937 gen(7);
    const tensor x = ref::random_tensor({13, 37}, gen, -30, 30);
    const tensor y = softmax(x);
    double worst = 0;
    for (std::size_t i = 0; i < 13; ++i) {
        double best = -1e300, total = 0, sum_y = 0;
        for (std::size_t j = 0; j < 37; ++j) best = std::max(best, double(x(i, j)));
        for (std::size_t j = 0; j < 37; ++j) total += std::exp(double(x(i, j)) - best);
        for (std::size_t j = 0; j < 37; ++j) {
            worst = std::max(worst, std::abs(y(i, j) - std::exp(double(x(i, j)) - best) / total));
            sum_y += y(i, j);
        }
        CHECK(sum_y == Approx(1.0).epsilon(1e-6));
    }
    INFO("max difference from reference: " << worst);
    CHECK(worst < 1e-6);
}

TEST_CASE("softmax over axis 0 normalises columns", "[softmax]") {
    const tensor x = {{1.0f, 2.0f}, {3.0f, 2.0f}};
    const tensor y = softmax(x, 0);
    CHECK(y(0, 0) + y(1, 0) == Approx(1.0f));
    CHECK(y(0, 1) == Approx(0.5f));
    CHECK(y(1, 0) == Approx(std::exp(2.0) / (1 + std::exp(2.0))).epsilon(1e-6));
    const tensor y3 = softmax(tensor{{{0.0f, 1.0f}, {2.0f, 3.0f}}}, 1);  // [1, 2, 2], axis 1
    CHECK(y3(0, 1, 0) == Approx(std::exp(2.0) / (1 + std::exp(2.0))).epsilon(1e-6));
    CHECK((softmax(x, -2) == y));
}

TEST_CASE("softmax gives -infinity entries exactly zero weight and an all -infinity row zeros", "[softmax]") {
    const tensor y = softmax(tensor{{0.0f, -inf, 0.0f}, {-inf, -inf, -inf}});
    CHECK(y(0, 0) == 0.5f);
    CHECK(y(0, 1) == 0.0f);
    CHECK(y(0, 2) == 0.5f);
    for (int j = 0; j < 3; ++j) CHECK(y(1, j) == 0.0f);
}

TEST_CASE("exp_nonpositive is within 3e-7 relative (about 2 ulp) of std::exp on [-87, 0]", "[softmax][kernels]") {
    double worst = 0;
    for (int i = 0; i <= 200000; ++i) {
        const float x = -87.0f * float(i) / 200000.0f;
        const double want = std::exp(double(x));
        worst = std::max(worst, std::abs(attnlab::kernels::exp_nonpositive(x) - want) / want);
    }
    INFO("max relative error: " << worst);
    CHECK(worst < 3e-7);
    CHECK(attnlab::kernels::exp_nonpositive(0.0f) == 1.0f);
    CHECK(attnlab::kernels::exp_nonpositive(-inf) == 0.0f);
    CHECK(attnlab::kernels::exp_nonpositive(-100.0f) == 0.0f);
}

TEST_CASE("exp_shifted_sum and scale give the same bits in place as into another buffer", "[softmax][kernels]") {
    // Both loops are vectorised on the promise that x and y are the same array or disjoint
    // (kernels.cpp, ATTNLAB_SAME_OR_DISJOINT); in place must give what a separate buffer gives.
    for (std::size_t n : {1u, 7u, 64u, 67u, 1000u}) {
        std::vector<float> x(n), y(n), z(n);
        for (std::size_t j = 0; j < n; ++j) x[j] = -float((j * 37) % 101) * 0.25f - (j == 3 ? 100.0f : 0.0f);
        if (n > 5) x[5] = -inf;
        z = x;
        const float sum = attnlab::kernels::exp_shifted_sum(x.data(), y.data(), n, 0.5f);
        CHECK(attnlab::kernels::exp_shifted_sum(z.data(), z.data(), n, 0.5f) == sum);
        CHECK(z == y);
        double want = 0;
        for (std::size_t j = 0; j < n; ++j) want += std::exp(double(x[j]) - 0.5);
        CHECK(sum == Approx(want).epsilon(1e-6));
        z = x;
        CHECK(attnlab::kernels::scale(x.data(), y.data(), n, 0.125f) == (n <= 5));
        CHECK(attnlab::kernels::scale(z.data(), z.data(), n, 0.125f) == (n <= 5));
        for (std::size_t j = 0; j < n; ++j) CHECK((z[j] == y[j] && y[j] == x[j] * 0.125f));
    }
}

TEST_CASE("softmax rejects bad input with a message naming the argument", "[softmax][errors]") {
    CHECK_THROWS_MATCHES(softmax(tensor{0.0f, NAN}), argument_error,
                         Message("softmax: x[1] is NaN; expected finite numbers"));
    CHECK_THROWS_MATCHES(softmax(tensor{{0.0f, inf}}), argument_error,
                         Message("softmax: x[0, 1] is Infinity; expected finite numbers"));
    CHECK_THROWS_MATCHES(softmax(tensor{1.0f, 2.0f}, 1), argument_error,
                         Message("softmax: axis = 1 is out of range for x of rank 1; expected an integer in [-1, 0]"));
    CHECK_THROWS_MATCHES(softmax(attnlab::zeros({2, 0})), argument_error,
                         Message("softmax: x has shape [2, 0]; expected no zero-sized axis"));
}
