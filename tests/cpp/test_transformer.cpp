// The whole model's gradients (transformer.cpp) against central differences of a float64
// reference model (train_reference.hpp), for every parameter; tolerances as in test_grad.cpp.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "attnlab/errors.hpp"
#include "attnlab/transformer.hpp"
#include "train_reference.hpp"

using attnlab::argument_error;
using attnlab::transformer;
using attnlab::transformer_config;
using Catch::Matchers::Message;

namespace {

transformer_config config(std::size_t vocab, std::size_t seq_len, std::size_t layers, std::size_t heads,
                          std::size_t d_model, std::size_t mlp) {
    transformer_config c;
    c.vocab = vocab;
    c.seq_len = seq_len;
    c.layers = layers;
    c.heads = heads;
    c.d_model = d_model;
    c.mlp = mlp;
    return c;
}

void check_gradients(const transformer_config& c, std::size_t batch, std::size_t n, unsigned seed) {
    transformer model(c, batch, "test");
    model.initialise(seed);
    std::mt19937 gen(seed);
    // Small random perturbations of gains and biases, so their gradients are not special.
    std::uniform_real_distribution<float> jitter(-0.3f, 0.3f);
    for (std::size_t i = 0; i < model.param_count(); ++i) model.params()[i] += jitter(gen) * 0.1f;
    std::vector<std::int32_t> tokens(batch * n), targets(batch * n);
    std::vector<std::uint8_t> scored(batch * n);
    for (std::size_t r = 0; r < batch * n; ++r) {
        tokens[r] = std::int32_t(gen() % c.vocab);
        targets[r] = std::int32_t(gen() % c.vocab);
        scored[r] = r % 3 != 1;
    }
    model.forward(tokens.data(), batch, n);
    const auto totals = model.loss(targets.data(), scored.data());
    model.backward();

    ref::model m{c, {}};
    for (const auto& p : model.parameters()) m.p[p.name] = ref::vec(model.params() + p.offset, model.params() + p.offset + p.size);
    const double reference_loss = m.loss(tokens.data(), targets.data(), scored.data(), batch, n);
    REQUIRE(totals.loss / double(totals.scored) == Approx(reference_loss).epsilon(1e-5));
    for (const auto& p : model.parameters()) {
        ref::vec& x = m.p[p.name];
        const ref::vec numeric = ref::central_differences(
            x, [&] { return m.loss(tokens.data(), targets.data(), scored.data(), batch, n); });
        double largest = 0, worst = 0;
        std::size_t at = 0;
        for (double e : numeric) largest = std::max(largest, std::abs(e));
        for (std::size_t i = 0; i < p.size; ++i) {
            const double got = model.grads()[p.offset + i];
            const double ratio = std::abs(got - numeric[i]) / std::max(1e-3 * std::abs(numeric[i]) + 1e-5 * largest, 1e-300);
            if (ratio > worst) worst = ratio, at = i;
        }
        INFO(p.name << "[" << at << "]: engine " << model.grads()[p.offset + at] << ", reference " << numeric[at]
                    << " (largest |reference| " << largest << ")");
        REQUIRE(worst <= 1.0);
        REQUIRE(largest > 0);  // every parameter reaches the loss
    }
}

}  // namespace

TEST_CASE("an attention-only transformer's gradients match central differences for every parameter", "[transformer]") {
    check_gradients(config(7, 6, 2, 2, 8, 0), 3, 6, 1);
}

TEST_CASE("a transformer with layer norm and a GELU MLP: every gradient matches, on a shorter input", "[transformer]") {
    transformer_config c = config(9, 7, 2, 4, 8, 12);
    c.layer_norm = true;
    check_gradients(c, 2, 5, 2);  // n = 5 < seqLen
}

TEST_CASE("a one-layer transformer with a ReLU MLP and one head: every gradient matches", "[transformer]") {
    transformer_config c = config(5, 4, 1, 1, 6, 10);
    c.act = attnlab::grad::activation::relu;
    check_gradients(c, 4, 4, 3);
}

