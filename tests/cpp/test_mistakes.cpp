#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/examples.hpp"
#include "attnlab/mistakes.hpp"
#include "reference.hpp"

using attnlab::tensor;

namespace {

tensor matrix(std::size_t rows, std::size_t cols, std::initializer_list<float> values) {
    tensor t = tensor::from_shape({rows, cols});
    std::copy(values.begin(), values.end(), t.begin());
    return t;
}

double row_sum(const tensor& w, std::size_t i) {
    double s = 0;
    for (std::size_t j = 0; j < w.shape()[1]; ++j) s += w(i, j);
    return s;
}

}  // namespace

TEST_CASE("round_to_half matches float16's rounding, overflow and underflow", "[mistakes][half]") {
    CHECK(attnlab::round_to_half(1.0f) == 1.0f);
    CHECK(attnlab::round_to_half(1.0f / 3.0f) == 0.333251953125f);
    CHECK(attnlab::round_to_half(0.1f) == 0.0999755859375f);
    CHECK(attnlab::round_to_half(2049.0f) == 2048.0f);  // a tie goes to the even neighbour
    CHECK(attnlab::round_to_half(2051.0f) == 2052.0f);
    CHECK(attnlab::round_to_half(65519.0f) == 65504.0f);
    CHECK(attnlab::round_to_half(-65504.0f) == -65504.0f);
    CHECK(attnlab::round_to_half(65520.0f) == std::numeric_limits<float>::infinity());
    CHECK(attnlab::round_to_half(-1e9f) == -std::numeric_limits<float>::infinity());
    CHECK(attnlab::round_to_half(3e-8f) == std::ldexp(1.0f, -24));  // the smallest subnormal
    CHECK(attnlab::round_to_half(1e-8f) == 0.0f);
}

TEST_CASE("every mistake in the catalog has a name, title, symptom and fix", "[mistakes]") {
    const auto& all = attnlab::mistake_catalog();
    REQUIRE(all.size() == 8);
    for (const auto& m : all) {
        CHECK(std::string(m.name).size() > 0);
        CHECK(std::string(m.title).size() > 0);
        CHECK(std::string(m.symptom).size() > 20);
        CHECK(std::string(m.fix).size() > 20);
    }
}

TEST_CASE("softmax over the wrong axis makes columns sum to 1, not rows, as a float64 reference does", "[mistakes]") {
    const auto ex = attnlab::time_flies_example();
    const auto r = attnlab::run_mistake("softmax-wrong-axis", ex.q, ex.k, ex.v, {});
    const std::size_t n = 5, dk = 4, dv = ex.v.shape()[1];
    const auto ref = ref::attention(ex.q.data(), ex.k.data(), ex.v.data(), n, n, dk, dv, 0.5, ref::everything);
    double worst_w = 0, worst_row = 0;
    for (std::size_t j = 0; j < n; ++j) {
        double best = -1e300, total = 0;
        for (std::size_t i = 0; i < n; ++i) best = std::max(best, ref.scaled[i * n + j]);
        for (std::size_t i = 0; i < n; ++i) total += std::exp(ref.scaled[i * n + j] - best);
        for (std::size_t i = 0; i < n; ++i) {
            worst_w = std::max(worst_w, std::abs(r.mistaken.weights(i, j) - std::exp(ref.scaled[i * n + j] - best) / total));
        }
    }
    for (std::size_t i = 0; i < n; ++i) worst_row = std::max(worst_row, std::abs(row_sum(r.mistaken.weights, i) - 1));
    INFO("max |weight - float64 column softmax| = " << worst_w);
    CHECK(worst_w < 1e-6);
    REQUIRE(r.figures.size() == 2);
    CHECK(*r.figures[0].value == Approx(worst_row).margin(1e-6));
    CHECK(*r.figures[0].value > 0.1);
    CHECK(r.figures[0].correct_value < 1e-6);
    CHECK(*r.figures[1].value < 1e-6);  // columns sum to 1
    CHECK(r.figures[1].correct_value > 0.1);
}

