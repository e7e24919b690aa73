#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/random.hpp"
#include "attnlab/tasks.hpp"
#include "attnlab/trainer.hpp"

using attnlab::argument_error;
using attnlab::task_kind;
using attnlab::trainer;
using attnlab::trainer_options;
using Catch::Matchers::Message;

namespace {

trainer_options small(task_kind kind = task_kind::induction) {
    trainer_options o;
    o.model.vocab = 12;
    o.model.seq_len = 12;
    o.model.d_model = 16;
    o.batch = 8;
    o.task.kind = kind;
    return o;
}

}  // namespace

TEST_CASE("the same seed gives the same losses bit for bit, and another seed other losses", "[trainer]") {
    trainer a(small()), b(small());
    trainer_options other = small();
    other.seed = 2;
    trainer c(other);
    std::vector<double> la(20), lb(20), lc(20);
    a.step(20, la.data());
    b.step(10, lb.data());
    b.step(10, lb.data() + 10);  // the same run in two calls
    c.step(20, lc.data());
    CHECK(std::memcmp(la.data(), lb.data(), sizeof(double) * la.size()) == 0);
    CHECK(la != lc);
    for (double x : la) CHECK(std::isfinite(x));
}

TEST_CASE("the induction task repeats a block of distinct tokens and scores only the repeat", "[trainer][tasks]") {
    const std::size_t T = 32;
    attnlab::task_spec spec;
    const attnlab::task_sampler s(spec, 32, T, "test");
    const auto range = attnlab::induction_block_range(32, T);
    CHECK(range.shortest == 4);
    CHECK(range.longest == 15);
    attnlab::normal_generator rng(7);
    attnlab::task_batch b;
    s.sample(rng, 64, b);
    std::set<std::size_t> lengths;
    for (std::size_t e = 0; e < 64; ++e) {
        const std::int32_t* tok = b.tokens.data() + e * T;
        // the block length L is the first position whose token came before
        std::size_t L = 1;
        while (L < T && std::find(tok, tok + L, tok[L]) == tok + L) ++L;
        lengths.insert(L);
        REQUIRE(L >= 4);
        REQUIRE(L <= 15);
        for (std::size_t t = 0; t < T; ++t) {
            REQUIRE(tok[t] == tok[t % L]);
            REQUIRE(b.targets[e * T + t] == tok[(t + 1) % L]);
            REQUIRE(b.scored[e * T + t] == (t >= L ? 1 : 0));
        }
    }
    CHECK(lengths.size() >= 8);  // the block length varies
}

TEST_CASE("copy, reverse and sort put the answer after a separator and score only it", "[trainer][tasks]") {
    const std::size_t T = 9, V = 6, k = 4;  // an odd context ends on one more separator
    for (task_kind kind : {task_kind::copy, task_kind::reverse, task_kind::sort}) {
        attnlab::task_spec spec;
        spec.kind = kind;
        const attnlab::task_sampler s(spec, V, T, "test");
        attnlab::normal_generator rng(3);
        std::vector<std::int32_t> x(T + 1);
        std::vector<std::uint8_t> scored(T);
        s.example(rng, x.data(), scored.data());
        std::vector<std::int32_t> input(x.begin(), x.begin() + k), answer(x.begin() + k + 1, x.begin() + 2 * k + 1);
        for (std::int32_t t : input) REQUIRE(t < std::int32_t(V - 1));
        REQUIRE(x[k] == std::int32_t(V - 1));
        REQUIRE(x[T] == std::int32_t(V - 1));
        if (kind == task_kind::reverse) std::reverse(input.begin(), input.end());
        if (kind == task_kind::sort) std::sort(input.begin(), input.end());
        REQUIRE(answer == input);
        for (std::size_t t = 0; t < T; ++t) REQUIRE(scored[t] == (t >= k && t < 2 * k ? 1 : 0));
    }
}