TEST_CASE("the memory plan is known from the configuration and counts every parameter", "[transformer]") {
    transformer_config c;  // the defaults: vocab 32, seqLen 32, 2 layers, 2 heads, dModel 32
    const transformer model(c, 32, "test");
    // 32 x 32 token and 32 x 32 position embeddings, per layer 32 x 96 qkv and 32 x 32 out,
    // a 32 x 32 unembedding and its 32 biases
    CHECK(model.plan().parameters == 1024 + 1024 + 2 * (3072 + 1024) + 1024 + 32);
    CHECK(model.param_count() == model.plan().parameters);
    std::size_t named = 0;
    for (const auto& p : model.parameters()) named += p.size;
    CHECK(named == model.param_count());
    CHECK(model.plan().total() * 4 < 8u << 20);  // under 8 MB in all
    // every activation and scratch float the plan counts was handed out (the tokens are ints)
    CHECK(model.arena_floats() == model.plan().activations + model.plan().scratch - 32 * 32);
    transformer_config big = config(50, 20, 3, 4, 16, 24);
    big.layer_norm = true;
    const transformer other(big, 5, "test");
    CHECK(other.arena_floats() == other.plan().activations + other.plan().scratch - 5 * 20);
}

TEST_CASE("bad model configurations are refused by name", "[transformer]") {
    transformer_config c;
    c.heads = 3;
    CHECK_THROWS_MATCHES(transformer(c, 4, "createTrainer"), argument_error,
                         Message("createTrainer: heads = 3 does not divide dModel = 32; expected a number of heads "
                                 "that splits dModel evenly (d_head = dModel / heads)"));
    c = {};
    c.vocab = 1;
    CHECK_THROWS_MATCHES(transformer(c, 4, "createTrainer"), argument_error,
                         Message("createTrainer: vocab = 1; expected a whole number from 2 to 8192"));
    c = {};
    c.layers = 0;
    CHECK_THROWS_WITH(transformer(c, 4, "createTrainer"), "createTrainer: layers = 0; expected a whole number from 1 to 8");
    c = {};
    CHECK_THROWS_WITH(transformer(c, 0, "createTrainer"), "createTrainer: batch = 0; expected a whole number from 1 to 512");
    c.vocab = 8192;
    c.seq_len = 256;
    c.d_model = 512;
    CHECK_THROWS_WITH(transformer(c, 512, "createTrainer"), Catch::StartsWith("createTrainer: this model needs ") &&
                                                                Catch::Contains("expected at most 67108864 (256 MB)"));
}

// Positions (positions.hpp): the same check for every scheme, against the reference model's
// own sinusoid, rotation and slopes (train_reference.hpp), written from the papers' formulas.
TEST_CASE("every position scheme's gradients match central differences of the float64 model", "[transformer][positions]") {
    using attnlab::position_kind;
    for (position_kind kind : {position_kind::sinusoidal, position_kind::rope, position_kind::alibi, position_kind::none}) {
        INFO("positions = " << attnlab::position_kind_name(kind));
        transformer_config c = config(7, 6, 2, 2, 8, 0);
        c.positions = kind;
        check_gradients(c, 2, 6, 4);
        c = config(9, 7, 1, 4, 8, 12);  // four heads: four ALiBi slopes, d_head 2: one RoPE pair
        c.layer_norm = true;
        c.positions = kind;
        check_gradients(c, 2, 5, 5);
    }
}

TEST_CASE("only a learned table is a parameter; rope needs an even d_head", "[transformer][positions]") {
    transformer_config c;
    for (auto kind : {attnlab::position_kind::sinusoidal, attnlab::position_kind::rope, attnlab::position_kind::alibi,
                      attnlab::position_kind::none}) {
        c.positions = kind;
        const transformer model(c, 4, "test");
        CHECK(model.param_count() == 1024 + 2 * (3072 + 1024) + 1024 + 32);  // no 32 x 32 position table
        CHECK(model.param_count() == model.plan().parameters);
        CHECK(model.parameters()[1].name == "layers.0.qkv");
    }
    c.positions = attnlab::position_kind::rope;
    c.d_model = 6;  // d_head = 3
    CHECK_THROWS_MATCHES(transformer(c, 4, "createTrainer"), argument_error,
                         Message("createTrainer: positions = 'rope' needs an even d_head (RoPE turns pairs of dimensions); "
                                 "dModel = 6 / heads = 2 gives 3"));
}
