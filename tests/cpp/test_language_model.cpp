// A trained model for reading (language_model.cpp): the same weights give the trainer's
// attention, and next-token probabilities that match the float64 reference model.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/language_model.hpp"
#include "attnlab/trainer.hpp"
#include "train_reference.hpp"

using attnlab::argument_error;
using attnlab::language_model;
using attnlab::task_kind;
using attnlab::trainer;
using attnlab::trainer_options;
using Catch::Matchers::Message;

namespace {

trainer_options text_run() {
    trainer_options o;
    o.model.vocab = 11;
    o.model.seq_len = 10;
    o.model.layers = 2;
    o.model.heads = 2;
    o.model.d_model = 16;
    o.model.mlp = 24;
    o.model.layer_norm = true;
    o.batch = 4;
    o.task.kind = task_kind::text;
    for (int i = 0; i < 200; ++i) o.task.stream.push_back((i * 7 + i / 11) % 11);
    return o;
}

language_model loaded_from(const trainer& t) {
    language_model m(t.options().model, "loadModel");
    m.set_weights(t.model().params(), t.model().param_count(), "loadModel");
    return m;
}

}  // namespace

TEST_CASE("a language model given a trainer's weights reads the same attention, bit for bit", "[language_model]") {
    trainer t(text_run());
    t.step(20);
    language_model m = loaded_from(t);
    const std::int32_t tokens[] = {4, 0, 7, 7, 2, 9, 10};
    const auto& c = t.options().model;
    std::vector<float> a(c.layers * c.heads * 49), b(a.size());
    t.attention(tokens, 7, a.data());
    m.attention(tokens, 7, b.data(), "Model.attention");
    CHECK(a == b);
    for (std::size_t s = 0; s < c.layers * c.heads; ++s) {
        for (std::size_t i = 0; i < 7; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < 7; ++j) sum += b[(s * 7 + i) * 7 + j];
            REQUIRE(sum == Approx(1.0).epsilon(1e-5));
        }
    }
}

TEST_CASE("next-token probabilities match the float64 reference model's cross-entropy for every token", "[language_model]") {
    trainer t(text_run());
    t.step(20);
    language_model m = loaded_from(t);
    const auto& c = t.options().model;
    const std::int32_t tokens[] = {3, 1, 4, 1, 5, 9};
    const std::size_t n = 6;
    std::vector<float> logits(c.vocab);
    m.next_logits(tokens, n, logits.data(), "Model.logits");
    const std::vector<double> p = attnlab::probabilities_of(logits.data(), c.vocab);

    ref::model r{c, {}};
    for (const auto& q : m.parameters()) r.p[q.name] = ref::vec(t.model().params() + q.offset, t.model().params() + q.offset + q.size);
    std::vector<std::int32_t> targets(n, 0);
    std::vector<std::uint8_t> scored(n, 0);
    scored[n - 1] = 1;  // only the last position: its loss is -log p(target)
    double sum = 0, worst = 0;
    for (std::size_t id = 0; id < c.vocab; ++id) {
        targets[n - 1] = std::int32_t(id);
        const double reference = std::exp(-r.loss(tokens, targets.data(), scored.data(), 1, n));
        worst = std::max(worst, std::abs(p[id] - reference));
        sum += p[id];
    }
    INFO("largest |p - reference| = " << worst);
    CHECK(worst < 1e-5);
    CHECK(sum == Approx(1.0).epsilon(1e-12));

    const auto top = m.predict(tokens, n, 4, "Model.predict");
    REQUIRE(top.size() == 4);
    for (std::size_t i = 0; i < top.size(); ++i) {
        CHECK(top[i].probability == p[std::size_t(top[i].id)]);
        if (i > 0) CHECK(top[i].probability <= top[i - 1].probability);
        for (std::size_t id = 0; id < c.vocab; ++id) {
            bool listed = false;
            for (const auto& x : top) listed = listed || x.id == std::int32_t(id);
            if (!listed) CHECK(p[id] <= top.back().probability);  // nothing left out beats the last listed
        }
    }
}

TEST_CASE("top tokens sort by probability, ties by id, and clip k to the vocabulary", "[language_model]") {
    const auto top = attnlab::top_tokens({0.1, 0.4, 0.1, 0.4}, 9);
    REQUIRE(top.size() == 4);
    CHECK(top[0].id == 1);
    CHECK(top[1].id == 3);
    CHECK(top[2].id == 0);
    CHECK(top[3].id == 2);
    const float huge[] = {1000.0f, 999.0f, -1000.0f};
    const auto p = attnlab::probabilities_of(huge, 3);
    CHECK(p[0] == Approx(1 / (1 + std::exp(-1.0))));
    CHECK(p[2] == 0.0);
}

