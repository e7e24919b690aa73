// Each stage's backward (cpp/src/grad.cpp) against central differences of a float64 reference.
//
// Tolerances: the engine works in float32 (unit roundoff 6e-8) and its gradients go through a
// few sums of up to 64 products, so each carries an error of about 1e-6 of the largest term;
// the float64 central differences (h = 1e-6) are exact to about 1e-9. A gradient passes when
// |engine - reference| <= 1e-3 |reference| + 1e-5 max|reference|: PyTorch's gradcheck rtol
// (1e-3), and an absolute part scaled to the gradient's size (its atol of 1e-5 assumes
// gradients of order 1). Every test prints nothing on success and the worst entry on failure.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attnlab/grad.hpp"
#include "train_reference.hpp"

namespace g = attnlab::grad;

namespace {

std::vector<float> to_float(const ref::vec& x) { return std::vector<float>(x.begin(), x.end()); }

ref::vec random_vec(std::size_t n, std::mt19937& gen, double lo = -1, double hi = 1) {
    std::uniform_real_distribution<double> u(lo, hi);
    ref::vec x(n);
    // rounded to float32 first, so the engine and the reference see the same numbers
    for (double& e : x) e = static_cast<float>(u(gen));
    return x;
}

// The worst |engine - reference| relative to the tolerance; passes when <= 1.
void require_close(const float* engine, const ref::vec& reference, const char* what) {
    double largest = 0;
    for (double r : reference) largest = std::max(largest, std::abs(r));
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double tol = 1e-3 * std::abs(reference[i]) + 1e-5 * largest;
        const double ratio = std::abs(engine[i] - reference[i]) / std::max(tol, 1e-300);
        if (ratio > worst) {
            worst = ratio;
            at = i;
        }
    }
    INFO(what << ": worst entry " << at << ": engine " << engine[at] << ", reference " << reference[at]
              << " (largest |reference| " << largest << ")");
    REQUIRE(worst <= 1.0);
}

double dot(const ref::vec& a, const ref::vec& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

TEST_CASE("linear_backward gives dx, dw and db of sum(dy * y) as float64 central differences do", "[grad]") {
    std::mt19937 gen(11);
    const std::size_t rows = 13, in = 9, out = 21;  // widths that are not multiples of the 8-column panels
    ref::vec x = random_vec(rows * in, gen), w = random_vec(in * out, gen), b = random_vec(out, gen);
    const ref::vec dy = random_vec(rows * out, gen);
    const auto loss = [&] { return dot(dy, ref::linear(x, w, b, rows, in, out)); };
    const ref::vec gx = ref::central_differences(x, loss), gw = ref::central_differences(w, loss),
                   gb = ref::central_differences(b, loss);
    const auto xf = to_float(x), wf = to_float(w), bf = to_float(b), dyf = to_float(dy);
    std::vector<float> y(rows * out), dx(rows * in), dw(in * out), db(out), scratch(g::linear_scratch(rows, in, out));
    g::linear(xf.data(), wf.data(), bf.data(), y.data(), rows, in, out, scratch.data());
    require_close(y.data(), ref::linear(x, w, b, rows, in, out), "y");
    g::linear_backward(xf.data(), wf.data(), dyf.data(), dx.data(), dw.data(), db.data(), rows, in, out, scratch.data());
    require_close(dx.data(), gx, "dx");
    require_close(dw.data(), gw, "dw");
    require_close(db.data(), gb, "db");
}

TEST_CASE("causal_attention matches a float64 causal head and its backward matches central differences", "[grad]") {
    std::mt19937 gen(5);
    const std::size_t n = 11, d = 6, dv = 5;
    const double scale = 0.37;
    ref::vec q = random_vec(n * d, gen, -2, 2), k = random_vec(n * d, gen, -2, 2), v = random_vec(n * dv, gen);
    const ref::vec d_o = random_vec(n * dv, gen);
    const auto causal = [](std::size_t i, std::size_t j) { return j <= i; };
    const auto loss = [&] { return dot(d_o, ref::attention(q, k, v, n, n, d, dv, scale, causal)); };
    const auto qf = to_float(q), kf = to_float(k), vf = to_float(v), dof = to_float(d_o);
    std::vector<float> p(n * n), o(n * dv), scratch(g::attention_scratch(n, n, d, dv));
    g::causal_attention(qf.data(), kf.data(), vf.data(), p.data(), o.data(), n, d, dv, float(scale), scratch.data());
    require_close(o.data(), ref::attention(q, k, v, n, n, d, dv, scale, causal), "output");
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) REQUIRE(p[i * n + j] == 0.0f);
    }
    std::vector<float> dq(n * d), dk(n * d), dvv(n * dv), ds(n * n);
    g::attention_backward(p.data(), qf.data(), kf.data(), vf.data(), o.data(), dof.data(), n, n, d, dv, float(scale),
                          dq.data(), dk.data(), dvv.data(), ds.data(), scratch.data());
    require_close(dq.data(), ref::central_differences(q, loss), "dQ");
    require_close(dk.data(), ref::central_differences(k, loss), "dK");
    require_close(dvv.data(), ref::central_differences(v, loss), "dV");
    for (std::size_t i = 0; i < n; ++i) {
        double row = 0, largest = 0;
        for (std::size_t j = 0; j < n; ++j) {
            row += ds[i * n + j];
            largest = std::max(largest, double(std::abs(ds[i * n + j])));
            if (j > i) REQUIRE(ds[i * n + j] == 0.0f);  // masked: exactly 0
        }
        REQUIRE(std::abs(row) <= 1e-5 * std::max(largest, 1e-30) * double(n));
    }
}

