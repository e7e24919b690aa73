// attention_backward() with every mask, against central differences of a float64 reference
// (tolerances as in test_grad.cpp: 1e-3 relative plus 1e-5 of the largest gradient).

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>

#include "attnlab/attention_backward.hpp"
#include "attnlab/errors.hpp"
#include "train_reference.hpp"

using attnlab::argument_error;
using attnlab::attention_backward;
using attnlab::attention_options;
using attnlab::shape_t;
using attnlab::tensor;
using Catch::Matchers::Message;

namespace {

using allow_fn = std::function<bool(std::size_t slice, std::size_t i, std::size_t j)>;

tensor random_tensor(const shape_t& shape, std::mt19937& gen, double lo = -1.5, double hi = 1.5) {
    std::uniform_real_distribution<double> u(lo, hi);
    tensor t = attnlab::empty(shape);
    for (float& x : t) x = static_cast<float>(u(gen));
    return t;
}

ref::vec as_vec(const tensor& t) { return ref::vec(t.begin(), t.end()); }

// sum(dO * attention(...)) over every slice, in float64.
double reference_loss(const ref::vec& q, const ref::vec& k, const ref::vec& v, const ref::vec& d_o,
                      std::size_t slices, std::size_t m, std::size_t n, std::size_t dk, std::size_t dv, double scale,
                      const allow_fn& allow) {
    double total = 0;
    for (std::size_t s = 0; s < slices; ++s) {
        const ref::vec qs(q.begin() + s * m * dk, q.begin() + (s + 1) * m * dk);
        const ref::vec ks(k.begin() + s * n * dk, k.begin() + (s + 1) * n * dk);
        const ref::vec vs(v.begin() + s * n * dv, v.begin() + (s + 1) * n * dv);
        const ref::vec o = ref::attention(qs, ks, vs, m, n, dk, dv, scale,
                                          [&](std::size_t i, std::size_t j) { return allow(s, i, j); });
        for (std::size_t i = 0; i < m * dv; ++i) total += o[i] * d_o[s * m * dv + i];
    }
    return total;
}

void require_close(const tensor& engine, const ref::vec& reference, const char* what) {
    double largest = 0, worst = 0;
    for (double r : reference) largest = std::max(largest, std::abs(r));
    std::size_t at = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double ratio = std::abs(engine.data()[i] - reference[i]) /
                             std::max(1e-3 * std::abs(reference[i]) + 1e-5 * largest, 1e-300);
        if (ratio > worst) worst = ratio, at = i;
    }
    INFO(what << ": worst entry " << at << ": engine " << engine.data()[at] << ", reference " << reference[at]);
    REQUIRE(worst <= 1.0);
}

// Checks dQ, dK, dV against central differences, and dS's identities under `allow`.
void check_case(const shape_t& lead, std::size_t m, std::size_t n, std::size_t dk, std::size_t dv,
                const attention_options& opts, double scale, const allow_fn& allow, unsigned seed) {
    std::mt19937 gen(seed);
    shape_t qs = lead, ks = lead, vs = lead, os = lead;
    qs.insert(qs.end(), {m, dk});
    ks.insert(ks.end(), {n, dk});
    vs.insert(vs.end(), {n, dv});
    os.insert(os.end(), {m, dv});
    const tensor q = random_tensor(qs, gen), k = random_tensor(ks, gen), v = random_tensor(vs, gen),
                 d_o = random_tensor(os, gen);
    std::size_t slices = 1;
    for (std::size_t x : lead) slices *= x;
    const auto g = attention_backward(q, k, v, d_o, opts);
    REQUIRE(g.scale == Approx(scale).epsilon(1e-7));
    ref::vec qv = as_vec(q), kv = as_vec(k), vv = as_vec(v);
    const ref::vec dov = as_vec(d_o);
    const auto loss = [&] { return reference_loss(qv, kv, vv, dov, slices, m, n, dk, dv, scale, allow); };
    require_close(g.dq, ref::central_differences(qv, loss), "dQ");
    require_close(g.dk, ref::central_differences(kv, loss), "dK");
    require_close(g.dv, ref::central_differences(vv, loss), "dV");
    for (std::size_t s = 0; s < slices; ++s) {
        for (std::size_t i = 0; i < m; ++i) {
            const float* row = g.ds.data() + (s * m + i) * n;
            double sum = 0, largest = 0;
            for (std::size_t j = 0; j < n; ++j) {
                sum += row[j];
                largest = std::max(largest, double(std::abs(row[j])));
                if (!allow(s, i, j)) {
                    INFO("slice " << s << " row " << i << " key " << j);
                    REQUIRE(row[j] == 0.0f);
                }
            }
            INFO("slice " << s << " row " << i << " of dS sums to " << sum);
            REQUIRE(std::abs(sum) <= 1e-5 * largest * double(n));
        }
    }
}

}  // namespace

