// Knocking heads out (ablation.cpp) against the float64 reference model (train_reference.hpp):
// zero ablation against the model rebuilt with the heads' rows of Wo set to 0 (which never
// goes through the ablation code), mean ablation against the reference replacing the heads'
// outputs by the means it computes itself.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "attnlab/ablation.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/language_model.hpp"
#include "attnlab/trainer.hpp"
#include "train_reference.hpp"

using attnlab::ablation_mode;
using attnlab::argument_error;
using attnlab::head_patch;
using attnlab::language_model;
using attnlab::task_kind;
using attnlab::trainer;
using attnlab::trainer_options;
using Catch::Matchers::Message;

namespace {

trainer_options induction_run() {
    trainer_options o;
    o.model.vocab = 12;
    o.model.seq_len = 12;
    o.model.layers = 2;
    o.model.heads = 2;
    o.model.d_model = 16;
    o.batch = 24;  // the evaluation set's 128 sequences in 6 passes, the last one short
    return o;
}

ref::model reference_of(const attnlab::transformer& m) {
    ref::model r{m.config(), {}};
    for (const auto& q : m.parameters()) r.p[q.name] = ref::vec(m.params() + q.offset, m.params() + q.offset + q.size);
    return r;
}

// The reference with head (layer, head)'s rows of Wo set to 0: the model without that head.
void remove_head(ref::model& r, std::size_t layer, std::size_t head) {
    const std::size_t d = r.c.d_model, dh = r.c.d_head();
    ref::vec& wo = r.p.at("layers." + std::to_string(layer) + ".out");  // [d, d]: input rows, one per merged dimension
    for (std::size_t i = head * dh; i < (head + 1) * dh; ++i) {
        for (std::size_t j = 0; j < d; ++j) wo[i * d + j] = 0;
    }
}

struct losses {
    double all, scored;
};

// Mean cross-entropies of the reference over the trainer's evaluation set, every position and the scored ones.
losses evaluation_losses(const ref::model& r, const attnlab::task_batch& e, const ref::model::head_rows* replace = nullptr) {
    const ref::vec z = r.logits(e.tokens.data(), e.batch, e.n, replace);
    const std::vector<std::uint8_t> every(e.batch * e.n, 1);
    std::size_t scored = 0;
    for (auto s : e.scored) scored += s;
    return {ref::cross_entropy(z, e.targets.data(), every.data(), e.batch * e.n, r.c.vocab) / double(e.batch * e.n),
            ref::cross_entropy(z, e.targets.data(), e.scored.data(), e.batch * e.n, r.c.vocab) / double(scored)};
}

// Row-wise softmax of logits [rows, vocab].
ref::vec softmax_rows(const ref::vec& z, std::size_t vocab) {
    ref::vec p(z.size());
    for (std::size_t r = 0; r < z.size() / vocab; ++r) {
        double top = z[r * vocab], sum = 0;
        for (std::size_t i = 0; i < vocab; ++i) top = std::max(top, z[r * vocab + i]);
        for (std::size_t i = 0; i < vocab; ++i) sum += (p[r * vocab + i] = std::exp(z[r * vocab + i] - top));
        for (std::size_t i = 0; i < vocab; ++i) p[r * vocab + i] /= sum;
    }
    return p;
}

double largest_difference(const std::vector<double>& a, const ref::vec& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

head_patch patch_of(const trainer& t, std::vector<std::size_t> pairs) {
    return head_patch(t.options().model, pairs.data(), pairs.size() / 2, "Trainer.ablate");
}

}  // namespace

TEST_CASE("zero ablation is the model rebuilt without the heads' rows of Wo", "[ablation]") {
    trainer t(induction_run());
    t.step(150);
    const auto& e = t.evaluation_set();
    const std::vector<std::int32_t> tokens = t.example();
    head_patch p = patch_of(t, {1, 0, 0, 1});
    const auto r = ablate(t, p, ablation_mode::zero, tokens.data(), tokens.size(), "Trainer.ablate");

    ref::model clean = reference_of(t.model()), without = clean;
    remove_head(without, 1, 0);
    remove_head(without, 0, 1);
    const losses base = evaluation_losses(clean, e), knocked = evaluation_losses(without, e);
    // float32 engine against float64 reference over 128 x 12 positions: relative 1e-4
    CHECK(r.baseline.loss == Approx(base.all).epsilon(1e-4));
    CHECK(r.baseline.scored_loss == Approx(base.scored).epsilon(1e-4));
    CHECK(r.ablated.loss == Approx(knocked.all).epsilon(1e-4));
    CHECK(r.ablated.scored_loss == Approx(knocked.scored).epsilon(1e-4));
    CHECK(r.ablated.positions == 128 * 12);
    CHECK(r.ablated.scored == r.baseline.scored);
    // the knock-out matters on this model, so the comparison is not of two equal numbers
    CHECK(std::abs(knocked.scored - base.scored) > 0.05);

    const std::size_t V = 12, n = tokens.size();
    CHECK(largest_difference(r.probabilities, softmax_rows(without.logits(tokens.data(), 1, n), V)) < 1e-5);
    CHECK(largest_difference(r.baseline_probabilities, softmax_rows(clean.logits(tokens.data(), 1, n), V)) < 1e-5);
}

TEST_CASE("mean ablation replaces each head's output by its mean over the evaluation set", "[ablation]") {
    trainer t(induction_run());
    t.step(150);
    const auto& e = t.evaluation_set();
    const std::vector<std::int32_t> tokens = t.example();
    head_patch p = patch_of(t, {0, 0, 1, 1});
    const auto r = ablate(t, p, ablation_mode::mean, tokens.data(), tokens.size(), "Trainer.ablate");

    // the reference's own means: every position of every sequence, from the model with nothing removed
    const ref::model clean = reference_of(t.model());
    ref::model::head_rows sums;
    clean.logits(e.tokens.data(), e.batch, e.n, nullptr, &sums);
    ref::model::head_rows means;
    for (std::size_t key : {std::size_t(0), std::size_t(3)}) {
        for (double& x : sums.at(key)) x /= double(e.batch * e.n);
        means[key] = sums.at(key);
    }
    const losses knocked = evaluation_losses(clean, e, &means);
    CHECK(r.ablated.loss == Approx(knocked.all).epsilon(1e-4));
    CHECK(r.ablated.scored_loss == Approx(knocked.scored).epsilon(1e-4));
    const ref::vec probabilities = softmax_rows(clean.logits(tokens.data(), 1, tokens.size(), &means), 12);
    CHECK(largest_difference(r.probabilities, probabilities) < 1e-5);
    // and it is not zero ablation
    ref::model without = clean;
    remove_head(without, 0, 0);
    remove_head(without, 1, 1);
    CHECK(std::abs(evaluation_losses(without, e).all - knocked.all) > 1e-3);
}

TEST_CASE("ablating no head is the model; every head, the model without attention; training is unaffected", "[ablation]") {
    trainer t(induction_run()), twin(induction_run());
    t.step(30);
    const std::vector<std::int32_t> tokens = t.example();
    head_patch none = patch_of(t, {});
    const auto same = ablate(t, none, ablation_mode::mean, tokens.data(), tokens.size(), "Trainer.ablate");
    CHECK(same.ablated.loss == same.baseline.loss);
    CHECK(same.probabilities == same.baseline_probabilities);

    head_patch all = patch_of(t, {0, 0, 0, 1, 1, 0, 1, 1});
    const auto r = ablate(t, all, ablation_mode::zero, tokens.data(), tokens.size(), "Trainer.ablate");
    ref::model without = reference_of(t.model());
    for (std::size_t l = 0; l < 2; ++l) {
        for (std::size_t h = 0; h < 2; ++h) remove_head(without, l, h);
    }
    const losses knocked = evaluation_losses(without, t.evaluation_set());
    CHECK(r.ablated.loss == Approx(knocked.all).epsilon(1e-4));
    CHECK(r.ablated.scored_loss == Approx(knocked.scored).epsilon(1e-4));

    // the evaluation's scored loss is the trainer's own evaluate()
    CHECK(r.baseline.scored_loss == Approx(t.evaluate().loss).epsilon(1e-12));
    // the ablation leaves the trainer as it was: it trains on exactly as a twin that never ablated
    twin.step(30);
    double a[20], b[20];
    t.step(20, a);
    twin.step(20, b);
    for (int i = 0; i < 20; ++i) CHECK(a[i] == b[i]);
}

TEST_CASE("head scores under ablation: earlier layers and the knocked-out head's own pattern stay, later heads move", "[ablation]") {
    trainer t(induction_run());
    t.step(300);
    const std::vector<std::int32_t> tokens = t.example();
    const auto clean = t.head_scores();
    head_patch none = patch_of(t, {});
    const auto same = ablate(t, none, ablation_mode::zero, tokens.data(), tokens.size(), "Trainer.ablate").scores;
    REQUIRE(same.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) CHECK(same[k].induction == clean[k].induction);
    // a layer-1 head: nothing before its output changes, so every pattern is the same
    head_patch late = patch_of(t, {1, 0});
    const auto l1 = ablate(t, late, ablation_mode::zero, tokens.data(), tokens.size(), "Trainer.ablate").scores;
    for (std::size_t k = 0; k < 4; ++k) {
        CHECK(l1[k].induction == clean[k].induction);
        CHECK(l1[k].previous_token == clean[k].previous_token);
    }
    // both layer-0 heads: layer 0's patterns stay, layer 1's read a different residual stream
    head_patch early = patch_of(t, {0, 0, 0, 1});
    const auto l0 = ablate(t, early, ablation_mode::zero, tokens.data(), tokens.size(), "Trainer.ablate").scores;
    for (std::size_t k = 0; k < 2; ++k) CHECK(l0[k].previous_token == clean[k].previous_token);
    for (std::size_t k = 2; k < 4; ++k) CHECK(l0[k].induction != clean[k].induction);
    // and the trainer's own scores afterwards are the model's again
    const auto after = t.head_scores();
    for (std::size_t k = 0; k < 4; ++k) CHECK(after[k].induction == clean[k].induction);
}

TEST_CASE("bad heads are refused by name, and the trainer stays usable", "[ablation]") {
    trainer t(induction_run());
    const auto& c = t.options().model;
    const std::size_t layer_out[] = {0, 1, 2, 0};
    CHECK_THROWS_MATCHES(head_patch(c, layer_out, 2, "Trainer.ablate"), argument_error,
                         Message("Trainer.ablate: heads[1] = [2, 0]: layer 2 is out of range; expected [layer, head] with "
                                 "layer from 0 to 1 and head from 0 to 1"));
    const std::size_t head_out[] = {1, 5};
    CHECK_THROWS_MATCHES(head_patch(c, head_out, 1, "Trainer.ablate"), argument_error,
                         Message("Trainer.ablate: heads[0] = [1, 5]: head 5 is out of range; expected [layer, head] with "
                                 "layer from 0 to 1 and head from 0 to 1"));
    const std::size_t twice[] = {0, 1, 1, 1, 0, 1};
    CHECK_THROWS_MATCHES(head_patch(c, twice, 3, "Trainer.ablate"), argument_error,
                         Message("Trainer.ablate: heads[2] = [0, 1] repeats heads[0]; expected each head at most once"));
    head_patch p = patch_of(t, {0, 1});
    const std::int32_t bad[] = {3, 12};
    CHECK_THROWS_MATCHES(ablate(t, p, ablation_mode::zero, bad, 2, "Trainer.ablate"), argument_error,
                         Message("Trainer.ablate: tokens[1] = 12; expected a token id from 0 to 11 (vocab = 12)"));
    const std::int32_t good[] = {3, 4, 3};
    CHECK(ablate(t, p, ablation_mode::zero, good, 3, "Trainer.ablate").probabilities.size() == 3 * 12);
}

TEST_CASE("a model's ablation on a text: losses over its positions and its repeats, and the next token", "[ablation]") {
    trainer_options o;
    o.model.vocab = 11;
    o.model.seq_len = 10;
    o.model.heads = 2;
    o.model.d_model = 16;
    o.model.mlp = 24;
    o.model.layer_norm = true;
    o.batch = 4;
    o.task.kind = task_kind::text;
    for (int i = 0; i < 200; ++i) o.task.stream.push_back((i * 7 + i / 11) % 11);
    trainer t(o);
    t.step(40);
    language_model m(o.model, "loadModel");
    const std::int32_t tokens[] = {3, 1, 4, 1, 5, 3, 1, 4, 1};
    const std::size_t n = 9;
    const std::vector<std::uint8_t> repeated = attnlab::repeated_positions(tokens, n);
    // (3, 1) and (1, 4) come back at positions 5 and 6; (4, 1) at 7
    CHECK(repeated == std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1, 1, 1, 0});
    head_patch p(o.model, std::vector<std::size_t>{1, 1}.data(), 1, "Model.ablate");
    const std::int32_t batch[] = {2, 7, 2, 7, 9, 0, 5, 5};
    const std::size_t lengths[] = {5, 3};
    CHECK_THROWS_MATCHES(ablate(m, p, ablation_mode::mean, tokens, n, batch, lengths, 2, "Model.ablate"), argument_error,
                         Message("Model.ablate: the model has no weights; expected set_weights() to have succeeded first"));
    m.set_weights(t.model().params(), t.model().param_count(), "loadModel");
    CHECK_THROWS_MATCHES(ablate(m, p, ablation_mode::mean, tokens, n, batch, lengths, 0, "Model.ablate"), argument_error,
                         Message("Model.ablate: meanOver is empty; expected at least one text to average the heads' outputs over"));
    const auto r = ablate(m, p, ablation_mode::mean, tokens, n, batch, lengths, 2, "Model.ablate");