TEST_CASE("a mask after the softmax leaves rows short of 1 and shrinks each output by its row sum", "[mistakes]") {
    // All scores 0: the softmax over two keys is [0.5, 0.5]; the causal mask then zeroes
    // row 0's second weight and nothing renormalises it.
    const tensor q = matrix(2, 2, {0, 0, 0, 0}), v = matrix(2, 2, {2, 0, 0, 4});
    attnlab::mask_options masks;
    masks.causal = true;
    const auto r = attnlab::run_mistake("mask-after-softmax", q, q, v, masks);
    CHECK(r.mistaken.weights(0, 0) == 0.5f);
    CHECK(r.mistaken.weights(0, 1) == 0.0f);
    CHECK(r.mistaken.weights(1, 0) == 0.5f);
    CHECK(r.correct.weights(0, 0) == 1.0f);
    CHECK(r.mistaken.output(0, 0) == 1.0f);  // half of v0
    CHECK(*r.figures[0].value == 0.5);
    CHECK(r.figures[0].correct_value == 0.0);
    CHECK(*r.figures[1].value == Approx(0.5));
    CHECK(r.cells(0, 0) == 1.0f);
    CHECK(r.cells(0, 1) == 0.0f);
    CHECK(r.cells(1, 0) == 0.0f);
}

TEST_CASE("no scaling sharpens and 1/d_k flattens the worked example's weights", "[mistakes][lesson]") {
    const auto ex = attnlab::worked_example();  // scores [1, 0], d_k = 2
    const auto none = attnlab::run_mistake("no-scaling", ex.q, ex.k, ex.v, {});
    const auto dk = attnlab::run_mistake("scale-by-dk", ex.q, ex.k, ex.v, {});
    const double e1 = std::exp(1.0), e_half = std::exp(0.5), e_sqrt = std::exp(1 / std::sqrt(2.0));
    CHECK(none.mistaken.weights(0, 0) == Approx(e1 / (e1 + 1)).epsilon(1e-6));
    CHECK(dk.mistaken.weights(0, 0) == Approx(e_half / (e_half + 1)).epsilon(1e-6));
    CHECK(none.correct.weights(0, 0) == Approx(e_sqrt / (e_sqrt + 1)).epsilon(1e-6));
    CHECK(*none.figures[0].value == Approx(e1 / (e1 + 1)).epsilon(1e-6));
    CHECK(none.figures[0].correct_value == Approx(e_sqrt / (e_sqrt + 1)).epsilon(1e-6));
    const auto entropy = [](double p) { return -p * std::log(p) - (1 - p) * std::log(1 - p); };
    CHECK(*none.figures[1].value == Approx(entropy(e1 / (e1 + 1))).epsilon(1e-5));
    CHECK(*dk.figures[1].value == Approx(entropy(e_half / (e_half + 1))).epsilon(1e-5));
    CHECK(*dk.figures[1].value > dk.figures[1].correct_value);
    CHECK(*none.figures[1].value < none.figures[1].correct_value);
}

TEST_CASE("a -1e9 fill in float16 turns a fully masked row into NaN; the usual fix does not", "[mistakes][half]") {
    const tensor q = matrix(3, 2, {1, 0, 0, 1, 1, 1}), v = matrix(3, 2, {1, 2, 3, 4, 5, 6});
    attnlab::mask_options masks;
    masks.valid_lens = tensor::from_shape({3});
    (*masks.valid_lens)(0) = 3;
    (*masks.valid_lens)(1) = 0;  // row 1 sees no key at all
    (*masks.valid_lens)(2) = 2;
    const auto r = attnlab::run_mistake("fp16-mask-fill", q, q, v, masks);
    for (std::size_t j = 0; j < 3; ++j) {
        CHECK(std::isnan(r.mistaken.weights(1, j)));
        CHECK(r.correct.weights(1, j) == 0.0f);
        CHECK(r.cells(1, j) == 1.0f);
        CHECK(r.cells(0, j) == 0.0f);
        CHECK(r.cells(2, j) == 0.0f);
    }
    CHECK(*r.figures[0].value == 3);
    CHECK(r.figures[0].correct_value == 0);
    CHECK(*r.figures[1].value == 2);
    // The other rows are float32 attention up to half-precision rounding.
    const auto f32 = attnlab::attention(q, q, v, [&] { attnlab::attention_options o; o.valid_lens = masks.valid_lens; return o; }());
    for (std::size_t i : {0, 2}) {
        for (std::size_t j = 0; j < 3; ++j) CHECK(r.correct.weights(i, j) == Approx(f32.weights(i, j)).margin(2e-3));
        CHECK(row_sum(r.mistaken.weights, i) == Approx(1).margin(2e-3));
    }
    CHECK(r.mistaken.weights(2, 2) == 0.0f);
    CHECK_THROWS_MATCHES(attnlab::run_mistake("fp16-mask-fill", matrix(1, 1, {7e4f}), matrix(1, 1, {1}), matrix(1, 1, {1}), {}),
                         attnlab::argument_error,
                         Catch::Matchers::Message("mistake: Q[0, 0] = 70000 does not fit float16 (largest finite 65504); expected smaller values for 'fp16-mask-fill'"));
}