TEST_CASE("author sequences are padded and scored from scoreFrom; text windows come from the stream", "[trainer][tasks]") {
    attnlab::task_spec spec;
    spec.kind = task_kind::sequences;
    spec.sequences = {{1, 2, 3, 4}};
    spec.score_from = 1;
    const attnlab::task_sampler s(spec, 5, 6, "test");
    attnlab::normal_generator rng(1);
    std::vector<std::int32_t> x(7);
    std::vector<std::uint8_t> scored(6);
    s.example(rng, x.data(), scored.data());
    CHECK(x == std::vector<std::int32_t>{1, 2, 3, 4, 0, 0, 0});
    CHECK(scored == std::vector<std::uint8_t>{0, 1, 1, 0, 0, 0});  // predicting 3 and 4
    attnlab::task_spec text;
    text.kind = task_kind::text;
    for (int i = 0; i < 50; ++i) text.stream.push_back(i % 7);
    const attnlab::task_sampler t(text, 7, 5, "test");
    t.example(rng, x.data(), scored.data());
    for (std::size_t i = 1; i < 6; ++i) CHECK(x[i] == (x[i - 1] + 1) % 7);
}

TEST_CASE("text with repeats copies a window's first L tokens right after them, then goes on with the stream", "[trainer][tasks]") {
    attnlab::task_spec text;
    text.kind = task_kind::text;
    for (int i = 0; i < 500; ++i) text.stream.push_back(i % 97);  // every window of < 97 tokens: distinct ids
    text.repeats = 0.5;
    const std::size_t T = 32;
    const attnlab::task_sampler sampler(text, 97, T, "test");
    attnlab::normal_generator rng(11);
    std::vector<std::int32_t> x(T + 1);
    std::vector<std::uint8_t> scored(T);
    std::set<std::size_t> lengths;
    int repeated = 0;
    for (int e = 0; e < 200; ++e) {
        sampler.example(rng, x.data(), scored.data());
        // L: the first position whose token came before (0 when none did)
        std::size_t L = 0;
        for (std::size_t t = 1; t <= T && L == 0; ++t) {
            if (std::find(x.begin(), x.begin() + std::ptrdiff_t(t), x[t]) != x.begin() + std::ptrdiff_t(t)) L = t;
        }
        for (std::size_t t = 0; t < T; ++t) REQUIRE(scored[t] == 1);
        if (L == 0) {
            for (std::size_t t = 1; t <= T; ++t) REQUIRE(x[t] == (x[t - 1] + 1) % 97);  // a plain window
            continue;
        }
        ++repeated;
        lengths.insert(L);
        REQUIRE(L >= 4);   // T / 8
        REQUIRE(L <= 16);  // T / 2
        for (std::size_t t = 0; t < L; ++t) REQUIRE(x[L + t] == x[t]);
        for (std::size_t t = 2 * L; t <= T; ++t) REQUIRE(x[t] == (x[0] + std::int32_t(t - L)) % 97);  // the stream after the L tokens
    }
    CHECK(repeated > 70);
    CHECK(repeated < 130);
    CHECK(lengths.size() > 8);
    text.repeats = 1.5;
    CHECK_THROWS_WITH(attnlab::task_sampler(text, 97, T, "createTrainer"), "createTrainer: repeats = 1.5; expected a fraction from 0 to 1");
    attnlab::task_spec other;
    other.repeats = 0.25;
    CHECK_THROWS_WITH(attnlab::task_sampler(other, 97, T, "createTrainer"),
                      "createTrainer: repeats = 0.25 but task is 'induction'; expected repeats only with task 'text'");
}

TEST_CASE("a learning rate of 10 diverges: the run stops, names the step, and refuses more steps", "[trainer]") {
    trainer_options o = small();
    o.optimiser.lr = 10;
    trainer t(o);
    std::vector<double> losses(50, -1.0);
    const auto r = t.step(50, losses.data());
    REQUIRE(r.diverged);
    REQUIRE(t.diverged());
    CHECK(t.diverged_at() == r.step + 1);  // the step whose loss diverged was not applied
    for (std::size_t i = 0; i < r.step; ++i) CHECK(std::isfinite(losses[i]));
    CHECK_THROWS_WITH(t.step(1), Catch::StartsWith("Trainer.step: the run diverged at step " + std::to_string(r.step + 1)));
}

