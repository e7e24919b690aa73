#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/multihead.hpp"
#include "reference.hpp"

using attnlab::argument_error;
using attnlab::mha_inputs;
using attnlab::mha_method;
using attnlab::tensor;
using Catch::Matchers::Message;

namespace {

mha_inputs random_inputs(std::size_t n, std::size_t d_model, std::size_t heads, std::uint32_t seed) {
    std::mt19937 gen(seed);
    mha_inputs in;
    in.x = ref::random_tensor({n, d_model}, gen);
    in.w_q = ref::random_tensor({d_model, d_model}, gen, -0.7f, 0.7f);
    in.w_k = ref::random_tensor({d_model, d_model}, gen, -0.7f, 0.7f);
    in.w_v = ref::random_tensor({d_model, d_model}, gen, -0.7f, 0.7f);
    in.w_o = ref::random_tensor({d_model, d_model}, gen, -0.7f, 0.7f);
    in.heads = heads;
    return in;
}

double max_abs_diff(const tensor& a, const tensor& b) {
    REQUIRE(a.shape() == b.shape());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, double(std::abs(a.data()[i] - b.data()[i])));
    return worst;
}

}  // namespace

TEST_CASE("loop and batched multi-head attention agree exactly", "[multihead]") {
    for (bool causal : {false, true}) {
        for (std::size_t heads : {1, 2, 4, 8}) {
            mha_inputs in = random_inputs(6, 8, heads, 100 + heads);
            in.causal = causal;
            in.method = mha_method::loop;
            const auto loop = attnlab::multi_head_attention(in);
            in.method = mha_method::batched;
            const auto batched = attnlab::multi_head_attention(in);
            INFO("heads " << heads << " causal " << causal);
            CHECK(max_abs_diff(loop.output, batched.output) == 0.0);
            CHECK(max_abs_diff(loop.weights, batched.weights) == 0.0);
            CHECK(loop.output.shape() == std::vector<std::size_t>{6, 8});
            CHECK(loop.weights.shape() == std::vector<std::size_t>{heads, 6, 6});
            CHECK(loop.head_outputs.shape() == std::vector<std::size_t>{heads, 6, 8 / heads});
            CHECK(loop.scale == Approx(1 / std::sqrt(8.0 / heads)));
        }
    }
}

TEST_CASE("each head matches single-head attention on its own column slice", "[multihead]") {
    const mha_inputs in = random_inputs(5, 8, 2, 21);
    const auto r = attnlab::multi_head_attention(in);
    for (std::size_t h = 0; h < 2; ++h) {
        // Reference projections in double: Q_h[i, c] = sum_p X[i, p] Wq[p, 4h + c].
        std::vector<float> q(20), k(20), v(20);
        for (std::size_t i = 0; i < 5; ++i) {
            for (std::size_t c = 0; c < 4; ++c) {
                double sq = 0, sk = 0, sv = 0;
                for (std::size_t p = 0; p < 8; ++p) {
                    sq += double(in.x(i, p)) * in.w_q(p, 4 * h + c);
                    sk += double(in.x(i, p)) * in.w_k(p, 4 * h + c);
                    sv += double(in.x(i, p)) * in.w_v(p, 4 * h + c);
                }
                q[i * 4 + c] = float(sq);
                k[i * 4 + c] = float(sk);
                v[i * 4 + c] = float(sv);
            }
        }
        const auto want = ref::attention(q.data(), k.data(), v.data(), 5, 5, 4, 4, 0.5, ref::everything);
        CHECK(ref::max_diff(r.weights, want.weights, h * 25) < 1e-5);
        CHECK(ref::max_diff(r.head_outputs, want.output, h * 20) < 1e-5);
    }
    // output = concat Wo
    double worst = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        for (std::size_t c = 0; c < 8; ++c) {
            double s = 0;
            for (std::size_t p = 0; p < 8; ++p) s += double(r.concat(i, p)) * (*in.w_o)(p, c);
            worst = std::max(worst, std::abs(s - r.output(i, c)));
        }
    }
    CHECK(worst < 1e-5);
}

TEST_CASE("forgetting the merge transpose keeps the shapes but scrambles the values", "[multihead]") {
    mha_inputs in = random_inputs(6, 8, 2, 33);
    const auto right = attnlab::multi_head_attention(in);
    in.forget_merge_transpose = true;
    const auto wrong = attnlab::multi_head_attention(in);
    CHECK(wrong.output.shape() == right.output.shape());
    CHECK((wrong.weights == right.weights));
    CHECK(max_abs_diff(wrong.output, right.output) > 1e-2);
}

TEST_CASE("h = d_model gives d_k = 1 and a scale of 1", "[multihead]") {
    const auto r = attnlab::multi_head_attention(random_inputs(4, 8, 8, 9));
    CHECK(r.scale == 1.0f);
    CHECK(r.q.shape() == std::vector<std::size_t>{8, 4, 1});
}

TEST_CASE("multi-head attention rejects bad input by name", "[multihead][errors]") {
    mha_inputs in = random_inputs(6, 8, 3, 1);
    CHECK_THROWS_MATCHES(attnlab::multi_head_attention(in), argument_error,
                         Message("multiHeadAttention: heads = 3 does not divide d_model = 8; expected a divisor so every head gets the same width"));
    in.heads = 2;
    in.w_k = attnlab::zeros({7, 8});
    CHECK_THROWS_MATCHES(attnlab::multi_head_attention(in), argument_error,
                         Message("multiHeadAttention: Wk has 7 rows but X has d_model = 8"));
    in = random_inputs(6, 8, 2, 1);
    in.w_o = attnlab::zeros({6, 8});
    CHECK_THROWS_MATCHES(attnlab::multi_head_attention(in), argument_error,
                         Message("multiHeadAttention: Wo has 6 rows but the heads concatenate to D_v = 8"));
}

TEST_CASE("a product that overflows float32 is refused, naming its inputs and multiHeadAttention", "[multihead][errors]") {
    const auto mat = [](std::size_t rows, std::size_t cols, std::initializer_list<float> values) {
        tensor t = tensor::from_shape({rows, cols});
        std::copy(values.begin(), values.end(), t.begin());
        return t;
    };
    mha_inputs in;
    in.x = mat(1, 1, {1e38f});
    in.w_q = mat(1, 1, {0});
    in.w_k = mat(1, 1, {0});
    in.w_v = mat(1, 2, {3, 3});
    in.w_o = mat(2, 1, {10, -10});
    CHECK_THROWS_MATCHES(attnlab::multi_head_attention(in), argument_error,
                         Message("multiHeadAttention: the concatenated heads Wo at [0, 0] overflows float32; expected smaller values in the concatenated heads or Wo"));
    in.w_q = mat(1, 1, {10});
    CHECK_THROWS_MATCHES(attnlab::multi_head_attention(in), argument_error,
                         Message("multiHeadAttention: X Wq at [0, 0] overflows float32; expected smaller values in X or Wq"));
    in.x = mat(1, 1, {1e20f});
    in.w_q = mat(1, 1, {1});
    in.w_k = mat(1, 1, {1});
    in.w_v = mat(1, 1, {1});
    in.w_o.reset();
    CHECK_THROWS_WITH(attnlab::multi_head_attention(in), Catch::StartsWith("multiHeadAttention: the scaled score[0, 0, 0] is infinite"));
}