TEST_CASE("keys not transposed fail for n != d_k and run silently wrong when n = d_k", "[mistakes]") {
    const auto ex = attnlab::time_flies_example();  // n = 5, d_k = 4
    const auto loud = attnlab::run_mistake("keys-not-transposed", ex.q, ex.k, ex.v, {});
    CHECK(loud.error == "Q K: Q is [5, 4] and K is [5, 4]; a matrix product needs Q's 4 columns to match K's 5 rows");
    CHECK(loud.cells.shape()[0] == 5);
    CHECK(std::all_of(loud.cells.begin(), loud.cells.end(), [](float c) { return c == 0.0f; }));
    CHECK_FALSE(loud.figures[0].value.has_value());

    const tensor q = matrix(2, 2, {1, 2, 3, 4}), k = matrix(2, 2, {0, 1, 0, 0}), v = matrix(2, 1, {10, 20});
    const auto quiet = attnlab::run_mistake("keys-not-transposed", q, k, v, {});
    REQUIRE(quiet.error.empty());
    // Q K by hand: [[0, 1], [0, 3]], scaled by 1/sqrt(2).
    const double s = 1 / std::sqrt(2.0);
    const double rows[2][2] = {{0, 1 * s}, {0, 3 * s}};
    double worst = 0;
    for (std::size_t i = 0; i < 2; ++i) {
        const double total = std::exp(rows[i][0]) + std::exp(rows[i][1]);
        for (std::size_t j = 0; j < 2; ++j) worst = std::max(worst, std::abs(quiet.mistaken.weights(i, j) - std::exp(rows[i][j]) / total));
    }
    CHECK(worst < 1e-6);
    CHECK(*quiet.figures[0].value > 0.1);
}

TEST_CASE("a decoder without its causal mask leaks weight onto future tokens; the last row is unchanged", "[mistakes]") {
    const auto ex = attnlab::time_flies_example();
    const auto r = attnlab::run_mistake("no-causal-mask", ex.q, ex.k, ex.v, {});
    const auto full = ref::attention(ex.q.data(), ex.k.data(), ex.v.data(), 5, 5, 4, ex.v.shape()[1], 0.5, ref::everything);
    double future = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        double s = 0;
        for (std::size_t j = i + 1; j < 5; ++j) s += full.weights[i * 5 + j];
        future = std::max(future, s);
    }
    CHECK(*r.figures[0].value == Approx(future).margin(1e-6));
    CHECK(r.figures[0].correct_value == 0);
    for (std::size_t j = 0; j < 5; ++j) CHECK(r.cells(4, j) == 0.0f);
    CHECK(r.cells(0, 0) == 1.0f);  // the unmasked cells of a row change too: it is renormalised
    CHECK(r.correct.weights(0, 0) == 1.0f);
}

TEST_CASE("a forgotten padding mask puts weight on pad keys, and needs valid lengths to forget", "[mistakes]") {
    const auto ex = attnlab::time_flies_example();
    attnlab::mask_options masks;
    masks.valid_lens = tensor::from_shape({});
    (*masks.valid_lens)() = 3;
    const auto r = attnlab::run_mistake("no-padding-mask", ex.q, ex.k, ex.v, masks);
    CHECK(r.correct.weights(0, 4) == 0.0f);
    CHECK(r.cells(0, 0) == 1.0f);  // a real row is renormalised around the pads
    CHECK_THROWS_MATCHES(attnlab::run_mistake("no-padding-mask", ex.q, ex.k, ex.v, {}), attnlab::argument_error,
                         Catch::Matchers::Message("mistake: 'no-padding-mask' needs validLens (the padding the mistake forgets); expected spec.validLens"));
}