TEST_CASE("a language model refuses bad tokens, k and weights by name, and stays usable", "[language_model]") {
    trainer t(text_run());
    language_model m(t.options().model, "loadModel");
    const std::int32_t tokens[] = {1, 2};
    std::vector<float> out(t.options().model.vocab * 4);
    CHECK_THROWS_MATCHES(m.next_logits(tokens, 2, out.data(), "Model.logits"), argument_error,
                         Message("Model.logits: the model has no weights; expected set_weights() to have succeeded first"));
    std::vector<float> w(t.model().params(), t.model().params() + t.model().param_count());
    w[3] = INFINITY;  // tokenEmbedding[0, 3]
    CHECK_THROWS_MATCHES(m.set_weights(w.data(), w.size(), "loadModel"), argument_error,
                         Message("loadModel: tokenEmbedding[0, 3] is Infinity; expected finite weights"));
    w[3] = 0;
    m.set_weights(w.data(), w.size(), "loadModel");
    CHECK_THROWS_MATCHES(m.attention(tokens, 0, out.data(), "Model.attention"), argument_error,
                         Message("Model.attention: tokens has 0 entries; expected 1 to 10 (seqLen)"));
    const std::int32_t long_list[11] = {};
    CHECK_THROWS_MATCHES(m.attention(long_list, 11, out.data(), "Model.attention"), argument_error,
                         Message("Model.attention: tokens has 11 entries; expected 1 to 10 (seqLen)"));
    const std::int32_t bad[] = {1, 11};
    CHECK_THROWS_MATCHES(m.predict(bad, 2, 5, "Model.predict"), argument_error,
                         Message("Model.predict: tokens[1] = 11; expected a token id from 0 to 10 (vocab = 11)"));
    CHECK_THROWS_MATCHES(m.predict(tokens, 2, 0, "Model.predict"), argument_error,
                         Message("Model.predict: top = 0; expected a whole number from 1 to 100"));
    CHECK(m.predict(tokens, 2, 100, "Model.predict").size() == 11);
}

TEST_CASE("head scores are the scores of the model's own attention, with its tokens for prefix matching", "[language_model]") {
    trainer t(text_run());
    t.step(10);
    language_model m = loaded_from(t);
    const auto& c = t.options().model;
    const std::int32_t tokens[] = {5, 6, 7, 5, 6, 7, 5, 6};  // a repeat: prefix matching is defined
    std::vector<float> p(c.layers * c.heads * 64);
    m.attention(tokens, 8, p.data(), "Model.attention");
    const auto all = m.scores(tokens, 8, "Model.headScores");
    REQUIRE(all.size() == c.layers * c.heads);
    for (std::size_t s = 0; s < all.size(); ++s) {
        attnlab::head_score_sums sums;
        sums.add_self(p.data() + s * 64, 8, tokens);
        const auto expected = attnlab::scores_of(sums);
        CHECK(all[s].previous_token.value() == expected.previous_token.value());
        CHECK(all[s].prefix_matching.value() == expected.prefix_matching.value());
        CHECK(all[s].entropy.value() == expected.entropy.value());
    }
    const std::int32_t once[] = {1, 2, 3};
    CHECK_FALSE(m.scores(once, 3, "Model.headScores")[0].prefix_matching.has_value());
}

namespace {

// Every activation of a forward pass is finite: the logits and each layer's attention.
bool forward_finite(attnlab::transformer& m, const std::int32_t* tokens, std::size_t n) {
    m.forward(tokens, 1, n);
    const auto& c = m.config();
    for (std::size_t i = 0; i < n * c.vocab; ++i) {
        if (!std::isfinite(m.logits()[i])) return false;
    }
    for (std::size_t l = 0; l < c.layers; ++l) {
        for (std::size_t i = 0; i < c.heads * n * n; ++i) {
            if (!std::isfinite(m.weights(l)[i])) return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("weights whose forward pass overflows are refused at load, naming the tensor; trained ones load", "[language_model]") {
    // the trainer's defaults: 2 layers, no layer norm, no MLP, dModel 32
    trainer_options o;
    trainer t(o);
    const attnlab::transformer_config c = t.options().model;
    std::vector<std::int32_t> tokens(c.seq_len);
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::int32_t>((i * 5) % c.vocab);
    for (const float big : {1e4f, 65504.0f}) {
        // the forward pass of these weights, run directly on a transformer, really overflows
        attnlab::transformer raw(c, 1, "test");
        std::fill(raw.params(), raw.params() + raw.param_count(), big);
        CHECK_FALSE(forward_finite(raw, tokens.data(), tokens.size()));
        // and the loaders refuse them, naming the first tensor past the bound
        std::vector<float> w(raw.param_count(), big);
        trainer loaded(o);
        CHECK_THROWS_WITH(loaded.set_weights(w.data(), w.size(), "loadTrainer"),
                          Catch::Matchers::StartsWith("loadTrainer: layers.0.out can take the forward pass to ") &&
                              Catch::Matchers::EndsWith("expected weights that keep every activation within 1000000000000 and "
                                                        "every attention score within 1e+30, so that float32 cannot overflow"));
        language_model m(c, "loadModel");
        CHECK_THROWS_WITH(m.set_weights(w.data(), w.size(), "loadModel"), Catch::Matchers::StartsWith("loadModel: layers.0.out can take"));
    }
    // one large tensor is named: the unembedding of 1e10 after small layers
    std::vector<float> w(t.model().params(), t.model().params() + t.model().param_count());
    for (const attnlab::parameter& p : t.model().parameters()) {
        if (p.name == "unembedding") std::fill(w.begin() + p.offset, w.begin() + p.offset + p.size, 1e10f);
    }
    language_model m(c, "loadModel");
    CHECK_THROWS_WITH(m.set_weights(w.data(), w.size(), "loadModel"), Catch::Matchers::StartsWith("loadModel: unembedding can take"));
    // the initial weights, and trained ones, load and run finite
    t.step(50);
    language_model trained = loaded_from(t);
    std::vector<float> out(c.layers * c.heads * c.seq_len * c.seq_len);
    trained.attention(tokens.data(), tokens.size(), out.data(), "Model.attention");
    for (const float x : out) CHECK(std::isfinite(x));
    const language_model with_norm = loaded_from(trainer(text_run()));
    CHECK(with_norm.param_count() > 0);
}
