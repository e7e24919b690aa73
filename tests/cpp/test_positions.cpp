// Position schemes (positions.hpp) against float64 references written here from the papers:
// the sinusoid of Vaswani et al. (section 3.5), RoPE's rotation (Su et al.) in both pair
// layouts, ALiBi's slopes as Press et al.'s code computes them; attention and the KV cache with
// them; loss by position past the training length.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/grad.hpp"
#include "attnlab/kv_cache.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/trainer.hpp"
#include "train_reference.hpp"

using namespace attnlab;
using Catch::Matchers::Message;

namespace {

// ALiBi's slopes as the paper's code gets them: a power of two n gives start, start^2, ...
// with start = 2^(-2^-(log2 n - 3)); otherwise the slopes of the closest power of two below,
// then every other slope of twice that, as many as are missing.
std::vector<double> paper_slopes(std::size_t n) {
    const auto power_of_2 = [](std::size_t h) {
        const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(h)) - 3)));
        std::vector<double> out;
        for (std::size_t i = 0; i < h; ++i) out.push_back(start * std::pow(start, double(i)));
        return out;
    };
    if (std::log2(double(n)) == std::floor(std::log2(double(n)))) return power_of_2(n);
    const std::size_t closest = std::size_t(1) << std::size_t(std::floor(std::log2(double(n))));
    std::vector<double> out = power_of_2(closest);
    const std::vector<double> more = paper_slopes(2 * closest);
    for (std::size_t i = 0; out.size() < n; i += 2) out.push_back(more[i]);
    return out;
}

tensor random_tensor(const shape_t& shape, std::mt19937& gen) {
    std::normal_distribution<float> u(0.0f, 1.0f);
    tensor t = empty(shape);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = u(gen);
    return t;
}