TEST_CASE("the padding figure is the weight real tokens put on pad keys, never a pad query's own row", "[mistakes]") {
    // "time flies like" padded to 5 tokens with zero vectors, as lesson 5 shows it.
    auto ex = attnlab::time_flies_example();
    for (tensor* t : {&ex.q, &ex.k, &ex.v}) std::fill(t->begin() + 3 * t->shape()[1], t->end(), 0.0f);
    const auto full = ref::attention(ex.q.data(), ex.k.data(), ex.v.data(), 5, 5, 4, ex.v.shape()[1], 0.5, ref::everything);
    const auto on_pads = [&](std::size_t i, std::size_t len) {
        double s = 0;
        for (std::size_t j = len; j < 5; ++j) s += full.weights[i * 5 + j];
        return s;
    };
    attnlab::mask_options one;
    one.valid_lens = tensor::from_shape({});
    (*one.valid_lens)() = 3;  // "time flies like" and two pads: the real rows are 0, 1 and 2
    const auto r = attnlab::run_mistake("no-padding-mask", ex.q, ex.k, ex.v, one);
    const double real = std::max({on_pads(0, 3), on_pads(1, 3), on_pads(2, 3)});
    const double pads = std::max(on_pads(3, 3), on_pads(4, 3));
    INFO("real rows " << real << ", pad rows " << pads);
    REQUIRE(pads > real + 0.05);  // on this example the pad rows would give a different, larger figure
    CHECK(r.figures[0].label == "largest weight a real token puts on pad tokens (one row's total)");
    CHECK(*r.figures[0].value == Approx(real).margin(1e-6));
    CHECK(r.figures[0].correct_value == 0);

    // One length per query row: row i is a real token when i is below its own length.
    attnlab::mask_options per_row;
    per_row.valid_lens = tensor::from_shape({5});
    std::copy_n(std::begin({4.0f, 4.0f, 4.0f, 2.0f, 2.0f}), 5, per_row.valid_lens->begin());
    const auto rr = attnlab::run_mistake("no-padding-mask", ex.q, ex.k, ex.v, per_row);
    CHECK(*rr.figures[0].value == Approx(std::max({on_pads(0, 4), on_pads(1, 4), on_pads(2, 4)})).margin(1e-6));

    // Cross-attention (m != n): every query row is a real token of the other sequence.
    const tensor q = matrix(2, 4, {0, 3, 0, 0, 1, 0, 0, 1});
    const auto cross = attnlab::run_mistake("no-padding-mask", q, ex.k, ex.v, one);
    const auto cref = ref::attention(q.data(), ex.k.data(), ex.v.data(), 2, 5, 4, ex.v.shape()[1], 0.5, ref::everything);
    const double c = std::max(cref.weights[3] + cref.weights[4], cref.weights[5 + 3] + cref.weights[5 + 4]);
    CHECK(*cross.figures[0].value == Approx(c).margin(1e-6));
}

TEST_CASE("unknown mistakes and batched inputs are refused by name", "[mistakes]") {
    const auto ex = attnlab::time_flies_example();
    CHECK_THROWS_MATCHES(attnlab::run_mistake("forgot-softmax", ex.q, ex.k, ex.v, {}), attnlab::argument_error,
                         Catch::Matchers::Message("mistake: name = \"forgot-softmax\" is not a known mistake; expected one of softmax-wrong-axis, "
                                                  "mask-after-softmax, no-scaling, scale-by-dk, fp16-mask-fill, keys-not-transposed, "
                                                  "no-causal-mask, no-padding-mask"));
    CHECK_THROWS_MATCHES(attnlab::run_mistake("no-scaling", attnlab::zeros({1, 5, 4}), ex.k, ex.v, {}), attnlab::argument_error,
                         Catch::Matchers::Message("mistake: Q has shape [1, 5, 4]; expected a matrix [m, d_k] (one head, no batch axes; "
                                                  "only no-causal-mask and no-padding-mask take batch axes)"));
}