TEST_CASE("layer_norm_backward gives dx, dgain and dbias as float64 central differences do", "[grad]") {
    std::mt19937 gen(3);
    const std::size_t rows = 5, d = 12;
    ref::vec x = random_vec(rows * d, gen, -3, 3), gain = random_vec(d, gen, 0.5, 1.5), bias = random_vec(d, gen);
    const ref::vec dy = random_vec(rows * d, gen);
    const auto loss = [&] { return dot(dy, ref::layer_norm(x, gain, bias, rows, d)); };
    const auto xf = to_float(x), gf = to_float(gain), bf = to_float(bias), dyf = to_float(dy);
    std::vector<float> y(rows * d), stats(2 * rows), dx(rows * d), dg(d), db(d);
    g::layer_norm(xf.data(), gf.data(), bf.data(), y.data(), stats.data(), rows, d);
    require_close(y.data(), ref::layer_norm(x, gain, bias, rows, d), "y");
    g::layer_norm_backward(xf.data(), gf.data(), stats.data(), dyf.data(), dx.data(), dg.data(), db.data(), rows, d);
    require_close(dx.data(), ref::central_differences(x, loss), "dx");
    require_close(dg.data(), ref::central_differences(gain, loss), "dgain");
    require_close(db.data(), ref::central_differences(bias, loss), "dbias");
}

TEST_CASE("the GELU and ReLU backward give f'(x) dy as float64 central differences do", "[grad]") {
    std::mt19937 gen(9);
    // ReLU's kink at 0 has no derivative: keep inputs away from it
    ref::vec x = random_vec(40, gen, -4, 4);
    for (double& e : x) e = std::abs(e) < 0.01 ? 0.5 : e;
    const ref::vec dy = random_vec(40, gen);
    for (const bool gelu : {false, true}) {
        const auto f = gelu ? g::activation::gelu : g::activation::relu;
        const auto loss = [&] {
            double s = 0;
            for (std::size_t i = 0; i < x.size(); ++i) s += dy[i] * ref::activate(gelu, x[i]);
            return s;
        };
        const auto xf = to_float(x), dyf = to_float(dy);
        std::vector<float> y(x.size()), dx(x.size());
        g::activate(f, xf.data(), y.data(), x.size());
        ref::vec expected(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) expected[i] = ref::activate(gelu, x[i]);
        require_close(y.data(), expected, gelu ? "gelu" : "relu");
        g::activate_backward(f, xf.data(), dyf.data(), dx.data(), x.size());
        require_close(dx.data(), ref::central_differences(x, loss), gelu ? "d gelu" : "d relu");
    }
}

TEST_CASE("softmax_cross_entropy scores only the marked rows and its gradient is central differences'", "[grad]") {
    std::mt19937 gen(21);
    const std::size_t rows = 6, vocab = 9;
    ref::vec logits = random_vec(rows * vocab, gen, -5, 5);
    logits[2 * vocab + 4] = 60;  // large logits cannot overflow the log-sum-exp
    const std::int32_t targets[rows] = {3, 0, 4, 8, 1, 1};
    const std::uint8_t scored[rows] = {1, 0, 1, 1, 0, 1};
    const float grad_scale = 0.25f;
    const auto loss = [&] { return grad_scale * ref::cross_entropy(logits, targets, scored, rows, vocab); };
    const auto lf = to_float(logits);
    std::vector<float> dl(rows * vocab, 123.0f);
    const g::cross_entropy_totals t = g::softmax_cross_entropy(lf.data(), targets, scored, rows, vocab, grad_scale, dl.data());
    CHECK(t.scored == 4);
    CHECK(t.loss == Approx(ref::cross_entropy(logits, targets, scored, rows, vocab)).epsilon(1e-6));
    require_close(dl.data(), ref::central_differences(logits, loss), "dlogits");
    for (std::size_t c = 0; c < vocab; ++c) REQUIRE(dl[1 * vocab + c] == 0.0f);  // an unscored row: 0
    // row 2's largest logit is its target: counted correct
    std::size_t correct = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        if (!scored[r]) continue;
        const auto row = logits.begin() + std::ptrdiff_t(r * vocab);
        correct += std::size_t(std::max_element(row, row + std::ptrdiff_t(vocab)) - row) == std::size_t(targets[r]);
    }
    CHECK(t.correct == correct);
}