TEST_CASE("attention on the learner's tokens gives rows that sum to 1 and nothing above the diagonal", "[trainer]") {
    trainer t(small());
    t.step(5);
    const std::int32_t tokens[] = {3, 1, 4, 1, 5, 9, 2};
    const auto& c = t.options().model;
    std::vector<float> p(c.layers * c.heads * 7 * 7);
    t.attention(tokens, 7, p.data());
    for (std::size_t s = 0; s < c.layers * c.heads; ++s) {
        for (std::size_t i = 0; i < 7; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < 7; ++j) {
                const float w = p[(s * 7 + i) * 7 + j];
                if (j > i) REQUIRE(w == 0.0f);
                sum += w;
            }
            REQUIRE(sum == Approx(1.0).epsilon(1e-5));
        }
    }
    CHECK_THROWS_MATCHES(t.attention(tokens, 0, p.data()), argument_error,
                         Message("Trainer.attention: tokens has 0 entries; expected 1 to 12 (seqLen)"));
    const std::int32_t bad[] = {3, 12};
    CHECK_THROWS_MATCHES(t.attention(bad, 2, p.data()), argument_error,
                         Message("Trainer.attention: tokens[1] = 12; expected a token id from 0 to 11 (vocab = 12)"));
}

TEST_CASE("weights copied into a new trainer give the same attention and evaluation", "[trainer]") {
    trainer a(small());
    a.step(30);
    trainer_options o = small();
    o.seed = 99;
    trainer b(o);
    b.set_weights(a.model().params(), a.model().param_count(), "loadTrainer");
    CHECK(a.evaluate().loss == b.evaluate().loss);
    std::vector<float> w(a.model().param_count(), 0.0f);
    CHECK_THROWS_MATCHES(b.set_weights(w.data(), w.size() - 1, "loadTrainer"), argument_error,
                         Message("loadTrainer: the weights hold " + std::to_string(w.size() - 1) + " numbers; expected " +
                                 std::to_string(w.size()) + " for this model"));
    w[12 * 16 + 3] = NAN;  // positionEmbedding[0, 3]
    CHECK_THROWS_MATCHES(b.set_weights(w.data(), w.size(), "loadTrainer"), argument_error,
                         Message("loadTrainer: positionEmbedding[0, 3] is NaN; expected finite weights"));
}

TEST_CASE("the learning rate warms up linearly, decays along a cosine to minLr, then stays there", "[trainer]") {
    attnlab::lr_schedule s;
    CHECK(attnlab::scheduled_lr(0.01, s, 1) == 0.01);  // the default: constant
    CHECK(attnlab::scheduled_lr(0.01, s, 5000) == 0.01);
    s.warmup_steps = 10;
    s.decay_steps = 100;
    s.min_lr = 0.001;
    CHECK(attnlab::scheduled_lr(0.01, s, 1) == Approx(0.001));
    CHECK(attnlab::scheduled_lr(0.01, s, 5) == Approx(0.005));
    CHECK(attnlab::scheduled_lr(0.01, s, 10) == Approx(0.01));
    CHECK(attnlab::scheduled_lr(0.01, s, 60) == Approx(0.0055));  // half way down the cosine
    CHECK(attnlab::scheduled_lr(0.01, s, 110) == Approx(0.001));
    CHECK(attnlab::scheduled_lr(0.01, s, 500) == Approx(0.001));
    s.warmup_steps = 0;
    CHECK(attnlab::scheduled_lr(0.01, s, 1) == Approx(0.001 + 0.009 * 0.5 * (1 + std::cos(3.14159265358979 / 100))));
}