TEST_CASE("a batch of padded sentences: the padding figure names the sentence and token of the leakiest real row, as float64 attention per sentence gives it", "[mistakes]") {
    // Three self-attention sequences of 6 tokens with valid lengths 6, 2 and 4, d_k = 3.
    std::mt19937 gen(29);
    const std::size_t batch = 3, n = 6, dk = 3, dv = 2;
    const std::size_t lens[batch] = {6, 2, 4};
    const tensor q = ref::random_tensor({batch, n, dk}, gen), k = ref::random_tensor({batch, n, dk}, gen);
    const tensor v = ref::random_tensor({batch, n, dv}, gen);
    attnlab::mask_options masks;
    masks.valid_lens = tensor::from_shape({batch});
    std::copy(std::begin(lens), std::end(lens), masks.valid_lens->begin());
    const auto r = attnlab::run_mistake("no-padding-mask", q, k, v, masks);

    // Reference: each sentence's unmasked float64 attention; every real row's weight on its pads.
    double best = -1;
    attnlab::shape_t where;
    double diff = 0;
    for (std::size_t b = 0; b < batch; ++b) {
        const auto free = ref::attention(q.data() + b * n * dk, k.data() + b * n * dk, v.data() + b * n * dv, n, n, dk, dv,
                                         1 / std::sqrt(double(dk)), ref::everything);
        diff = std::max(diff, ref::max_diff(r.mistaken.weights, free.weights, b * n * n));
        for (std::size_t i = 0; i < lens[b]; ++i) {
            double on_pads = 0;
            for (std::size_t j = lens[b]; j < n; ++j) on_pads += free.weights[i * n + j];
            if (on_pads > best) {
                best = on_pads;
                where = {b, i};
            }
        }
    }
    INFO("largest |mistaken - float64 reference| " << diff << "; reference leak " << best);
    CHECK(diff < 1e-6);
    REQUIRE(best > 0.05);
    CHECK(*r.figures[0].value == Approx(best).margin(1e-6));
    REQUIRE(r.figures[0].row);
    CHECK(*r.figures[0].row == where);
    CHECK(r.figures[0].correct_value == 0);
    CHECK(attnlab::shape_of(r.cells) == attnlab::shape_t{batch, n, n});
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) CHECK(r.cells(0, i, j) == 0.0f);  // sentence 1 has no padding
    }
    CHECK(r.cells(1, 0, 0) == 1.0f);

    // No padding anywhere: nothing leaks, and no row is named.
    std::fill(masks.valid_lens->begin(), masks.valid_lens->end(), float(n));
    const auto none = attnlab::run_mistake("no-padding-mask", q, k, v, masks);
    CHECK(*none.figures[0].value == 0);
    CHECK_FALSE(none.figures[0].row);
}

TEST_CASE("a batched decoder without its causal mask names the row with the most weight on future tokens", "[mistakes]") {
    std::mt19937 gen(31);
    const std::size_t heads = 2, n = 5, dk = 4;
    const tensor q = ref::random_tensor({1, heads, n, dk}, gen), k = ref::random_tensor({1, heads, n, dk}, gen);
    const tensor v = ref::random_tensor({1, heads, n, dk}, gen);
    const auto r = attnlab::run_mistake("no-causal-mask", q, k, v, {});
    double best = -1;
    attnlab::shape_t where;
    for (std::size_t h = 0; h < heads; ++h) {
        const auto free = ref::attention(q.data() + h * n * dk, k.data() + h * n * dk, v.data() + h * n * dk, n, n, dk, dk, 0.5,
                                         ref::everything);
        for (std::size_t i = 0; i < n; ++i) {
            double future = 0;
            for (std::size_t j = i + 1; j < n; ++j) future += free.weights[i * n + j];
            if (future > best) {
                best = future;
                where = {0, h, i};
            }
        }
    }
    CHECK(*r.figures[0].value == Approx(best).margin(1e-6));
    REQUIRE(r.figures[0].row);
    CHECK(*r.figures[0].row == where);
    CHECK(attnlab::shape_of(r.correct.weights) == attnlab::shape_t{1, heads, n, n});
}
