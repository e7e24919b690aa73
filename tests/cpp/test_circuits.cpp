// Composition and copying scores (circuits.cpp) against float64 references written from the
// definitions: the full d x d matrices W_QK and W_OV multiplied out, the full vocab x vocab
// OV circuit, and its eigenvalues checked through the traces of its powers.

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "attnlab/circuits.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/trainer.hpp"

using attnlab::trainer;
using attnlab::trainer_options;
using cd = std::complex<double>;
using mat = std::vector<double>;

namespace {

mat product(const mat& a, const mat& b, std::size_t n) {  // square n x n
    mat c(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t k = 0; k < n; ++k) c[i * n + j] += a[i * n + k] * b[k * n + j];
        }
    }
    return c;
}

mat transposed(const mat& a, std::size_t n) {
    mat t(n * n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) t[j * n + i] = a[i * n + j];
    }
    return t;
}

double frobenius(const mat& a) {
    double s = 0;
    for (double x : a) s += x * x;
    return std::sqrt(s);
}

double trace(const mat& a, std::size_t n) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += a[i * n + i];
    return s;
}

// The eigenvalues agree with a's spectrum when their k-th power sums are tr(a^k), k = 1..n
// (Newton's identities then fix the characteristic polynomial).
void check_power_sums(const mat& a, std::size_t n, const std::vector<cd>& lambda, std::size_t powers, double tolerance) {
    mat power = a;
    for (std::size_t k = 1; k <= powers; ++k) {
        cd sum = 0;
        double size = 0;
        for (const cd& l : lambda) {
            sum += std::pow(l, double(k));
            size += std::pow(std::abs(l), double(k));
        }
        INFO("power " << k);
        CHECK(std::abs(sum.real() - trace(power, n)) <= tolerance * size);
        CHECK(std::abs(sum.imag()) <= tolerance * size);
        power = product(power, a, n);
    }
}

// The full d x d matrix of a product of a [d, dh] and b^T ([dh, d]) or c ([dh, d]).
mat outer(const std::vector<float>& w, std::size_t stride, std::size_t c0, const std::vector<float>& w2, std::size_t stride2,
          std::size_t c2, bool second_is_rows, std::size_t d, std::size_t dh) {
    mat m(d * d, 0.0);
    for (std::size_t i = 0; i < d; ++i) {
        for (std::size_t j = 0; j < d; ++j) {
            for (std::size_t k = 0; k < dh; ++k) {
                const double right = second_is_rows ? w2[(c2 + k) * stride2 + j] : w2[j * stride2 + c2 + k];
                m[i * d + j] += double(w[i * stride + c0 + k]) * right;
            }
        }
    }
    return m;
}

}  // namespace