TEST_CASE("a run with a schedule takes its own path, the same every time; without one the steps are unchanged", "[trainer]") {
    trainer_options o = small();
    o.schedule.warmup_steps = 5;
    o.schedule.decay_steps = 15;
    o.schedule.min_lr = 1e-4;
    trainer a(o), b(o), plain(small());
    std::vector<double> la(20), lb(20), lp(20);
    a.step(20, la.data());
    b.step(20, lb.data());
    plain.step(20, lp.data());
    CHECK(la == lb);
    CHECK(la[0] == lp[0]);  // the first loss is before any update
    CHECK(la[1] != lp[1]);
    o.schedule.min_lr = o.optimiser.lr * 2;
    CHECK_THROWS_WITH(trainer(o), "createTrainer: minLr = 0.006; expected a learning rate from 0 to lr = 0.003");
    o.schedule.min_lr = 0;
    o.schedule.warmup_steps = 2.5;
    CHECK_THROWS_WITH(trainer(o), Catch::StartsWith("createTrainer: warmupSteps = 2.5; expected a whole number from 0 to"));
    o.schedule.warmup_steps = 0;
    o.schedule.decay_steps = -1;
    CHECK_THROWS_WITH(trainer(o), Catch::StartsWith("createTrainer: decaySteps = -1; expected a whole number from 0 to"));
}

TEST_CASE("bad training options are refused by name", "[trainer]") {
    trainer_options o = small();
    o.optimiser.lr = 0;
    CHECK_THROWS_MATCHES(trainer(o), argument_error,
                         Message("createTrainer: lr = 0; expected a learning rate above 0 and at most 100"));
    o.optimiser.lr = NAN;
    CHECK_THROWS_WITH(trainer(o), "createTrainer: lr = NaN; expected a learning rate above 0 and at most 100");
    o = small();
    o.optimiser.weight_decay = -0.5;
    CHECK_THROWS_WITH(trainer(o), "createTrainer: weightDecay = -0.5; expected a number from 0 to 1");
    o = small();
    o.seed = 1.5;
    CHECK_THROWS_WITH(trainer(o), Catch::StartsWith("createTrainer: seed = 1.5; expected a whole number from 0 to 2^53 - 1"));
    o = small(task_kind::copy);
    o.model.vocab = 2;
    CHECK_THROWS_WITH(trainer(o), "createTrainer: vocab = 2; expected at least 3 for the copy task (2 token ids and the separator)");
    o = small(task_kind::sequences);
    CHECK_THROWS_WITH(trainer(o), "createTrainer: sequences is empty; expected at least one sequence of token ids");
    o.task.sequences = {{1, 2, 3}, {4, 12}};
    CHECK_THROWS_WITH(trainer(o), "createTrainer: sequences[1][1] = 12; expected a token id from 0 to 11 (vocab = 12)");
    o.task.sequences = {{1, 2, 3}, std::vector<std::int32_t>(14, 1)};
    CHECK_THROWS_WITH(trainer(o), "createTrainer: sequences[1] has 14 tokens; expected 2 to 13 (seqLen + 1: the model reads "
                                  "seqLen tokens and predicts each next one)");
    o.task.sequences = {{1, 2, 3}};
    o.task.score_from = 2;
    CHECK_THROWS_WITH(trainer(o), "createTrainer: sequences[0] has 3 tokens, so with scoreFrom = 2 none of its positions is "
                                  "scored; expected at least scoreFrom + 2 tokens");
    o = small(task_kind::text);
    o.task.stream = {1, 2, 3};
    CHECK_THROWS_WITH(trainer(o), "createTrainer: text has 3 tokens; expected at least 13 (seqLen + 1)");
    o = small();
    o.model.seq_len = 3;
    CHECK_THROWS_WITH(trainer(o), Catch::StartsWith("createTrainer: seqLen = 3; expected at least 4 for the induction task"));
    trainer t(small());
    CHECK_THROWS_WITH(t.step(0), "Trainer.step: count = 0; expected a whole number from 1 to 100000");
}