// x [d] turned to position p (float64), in a layout: interleaved pairs (2i, 2i+1), half (i, i+d/2).
std::vector<double> turned(const float* x, std::size_t d, double p, double base, bool half) {
    std::vector<double> y(x, x + d);
    for (std::size_t i = 0; i < d / 2; ++i) {
        const double angle = p / std::pow(base, 2.0 * double(i) / double(d));
        const std::size_t a = half ? i : 2 * i, b = half ? i + d / 2 : 2 * i + 1;
        y[a] = x[a] * std::cos(angle) - x[b] * std::sin(angle);
        y[b] = x[a] * std::sin(angle) + x[b] * std::cos(angle);
    }
    return y;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

TEST_CASE("the sinusoidal table is Vaswani et al.'s to float32 rounding, even and odd widths", "[positions]") {
    for (const auto& [n, d, base] : {std::tuple<std::size_t, std::size_t, double>{300, 16, 10000.0}, {70, 7, 100.0}, {5, 1, 2.0}}) {
        const tensor t = sinusoidal_table(n, d, base);
        REQUIRE(shape_of(t) == shape_t{n, d});
        double worst = 0;
        for (std::size_t p = 0; p < n; ++p) {
            for (std::size_t k = 0; k < d; ++k) {
                const double angle = double(p) / std::pow(base, double(2 * (k / 2)) / double(d));
                const double want = k % 2 == 0 ? std::sin(angle) : std::cos(angle);
                worst = std::max(worst, std::abs(double(t.data()[p * d + k]) - want));
            }
        }
        INFO("n = " << n << ", d = " << d);
        CHECK(worst <= 1.2e-7);  // one float32 rounding of numbers up to 1 (half an ulp: 6e-8), twice
    }
    // PE(i) . PE(j) depends on i - j only
    const tensor t = sinusoidal_table(200, 32, 10000);
    const auto pe_dot = [&](std::size_t i, std::size_t j) {
        double s = 0;
        for (std::size_t k = 0; k < 32; ++k) s += double(t.data()[i * 32 + k]) * t.data()[j * 32 + k];
        return s;
    };
    CHECK(pe_dot(3, 1) == Approx(pe_dot(150, 148)).margin(1e-5));
    CHECK(pe_dot(10, 40) == Approx(pe_dot(100, 130)).margin(1e-5));
}

TEST_CASE("ALiBi's slopes are the paper's: 1/2 ... 1/256 for 8 heads, its interpolation otherwise", "[positions]") {
    const std::vector<float> eight = alibi_slopes(8);
    const std::vector<float> want = {1.0f / 2, 1.0f / 4, 1.0f / 8, 1.0f / 16, 1.0f / 32, 1.0f / 64, 1.0f / 128, 1.0f / 256};
    CHECK(eight == want);
    // 6 heads: 4's slopes (1/4, 1/16, 1/64, 1/256), then 8's first and third (1/2, 1/8)
    CHECK(alibi_slopes(6) == std::vector<float>{1.0f / 4, 1.0f / 16, 1.0f / 64, 1.0f / 256, 1.0f / 2, 1.0f / 8});
    for (std::size_t h : {1, 2, 3, 5, 7, 12, 16, 24, 100, 1024}) {
        const std::vector<float> got = alibi_slopes(h);
        const std::vector<double> ref = paper_slopes(h);
        REQUIRE(got.size() == h);
        for (std::size_t i = 0; i < h; ++i) CHECK(got[i] == Approx(ref[i]).epsilon(1.2e-7));  // the paper's, rounded once
    }
    CHECK_THROWS_MATCHES(alibi_slopes(0, "positions", "heads"), argument_error,
                         Message("positions: heads = 0; ALiBi's slopes are defined here for 1 to 1024 heads; expected a head count in that range"));
    CHECK_THROWS_WITH(alibi_slopes(1025), Catch::StartsWith("positions: heads = 1025; "));
}

TEST_CASE("RoPE in attention turns Q and K to their positions in either layout (float64 reference)", "[positions]") {
    std::mt19937 gen(3);
    const std::size_t m = 3, n = 7, d = 8;
    const tensor q = random_tensor({m, d}, gen), k = random_tensor({n, d}, gen), v = random_tensor({n, 4}, gen);
    for (bool half : {false, true}) {
        attention_options o;
        o.positions.rope = rope_options{half ? rope_layout::half : rope_layout::interleaved, 500.0, 40};
        const attention_result r = attention(q, k, v, o);
        double worst = 0, largest = 0;
        for (std::size_t i = 0; i < m; ++i) {
            // the last query sits at the last key's position: 40 + (n - m) + i
            const std::vector<double> qi = turned(q.data() + i * d, d, 40.0 + double(n - m + i), 500.0, half);
            for (std::size_t j = 0; j < n; ++j) {
                const double want = dot(qi, turned(k.data() + j * d, d, 40.0 + double(j), 500.0, half));
                worst = std::max(worst, std::abs(r.scores.data()[i * n + j] - want));
                largest = std::max(largest, std::abs(want));
            }
        }
        INFO((half ? "half" : "interleaved"));
        CHECK(worst <= 1e-5 * std::max(largest, 1.0));
    }
    // The layouts are the same maths up to a permutation of the dimensions: half on x equals
    // interleaved on x with dimensions (i, i + d/2) moved to (2i, 2i + 1); unpermuted, they differ.
    tensor qp = empty({m, d}), kp = empty({n, d});
    for (std::size_t r = 0; r < m; ++r) {
        for (std::size_t i = 0; i < d / 2; ++i) {
            qp.data()[r * d + 2 * i] = q.data()[r * d + i];
            qp.data()[r * d + 2 * i + 1] = q.data()[r * d + i + d / 2];
        }
    }
    for (std::size_t r = 0; r < n; ++r) {
        for (std::size_t i = 0; i < d / 2; ++i) {
            kp.data()[r * d + 2 * i] = k.data()[r * d + i];
            kp.data()[r * d + 2 * i + 1] = k.data()[r * d + i + d / 2];
        }
    }
    attention_options half, inter;
    half.positions.rope = rope_options{rope_layout::half, 10000, 0};
    inter.positions.rope = rope_options{rope_layout::interleaved, 10000, 0};
    const attention_result a = attention(q, k, v, half), b = attention(qp, kp, v, inter), c = attention(q, k, v, inter);
    double same = 0, apart = 0;
    for (std::size_t i = 0; i < m * n; ++i) {
        same = std::max(same, double(std::abs(a.scores.data()[i] - b.scores.data()[i])));
        apart = std::max(apart, double(std::abs(a.scores.data()[i] - c.scores.data()[i])));
    }
    CHECK(same <= 1e-5);
    CHECK(apart > 0.1);  // the mix-up: same weights, other numbers
}

TEST_CASE("RoPE's score depends only on i - j: shifting both positions keeps it to float32 precision", "[positions]") {
    std::mt19937 gen(11);
    const std::size_t n = 9, d = 64;
    const tensor q = random_tensor({1, d}, gen), k = random_tensor({n, d}, gen), v = random_tensor({n, 2}, gen);
    // |q| |k| bounds every score; float32 keeps about 2^-24 of it per operation
    double bound = 0;
    for (std::size_t j = 0; j < n; ++j) {
        double qq = 0, kk = 0;
        for (std::size_t c = 0; c < d; ++c) qq += q.data()[c] * q.data()[c], kk += k.data()[j * d + c] * k.data()[j * d + c];
        bound = std::max(bound, std::sqrt(qq * kk));
    }
    for (bool half : {false, true}) {
        attention_options o;
        o.positions.rope = rope_options{half ? rope_layout::half : rope_layout::interleaved, 10000, 0};
        const attention_result at0 = attention(q, k, v, o);
        for (double shift : {1.0, 37.0, 1000.0, 100000.0, 16777216.0 - 10}) {
            o.positions.rope->offset = shift;
            const attention_result moved = attention(q, k, v, o);
            double worst = 0;
            for (std::size_t j = 0; j < n; ++j) worst = std::max(worst, double(std::abs(moved.scores.data()[j] - at0.scores.data()[j])));
            INFO((half ? "half" : "interleaved") << ", shift " << shift << ": worst " << worst << " of |q||k| = " << bound);
            CHECK(worst <= 8 * double(d) * 6e-8 * bound);
        }
    }
    // (3, 1) and (10, 8): one query over keys at offset and offset + 2
    attention_options o;
    o.positions.rope = rope_options{};
    const tensor kk = random_tensor({3, d}, gen), vv = random_tensor({3, 2}, gen);
    o.positions.rope->offset = 1;
    const float s31 = attention(q, kk, vv, o).scores.data()[0];  // query at 3, first key at 1
    o.positions.rope->offset = 8;
    const float s108 = attention(q, kk, vv, o).scores.data()[0];
    CHECK(s31 == Approx(s108).margin(8 * double(d) * 6e-8 * 20));
}

TEST_CASE("ALiBi in attention: each head's scaled scores less its slope times the distance", "[positions]") {
    std::mt19937 gen(7);
    const std::size_t H = 4, n = 6, d = 5;
    const tensor q = random_tensor({2, H, n, d}, gen), k = random_tensor({2, H, n, d}, gen), v = random_tensor({2, H, n, 3}, gen);
    attention_options o;
    o.causal = true;
    o.positions.alibi = true;
    const attention_result r = attention(q, k, v, o);
    const double slopes[] = {1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256};
    for (std::size_t b = 0; b < 2 * H; ++b) {
        const double m = slopes[b % H], scale = 1 / std::sqrt(double(d));
        const ref::vec qv(q.data() + b * n * d, q.data() + (b + 1) * n * d), kv(k.data() + b * n * d, k.data() + (b + 1) * n * d);
        const ref::vec vv(v.data() + b * n * 3, v.data() + (b + 1) * n * 3);
        const ref::vec out = ref::attention(qv, kv, vv, n, n, d, 3, scale, [](std::size_t i, std::size_t j) { return j <= i; },
                                            [m](std::size_t i, std::size_t j) { return -m * double(i - j); });
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j <= i; ++j) {
                double s = 0;
                for (std::size_t c = 0; c < d; ++c) s += double(qv[i * d + c]) * kv[j * d + c];
                CHECK(r.scaled.data()[b * n * n + i * n + j] == Approx(s * scale - m * double(i - j)).margin(1e-5));
            }
            for (std::size_t c = 0; c < 3; ++c) CHECK(r.output.data()[(b * n + i) * 3 + c] == Approx(out[i * 3 + c]).margin(1e-5));
        }
    }
    // the trainer's causal head takes the same bias
    const std::size_t dd = 4;
    std::vector<float> p(n * n), out(n * 3), scratch(grad::attention_scratch(n, n, dd, 3));
    const tensor q1 = random_tensor({n, dd}, gen), k1 = random_tensor({n, dd}, gen), v1 = random_tensor({n, 3}, gen);
    grad::causal_attention(q1.data(), k1.data(), v1.data(), p.data(), out.data(), n, dd, 3, 0.5f, scratch.data(), 0.25f);
    const ref::vec want = ref::attention(ref::vec(q1.data(), q1.data() + n * dd), ref::vec(k1.data(), k1.data() + n * dd),
                                         ref::vec(v1.data(), v1.data() + n * 3), n, n, dd, 3, 0.5,
                                         [](std::size_t i, std::size_t j) { return j <= i; },
                                         [](std::size_t i, std::size_t j) { return -0.25 * double(i - j); });
    for (std::size_t i = 0; i < n * 3; ++i) CHECK(out[i] == Approx(want[i]).margin(1e-5));
}

