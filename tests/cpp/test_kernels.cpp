// The matrix kernel's transposed operand and the vectorised tanh (cpp/src/matmul.cpp and cpp/src/kernels.cpp), which
// the training step's backward and its GELU run on.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attnlab/kernels.hpp"

namespace k = attnlab::kernels;

TEST_CASE("matmul_packed_at gives the bits of transpose then matmul_packed, at every edge of its tiles", "[kernels]") {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-1, 1);
    // m, k and n around the 4-row tile, the 8-column panel and the 256-deep pass
    for (const std::size_t m : {1, 3, 4, 7, 32}) {
        for (const std::size_t depth : {1, 5, 256, 300}) {
            for (const std::size_t n : {1, 8, 13}) {
                std::vector<float> at(depth * m), a(m * depth), b(depth * n), bp(k::packed_size(depth, n));
                for (float& x : at) x = u(gen);
                for (float& x : b) x = u(gen);
                k::pack_b(b.data(), depth, n, bp.data());
                k::transpose(at.data(), a.data(), depth, m);
                std::vector<float> want(m * n), got(m * n, -1.0f);
                k::matmul_packed(a.data(), bp.data(), want.data(), m, depth, n);
                k::matmul_packed_at(at.data(), bp.data(), got.data(), m, depth, n);
                INFO("m " << m << ", k " << depth << ", n " << n);
                REQUIRE(std::memcmp(want.data(), got.data(), sizeof(float) * want.size()) == 0);
            }
        }
    }
}

TEST_CASE("tanh_map is within 2e-7 of tanh, odd, saturates to 1 and works in place", "[kernels]") {
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(static_cast<float>(i) * 0.0025f);  // -10 .. 10
    for (const float big : {30.0f, 100.0f, 1e30f}) {
        x.push_back(big);
        x.push_back(-big);
    }
    std::vector<float> y(x.size());
    k::tanh_map(x.data(), y.data(), x.size());
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(double(y[i]) - std::tanh(double(x[i]))));
    CHECK(worst <= 2e-7);
    std::vector<float> minus(x.size()), y_minus(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) minus[i] = -x[i];
    k::tanh_map(minus.data(), y_minus.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(y_minus[i] == -y[i]);
    CHECK(y[x.size() - 1] == -1.0f);
    CHECK(y[x.size() - 2] == 1.0f);
    std::vector<float> z = x;
    k::tanh_map(z.data(), z.data(), z.size());
    CHECK(std::memcmp(z.data(), y.data(), sizeof(float) * y.size()) == 0);
}