    const ref::model clean = reference_of(t.model());
    ref::model::head_rows sums, more, means;
    clean.logits(batch, 1, 5, nullptr, &sums);
    clean.logits(batch + 5, 1, 3, nullptr, &more);
    means[3] = sums.at(3);
    for (std::size_t i = 0; i < means[3].size(); ++i) means[3][i] = (sums.at(3)[i] + more.at(3)[i]) / 8.0;
    const ref::vec z = clean.logits(tokens, 1, n, &means);
    std::vector<std::int32_t> targets(tokens + 1, tokens + n);
    targets.push_back(0);
    std::vector<std::uint8_t> every(n, 1);
    every[n - 1] = 0;
    CHECK(r.ablated.positions == 8);
    CHECK(r.ablated.scored == 3);
    CHECK(r.ablated.loss == Approx(ref::cross_entropy(z, targets.data(), every.data(), n, 11) / 8).epsilon(1e-4));
    CHECK(r.ablated.scored_loss == Approx(ref::cross_entropy(z, targets.data(), repeated.data(), n, 11) / 3).epsilon(1e-4));
    const ref::vec last = softmax_rows(ref::vec(z.end() - 11, z.end()), 11);
    CHECK(largest_difference(r.probabilities, last) < 1e-5);
    CHECK(r.baseline.loss != r.ablated.loss);

    // one token: no position to score, so the losses are NaN over 0 positions
    const auto one = ablate(m, p, ablation_mode::zero, tokens, 1, batch, lengths, 0, "Model.ablate");
    CHECK(one.ablated.positions == 0);
    CHECK(std::isnan(one.ablated.loss));
    CHECK(one.probabilities.size() == 11);
}