TEST_CASE("the KV cache decodes with RoPE and ALiBi as causal attention computes every row", "[positions][kv_cache]") {
    std::mt19937 gen(5);
    const std::size_t H = 4, n = 7, d = 6;
    const tensor q = random_tensor({H, n, d}, gen), k = random_tensor({H, n, d}, gen), v = random_tensor({H, n, d}, gen);
    for (bool half : {false, true}) {
        position_options pos;
        pos.rope = rope_options{half ? rope_layout::half : rope_layout::interleaved, 10000, 250};
        pos.alibi = true;
        attention_options o;
        o.causal = true;
        o.positions = pos;
        const attention_result full = attention(q, k, v, o);
        kv_cache cache{double(H), double(H), double(d), double(n), std::nullopt, "createKVCache", pos};
        for (std::size_t t = 0; t < n; ++t) {
            tensor kt = empty({H, d}), vt = empty({H, d}), qt = empty({H, d});
            for (std::size_t h = 0; h < H; ++h) {
                for (std::size_t c = 0; c < d; ++c) {
                    kt.data()[h * d + c] = k.data()[(h * n + t) * d + c];
                    vt.data()[h * d + c] = v.data()[(h * n + t) * d + c];
                    qt.data()[h * d + c] = q.data()[(h * n + t) * d + c];
                }
            }
            cache.append(kt, vt);
            const kv_step s = cache.attend(qt);
            for (std::size_t h = 0; h < H; ++h) {
                for (std::size_t j = 0; j <= t; ++j) {
                    CHECK(s.weights.data()[h * (t + 1) + j] == Approx(full.weights.data()[(h * n + t) * n + j]).margin(1e-6));
                }
                for (std::size_t c = 0; c < d; ++c) {
                    CHECK(s.output.data()[h * d + c] == Approx(full.output.data()[(h * n + t) * d + c]).margin(1e-5));
                }
            }
        }
    }
}