TEST_CASE("attention_backward without masks: dQ, dK, dV match central differences; dS rows sum to 0", "[attention_backward]") {
    check_case({2}, 6, 6, 5, 3, {}, 1 / std::sqrt(5.0), [](std::size_t, std::size_t, std::size_t) { return true; }, 1);
}

TEST_CASE("attention_backward for cross-attention (m != n) with a causal mask aligned to the last key", "[attention_backward]") {
    attention_options o;
    o.causal = true;
    // query i sees keys j <= i + (n - m)
    check_case({}, 4, 7, 3, 5, o, 1 / std::sqrt(3.0),
               [](std::size_t, std::size_t i, std::size_t j) { return j <= i + 3; }, 2);
}

TEST_CASE("attention_backward with valid lengths per batch element shared across heads", "[attention_backward]") {
    attention_options o;
    o.valid_lens = tensor{3.0f, 6.0f};  // [batch]; lead is [batch = 2, heads = 2]
    check_case({2, 2}, 5, 6, 4, 4, o, 0.5,
               [](std::size_t s, std::size_t, std::size_t j) { return j < (s / 2 == 0 ? 3u : 6u); }, 3);
}

TEST_CASE("attention_backward with a sliding window, temperature, and a fully masked row", "[attention_backward]") {
    attention_options o;
    o.window = 2;
    o.temperature = 2;
    // the explicit mask hides every key of row 3 that the window leaves it
    o.mask = tensor{{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1},
                    {1, 1, 0, 0, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}};
    const auto allow = [](std::size_t, std::size_t i, std::size_t j) {
        return j <= i && j + 2 > i && !(i == 3 && (j == 2 || j == 3));
    };
    check_case({}, 6, 6, 4, 2, o, 1 / std::sqrt(4.0) / 2, allow, 4);
    // the fully masked row has zero gradients everywhere
    std::mt19937 gen(4);
    const tensor q = random_tensor({6, 4}, gen), k = random_tensor({6, 4}, gen), v = random_tensor({6, 2}, gen),
                 d_o = random_tensor({6, 2}, gen);
    const auto g = attention_backward(q, k, v, d_o, o);
    for (std::size_t c = 0; c < 4; ++c) CHECK(g.dq(3, c) == 0.0f);
}

TEST_CASE("attention_backward with an explicit scale ignores the temperature", "[attention_backward]") {
    attention_options o;
    o.scale = 3.0;
    o.temperature = 5;
    o.causal = true;
    check_case({}, 5, 5, 2, 2, o, 3.0, [](std::size_t, std::size_t i, std::size_t j) { return j <= i; }, 5);
}

TEST_CASE("attention_backward names dOutput when its shape or values are wrong, and Q K V as attention does", "[attention_backward]") {
    const tensor q = attnlab::zeros({2, 3}), k = attnlab::zeros({4, 3}), v = attnlab::zeros({4, 5});
    CHECK_THROWS_MATCHES(attention_backward(q, k, v, attnlab::zeros({2, 4})), argument_error,
                         Message("attentionBackward: dOutput has shape [2, 4]; expected [2, 5], the shape of the "
                                 "output (Q's leading axes and rows, V's width)"));
    tensor bad = attnlab::zeros({2, 5});
    bad(1, 2) = NAN;
    CHECK_THROWS_MATCHES(attention_backward(q, k, v, bad), argument_error,
                         Message("attentionBackward: dOutput[1, 2] is NaN; expected finite numbers"));
    CHECK_THROWS_MATCHES(attention_backward(q, attnlab::zeros({4, 2}), v, attnlab::zeros({2, 5})), argument_error,
                         Message("attentionBackward: K has d_k = 2 but Q has d_k = 3"));
}

TEST_CASE("attention_backward refuses a call whose stages and gradients pass the memory limit", "[attention_backward]") {
    attention_options o;
    o.max_elements = 5 * 4 * 4 + 30;  // the five score-sized stages fit, the inputs and dOutput do not
    const tensor x = attnlab::zeros({4, 4});
    CHECK_THROWS_WITH(attention_backward(x, x, x, x, o), Catch::Contains("need more than the limit of 110 floats"));
    o.max_elements = 5 * 16 + 4 * 16;
    CHECK_NOTHROW(attention_backward(x, x, x, x, o));
}