TEST_CASE("the induction task records each update's best head scores, and the first head to form, however the run is cut", "[trainer]") {
    trainer_options o;  // the widget's defaults: an induction head forms at about step 200
    trainer whole(o), pieces(o), polled(o);
    constexpr std::size_t N = 260;
    std::vector<double> induction(N), previous(N), accuracy(N), losses(N);
    attnlab::step_record record;
    record.losses = losses.data();
    record.accuracies = accuracy.data();
    record.induction = induction.data();
    record.previous = previous.data();
    REQUIRE(whole.records_heads());
    whole.step(N, record);
    for (std::size_t done = 0; done < N; done += 37) {
        attnlab::step_record part;
        part.induction = induction.data() + done;  // overwritten with the same numbers
        pieces.step(std::min<std::size_t>(37, N - done), part);
    }
    // the independent reading: head_scores() after every single update
    std::size_t first = 0;
    for (std::size_t s = 1; s <= N; ++s) {
        polled.step(1);
        const auto heads = polled.head_scores();
        double best = 0, prev = 0;
        for (const auto& h : heads) {
            best = std::max(best, h.induction);
            prev = std::max(prev, h.previous_token_first_copy);
            CHECK(h.previous_token_first_copy >= 0);
            CHECK(h.previous_token_first_copy <= 1);
        }
        CHECK(induction[s - 1] == best);
        CHECK(previous[s - 1] == prev);
        if (!first && best >= trainer::formed_threshold) first = s;
        CHECK(accuracy[s - 1] >= 0);
        CHECK(accuracy[s - 1] <= 1);
    }
    REQUIRE(first > 0);
    CHECK(whole.formed().step == first);
    CHECK(pieces.formed().step == first);
    CHECK(polled.formed().step == first);
    CHECK(whole.formed().layer == 1);
    CHECK(whole.formed().score >= trainer::formed_threshold);
    CHECK(induction[first - 2] < trainer::formed_threshold);
    // other tasks do not score their heads on the probe
    trainer copy(small(task_kind::copy));
    CHECK_FALSE(copy.records_heads());
    std::vector<double> none(3, -1.0);
    attnlab::step_record r;
    r.induction = none.data();
    copy.step(3, r);
    CHECK(none[0] == -1.0);
    CHECK(copy.formed().step == 0);
}

TEST_CASE("the step result averages the last 50 losses, keeps the best such mean, and says when the run gets worse", "[trainer]") {
    trainer_options o;
    o.optimiser.lr = 0.03;  // forms an induction head, then unlearns it
    trainer t(o);
    std::vector<double> losses(1500);
    std::size_t rising_at = 0, worse_at = 0;
    double best = 1e300;
    std::size_t best_at = 0;
    for (std::size_t s = 1; s <= 1500 && !worse_at; ++s) {
        const auto r = t.step(1, losses.data() + s - 1);
        const std::size_t n = std::min<std::size_t>(s, trainer::loss_window);
        double sum = 0;
        for (std::size_t i = s - n; i < s; ++i) sum += losses[i];
        CHECK(r.recent_loss == Approx(sum / double(n)).epsilon(1e-12));
        if (s >= trainer::loss_window && r.recent_loss < best) {
            best = r.recent_loss;
            best_at = s;
        }
        if (s >= trainer::loss_window) {
            CHECK(r.best_loss == best);
            CHECK(r.best_at == best_at);
        }
        CHECK(r.rising == (s >= trainer::loss_window && r.recent_loss > best + trainer::rise_limit));
        CHECK(r.worse_than_uniform == (r.rising && r.recent_loss > t.uniform_loss()));
        if (r.rising && !rising_at) rising_at = s;
        if (r.worse_than_uniform) worse_at = s;
    }
    CHECK(t.formed().step > 0);
    CHECK(t.formed().step < rising_at);
    REQUIRE(worse_at > 0);
    CHECK(rising_at < worse_at);
    CHECK_FALSE(t.diverged());
    // the default rate never rises
    trainer calm{trainer_options{}};
    bool rose = false;
    for (int i = 0; i < 600; ++i) rose = rose || calm.step(1).rising;
    CHECK_FALSE(rose);
}