TEST_CASE("bad position options are refused by name", "[positions]") {
    std::mt19937 gen(1);
    const tensor q = random_tensor({2, 5}, gen), k = random_tensor({3, 5}, gen), v = random_tensor({3, 2}, gen);
    attention_options o;
    o.positions.rope = rope_options{};
    CHECK_THROWS_MATCHES(attention(q, k, v, o), argument_error,
                         Message("attention: rope needs an even d_k (it turns pairs of dimensions); Q has d_k = 5"));
    const tensor q4 = random_tensor({5, 4}, gen), k4 = random_tensor({3, 4}, gen);
    for (double base : {0.0, -2.0, double(NAN), double(INFINITY)}) {
        o.positions.rope->base = base;
        CHECK_THROWS_WITH(attention(q4, k4, v, o), Catch::StartsWith("attention: rope.base = ") &&
                                                        Catch::EndsWith("; expected a finite number > 0 (the papers use 10000, Llama 3 500000)"));
    }
    o.positions.rope->base = 10000;
    o.positions.rope->offset = 1.5;
    CHECK_THROWS_WITH(attention(q4, k4, v, o), Catch::StartsWith("attention: rope.offset = 1.5; expected a whole number from 0 to 2^24 - 1"));
    o.positions.rope->offset = 16777215;
    CHECK_THROWS_WITH(attention(q4, k4, v, o), "attention: positions 16777215 to 16777217 pass the last position, 2^24 - 1 = 16777215; "
                                               "expected fewer tokens or a smaller offset");
    o.positions.rope->offset = 1;  // 5 queries end at the last of 3 keys: the first at -1
    CHECK_THROWS_WITH(attention(q4, k4, v, o), Catch::StartsWith("attention: rope.offset = 1 puts the first of 5 queries at position -1"));
    o.positions.rope->offset = 2;
    CHECK_NOTHROW(attention(q4, k4, v, o));
    CHECK_THROWS_WITH(sinusoidal_table(0, 4, 10000), "positions: n = 0; expected a whole number of positions >= 1");
    CHECK_THROWS_WITH(rope_angles(4, 5, 10000, 0), "positions: d = 5 is odd; expected an even number of dimensions (RoPE turns them in pairs)");
    CHECK_THROWS_WITH(kv_cache(2, 2, 3, 8, std::nullopt, "createKVCache", position_options{rope_options{}, false}),
                      "createKVCache: rope needs an even dHead (it turns pairs of dimensions); got dHead = 3");
    CHECK_THROWS_WITH(kv_cache(2000, 2000, 2, 8, std::nullopt, "createKVCache", position_options{std::nullopt, true}),
                      Catch::StartsWith("createKVCache: heads (ALiBi's slopes, one per head) = 2000; "));
    // the module is usable after: the same call with good options runs
    o.positions.rope->offset = 0;
    CHECK_NOTHROW(attention(q4, q4, random_tensor({5, 2}, gen), o));
}

