// Half precision bits (half.cpp): exact round trips, rounding to nearest even, the edges.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>

#include "attnlab/half.hpp"

using attnlab::float_to_half;
using attnlab::half_to_float;

TEST_CASE("every half converts to a float and back to the same bits", "[half]") {
    for (std::uint32_t h = 0; h < 0x10000u; ++h) {
        const float x = half_to_float(static_cast<std::uint16_t>(h));
        if (std::isnan(x)) {
            REQUIRE(std::isnan(half_to_float(float_to_half(x))));
            continue;
        }
        REQUIRE(float_to_half(x) == h);
    }
}

TEST_CASE("halves have the values IEEE 754 gives them", "[half]") {
    CHECK(half_to_float(0x3C00) == 1.0f);
    CHECK(half_to_float(0xC000) == -2.0f);
    CHECK(half_to_float(0x7BFF) == 65504.0f);
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(half_to_float(0x03FF) == std::ldexp(1023.0f, -24));
    CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));
    CHECK(std::isinf(half_to_float(0x7C00)));
    CHECK(std::signbit(half_to_float(0x8000)));
}

TEST_CASE("floats round to the nearest half, ties to even, and overflow to infinity", "[half]") {
    CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // a tie: stays on the even 1.0
    CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // a tie: up to the even neighbour
    CHECK(float_to_half(65519.0f) == 0x7BFF);
    CHECK(float_to_half(65520.0f) == 0x7C00);  // the tie above the largest half goes to infinity
    CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // a tie between 0 and the smallest subnormal
    CHECK(float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
    CHECK(float_to_half(-1e-30f) == 0x8000);
    CHECK(float_to_half(INFINITY) == 0x7C00);
    CHECK(std::isnan(half_to_float(float_to_half(NAN))));
}

TEST_CASE("random floats go to a nearest half: no half lies closer", "[half]") {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-26, 15);  // below 2^15: no overflow
    for (int i = 0; i < 20000; ++i) {
        const float x = std::ldexp(mantissa(gen), exponent(gen));
        const std::uint16_t h = float_to_half(x);
        const double error = std::abs(double(half_to_float(h)) - double(x));
        for (int step : {-1, 1}) {
            const std::uint16_t next = static_cast<std::uint16_t>(h + step);
            const float y = half_to_float(next);
            if (std::isnan(y)) continue;  // past +-0: the neighbour of 0x0000 below is NaN's bits
            REQUIRE(error <= std::abs(double(y) - double(x)));
        }
    }
}