TEST_CASE("eigenvalues of a companion matrix are its polynomial's roots", "[circuits]") {
    // x^4 - 5x^3 + 17x^2 + 37x - 50 = (x - 1)(x + 2)(x^2 - 6x + 25): roots 1, -2, 3 + 4i, 3 - 4i
    const mat c = {5, -17, -37, 50, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    std::vector<cd> l = attnlab::eigenvalues(c, 4);
    REQUIRE(l.size() == 4);
    for (const cd& root : {cd(1, 0), cd(-2, 0), cd(3, 4), cd(3, -4)}) {
        double nearest = 1e9;
        for (const cd& x : l) nearest = std::min(nearest, std::abs(x - root));
        INFO("root " << root.real() << " + " << root.imag() << "i");
        CHECK(nearest < 1e-10);
    }
    CHECK(attnlab::eigenvalues({2.5}, 1) == std::vector<cd>{cd(2.5, 0)});
    for (const cd& x : attnlab::eigenvalues(mat(9, 0.0), 3)) CHECK(x == cd(0, 0));
}

TEST_CASE("eigenvalues of random non-symmetric matrices have the traces of the matrix's powers", "[circuits]") {
    std::mt19937 gen(7);
    std::normal_distribution<double> normal;
    for (std::size_t n : {2u, 5u, 9u, 16u, 40u}) {
        mat a(n * n);
        for (double& x : a) x = normal(gen);
        check_power_sums(a, n, attnlab::eigenvalues(a, n), std::min<std::size_t>(n, 12), 1e-9);
    }
}

TEST_CASE("composition and copying scores of a trained model match the definitions multiplied out", "[circuits]") {
    trainer_options o;
    o.model.vocab = 12;
    o.model.seq_len = 12;
    o.model.layers = 3;
    o.model.heads = 2;
    o.model.d_model = 16;
    o.batch = 16;
    trainer t(o);
    t.step(100);
    const auto& m = t.model();
    const std::size_t d = 16, dh = 8, H = 2, V = 12;
    const attnlab::circuit_scores s = attnlab::circuits(m, "Trainer.composition");
    // pairs in different layers: 2 x 4 from layer 0, 2 x 2 from layer 1
    REQUIRE(s.composition.size() == 12);
    REQUIRE(s.copying.size() == 6);

    const auto param = [&](const std::string& name) {
        for (const auto& p : m.parameters()) {
            if (p.name == name) return std::vector<float>(m.params() + p.offset, m.params() + p.offset + p.size);
        }
        FAIL("no parameter " << name);
        return std::vector<float>();
    };
    std::vector<mat> qk, ov;
    for (std::size_t l = 0; l < 3; ++l) {
        const auto qkv = param("layers." + std::to_string(l) + ".qkv"), out = param("layers." + std::to_string(l) + ".out");
        for (std::size_t h = 0; h < H; ++h) {
            qk.push_back(outer(qkv, 3 * d, h * dh, qkv, 3 * d, d + h * dh, false, d, dh));  // W_Q W_K^T
            ov.push_back(outer(qkv, 3 * d, 2 * d + h * dh, out, d, h * dh, true, d, dh));  // W_V W_O
        }
    }
    std::size_t at = 0;
    for (std::size_t a = 0; a < 6; ++a) {
        for (std::size_t b = (a / H + 1) * H; b < 6; ++b, ++at) {
            const auto& e = s.composition[at];
            INFO("heads " << a << " -> " << b);
            CHECK(e.from_layer == a / H);
            CHECK(e.from_head == a % H);
            CHECK(e.to_layer == b / H);
            CHECK(e.to_head == b % H);
            const double q = frobenius(product(ov[a], qk[b], d)) / (frobenius(ov[a]) * frobenius(qk[b]));
            const double k = frobenius(product(ov[a], transposed(qk[b], d), d)) / (frobenius(ov[a]) * frobenius(qk[b]));
            const double v = frobenius(product(ov[a], ov[b], d)) / (frobenius(ov[a]) * frobenius(ov[b]));
            CHECK(e.q == Approx(q).epsilon(1e-9));
            CHECK(e.k == Approx(k).epsilon(1e-9));
            CHECK(e.v == Approx(v).epsilon(1e-9));
            CHECK(e.q != Approx(e.k).epsilon(1e-6));  // the two sides of W_QK really differ
        }
    }

    // the full OV circuit W_E W_OV W_U, [vocab, vocab]
    const auto embed = param("tokenEmbedding"), unembed = param("unembedding");
    for (std::size_t a = 0; a < 6; ++a) {
        mat full(V * V, 0.0);
        for (std::size_t i = 0; i < V; ++i) {
            mat row(d, 0.0);  // E[i] W_OV
            for (std::size_t x = 0; x < d; ++x) {
                for (std::size_t y = 0; y < d; ++y) row[y] += double(embed[i * d + x]) * ov[a][x * d + y];
            }
            for (std::size_t j = 0; j < V; ++j) {
                for (std::size_t y = 0; y < d; ++y) full[i * V + j] += row[y] * double(unembed[y * V + j]);
            }
        }
        const auto& c = s.copying[a];
        INFO("head " << a);
        CHECK(c.layer == a / H);
        CHECK(c.head == a % H);
        REQUIRE(c.eigenvalues.size() == dh);
        // vocab 12 > d_head 8: the full circuit's other eigenvalues are 0, so its power sums are these
        check_power_sums(full, V, c.eigenvalues, dh, 1e-8);
        double size = 0;
        for (const cd& l : c.eigenvalues) size += std::abs(l);
        CHECK(c.score == Approx(trace(full, V) / size).epsilon(1e-9));
        CHECK(std::abs(c.score) <= 1.0);
    }
}

TEST_CASE("a model too large to score in a few seconds is refused by name before any work", "[circuits]") {
    attnlab::transformer_config c;
    c.vocab = 8192;
    c.d_model = 512;
    c.heads = 1;
    c.layers = 2;
    c.seq_len = 2;
    // W_U W_E alone is 512^2 x 8192 = 2147 million multiply-adds
    CHECK(attnlab::circuit_work(c) > 2147e6);
    const attnlab::transformer m(c, 1, "test");
    CHECK_THROWS_MATCHES(attnlab::circuits(m, "Model.composition"), attnlab::argument_error,
                         Catch::Matchers::Message("Model.composition: this model's composition and copying scores need about 7650 "
                                                  "million multiply-adds (dModel = 512, d_head = 512, 2 heads, vocab = 8192); "
                                                  "expected at most 1000 million: a model with a smaller dModel, d_head or vocab"));
    // the count, against a hand count for the default trainer: 4 heads of d_head 16 in d_model 32, vocab 32
    attnlab::transformer_config small;
    const double heads = 4 * (4 * 32 * 256 + 16 * 1024 + 256 * 32 + 10 * 4096), pairs = 4 * 3 * (256 * 32 + 2 * 4096);
    CHECK(attnlab::circuit_work(small) == heads + pairs + 1024 * 32);
}