TEST_CASE("rope_angles are (offset + p) theta_i", "[positions]") {
    const tensor a = rope_angles(5, 8, 10000, 3);
    REQUIRE(shape_of(a) == shape_t{5, 4});
    for (std::size_t p = 0; p < 5; ++p) {
        for (std::size_t i = 0; i < 4; ++i) {
            CHECK(a.data()[p * 4 + i] == Approx((3.0 + double(p)) * std::pow(10000.0, -2.0 * double(i) / 8)).epsilon(1e-7));
        }
    }
}

TEST_CASE("loss by position reads past the training length, except with a learned table", "[positions][trainer]") {
    // The text task with a stream exactly length + 1 tokens long: every example is the whole
    // stream, so the reference model can read the same tokens.
    const std::size_t length = 12;
    std::mt19937 gen(9);
    for (position_kind kind : {position_kind::learned, position_kind::sinusoidal, position_kind::rope, position_kind::alibi,
                               position_kind::none}) {
        trainer_options o;
        o.model = transformer_config{11, 6, 2, 2, 8};  // vocab, seqLen, layers, heads, dModel
        o.model.positions = kind;
        o.task.kind = task_kind::text;
        for (std::size_t i = 0; i <= length; ++i) o.task.stream.push_back(std::int32_t(gen() % 11));
        o.batch = 4;
        trainer t(o);
        t.step(3);
        INFO("positions = " << position_kind_name(kind));
        if (kind == position_kind::learned) {
            CHECK_THROWS_MATCHES(t.loss_by_position(length, 2), argument_error,
                                 Message("Trainer.lossByPosition: length = 12 is past the learned position table, which has "
                                         "vectors for 6 positions (seqLen): a learned table knows nothing of position 6 and "
                                         "beyond; expected a length up to 6, or a model trained with positions 'sinusoidal', "
                                         "'rope', 'alibi' or 'none'"));
            continue;
        }
        CHECK_THROWS_WITH(t.loss_by_position(length + 1, 3), "Trainer.lossByPosition: length = 13 needs windows of 14 tokens, "
                                                             "and text has 13; expected a length up to 12");
        const position_loss got = t.loss_by_position(length, 3);
        REQUIRE(got.loss.size() == length);
        ref::model m{o.model, {}};
        for (const auto& p : t.model().parameters()) {
            m.p[p.name] = ref::vec(t.model().params() + p.offset, t.model().params() + p.offset + p.size);
        }
        std::vector<std::int32_t> tokens(o.task.stream.begin(), o.task.stream.end() - 1), targets(o.task.stream.begin() + 1, o.task.stream.end());
        double mean = 0;
        for (std::size_t p = 0; p < length; ++p) {
            std::vector<std::uint8_t> only(length, 0);
            only[p] = 1;
            const double want = m.loss(tokens.data(), targets.data(), only.data(), 1, length);
            CHECK(got.scored[p] == 3);
            CHECK(got.loss[p] == Approx(want).epsilon(1e-4));
            mean += want / double(length);
        }
        CHECK(got.mean == Approx(mean).epsilon(1e-4));
    }
    trainer_options o;
    o.model.positions = position_kind::rope;
    trainer t(o);
    CHECK_THROWS_WITH(t.loss_by_position(1, 4), "Trainer.lossByPosition: length = 1; expected a whole number from 2 to 1024");
    CHECK_THROWS_WITH(t.loss_by_position(1025, 4), "Trainer.lossByPosition: length = 1025; expected a whole number from 2 to 1024");
    CHECK_THROWS_WITH(t.loss_by_position(64, 0), "Trainer.lossByPosition: examples = 0; expected a whole number from 1 to 1024");
    const position_loss ok = t.loss_by_position(128, 4);  // the induction task at 4x its length
    trainer_options deep;
    deep.model = transformer_config{32, 32, 8, 16, 64};
    deep.model.positions = position_kind::alibi;
    trainer big(deep);
    CHECK_THROWS_WITH(big.loss_by_position(1024, 1), "Trainer.lossByPosition: length = 1024 needs layers x heads x length^2 = "
                                                     "134217728 attention weights for one sequence, more than 33554432; "
                                                     "expected a shorter length");
    CHECK(ok.loss.size() == 128);
    CHECK(std::isfinite(ok.mean));
}

TEST_CASE("rope_rotate turns each matrix's rows to their positions in either layout (float64 reference)", "[positions]") {
    std::mt19937 gen(23);
    const std::size_t B = 2, n = 5, d = 6;
    const tensor x = random_tensor({B, n, d}, gen);
    for (bool half : {false, true}) {
        for (double offset : {0.0, 3.0, 1000.0}) {
            const rope_options o{half ? rope_layout::half : rope_layout::interleaved, 500.0, offset};
            const tensor y = rope_rotate(x, o);
            REQUIRE(y.shape() == x.shape());
            for (std::size_t b = 0; b < B; ++b) {
                for (std::size_t p = 0; p < n; ++p) {
                    const std::vector<double> want = turned(x.data() + (b * n + p) * d, d, offset + double(p), 500.0, half);
                    for (std::size_t c = 0; c < d; ++c) CHECK(y.data()[(b * n + p) * d + c] == Approx(want[c]).margin(1e-6));
                }
            }
        }
    }
    // what attention turns: the scores of rope_rotate's Q and K equal attention's with rope
    const tensor q = random_tensor({3, 8}, gen), k = random_tensor({3, 8}, gen), v = random_tensor({3, 2}, gen);
    attention_options with;
    with.positions.rope = rope_options{rope_layout::half, 10000, 4};
    with.scale = 1;
    attention_options plain;
    plain.scale = 1;
    const tensor s_rope = attention(q, k, v, with).scores;
    const tensor s_turned = attention(rope_rotate(q, *with.positions.rope), rope_rotate(k, *with.positions.rope), v, plain).scores;
    for (std::size_t i = 0; i < s_rope.size(); ++i) CHECK(s_turned.data()[i] == Approx(s_rope.data()[i]).margin(1e-5));
}

TEST_CASE("rope_rotate: a query and a key turned in different layouts lose the relative property", "[positions]") {
    std::mt19937 gen(5);
    const std::size_t d = 8;
    const tensor q = random_tensor({1, d}, gen), k = random_tensor({1, d}, gen);
    const auto score = [&](double m, double n, rope_layout lq, rope_layout lk) {
        const tensor a = rope_rotate(q, rope_options{lq, 10000, m}), b = rope_rotate(k, rope_options{lk, 10000, n});
        double s = 0;
        for (std::size_t c = 0; c < d; ++c) s += double(a.data()[c]) * double(b.data()[c]);
        return s;
    };
    const rope_layout I = rope_layout::interleaved, H = rope_layout::half;
    CHECK(score(3, 1, I, I) == Approx(score(10, 8, I, I)).margin(1e-5));
    CHECK(score(3, 1, H, H) == Approx(score(10, 8, H, H)).margin(1e-5));
    CHECK(std::abs(score(3, 1, H, I) - score(10, 8, H, I)) > 1e-2);
}

TEST_CASE("rope_rotate refuses bad input by name", "[positions]") {
    std::mt19937 gen(2);
    CHECK_THROWS_WITH(rope_rotate(random_tensor({4}, gen), rope_options{}),
                      "rope: X has 1 axis; expected [..., n, d]: rows of vectors, row p turned to position offset + p");
    CHECK_THROWS_WITH(rope_rotate(random_tensor({2, 3}, gen), rope_options{}),
                      "rope: X has d = 3; expected an even number of dimensions (RoPE turns them in pairs)");
    CHECK_THROWS_WITH(rope_rotate(random_tensor({2, 4}, gen), rope_options{rope_layout::interleaved, 0, 0}),
                      Catch::StartsWith("rope: base = 0; expected a finite number > 0"));
    CHECK_THROWS_WITH(rope_rotate(random_tensor({2, 4}, gen), rope_options{rope_layout::interleaved, 10000, 16777215}),
                      Catch::StartsWith("rope: positions 16777215 to 16777216 pass the last position"));
}
