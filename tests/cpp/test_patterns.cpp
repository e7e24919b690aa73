#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/patterns.hpp"

using attnlab::find_pattern_problem;
using attnlab::pattern_fault;
using attnlab::pattern_rule;
using attnlab::row_sum_tolerance;
using attnlab::score_patterns;
using attnlab::tensor;

namespace {

tensor patterns(std::size_t count, std::size_t m, std::size_t n, const std::vector<float>& values) {
    tensor t = attnlab::empty({count, m, n});
    std::copy(values.begin(), values.end(), t.data());
    return t;
}

// Two causal 3 x 3 patterns: the first puts everything on the previous token (row 0 on itself),
// the second spreads each row evenly over the keys it sees.
tensor two_causal_heads() {
    return patterns(2, 3, 3, {
        1, 0, 0, /**/ 1, 0, 0, /**/ 0, 1, 0,
        1, 0, 0, /**/ 0.5f, 0.5f, 0, /**/ 1 / 3.0f, 1 / 3.0f, 1 / 3.0f,
    });
}

const pattern_rule causal{std::nullopt, true};
const pattern_rule bidirectional{std::nullopt, false};
const attnlab::pattern_keys no_tokens;

attnlab::pattern_keys ids(std::vector<std::int32_t> tokens) {
    attnlab::pattern_keys k;
    k.tokens = std::move(tokens);
    return k;
}

}  // namespace

TEST_CASE("the row-sum tolerance is 1e-3, plus half a unit of the last kept decimal per key when rounded", "[patterns]") {
    CHECK(row_sum_tolerance(128, std::nullopt) == Approx(1e-3));
    CHECK(row_sum_tolerance(128, 3) == Approx(1e-3 + 128 * 0.0005));
    CHECK(row_sum_tolerance(10, 2) == Approx(1e-3 + 10 * 0.005));
}

TEST_CASE("causal patterns whose rows sum to 1 pass, and so does a row of zeros", "[patterns]") {
    tensor p = two_causal_heads();
    CHECK_FALSE(find_pattern_problem(p, causal, "t"));
    p(0, 1, 0) = 0;  // a row that sees no key
    CHECK_FALSE(find_pattern_problem(p, causal, "t"));
}

TEST_CASE("the first fault is reported with its pattern, row, column and value", "[patterns]") {
    tensor p = two_causal_heads();
    SECTION("NaN") {
        p(1, 1, 1) = std::numeric_limits<float>::quiet_NaN();
        const auto f = find_pattern_problem(p, {}, "t");
        REQUIRE(f);
        CHECK(f->fault == pattern_fault::not_finite);
        CHECK((f->pattern == 1 && f->row == 1 && f->column == 1));
        CHECK(std::isnan(f->value));
    }
    SECTION("an infinity") {
        p(0, 0, 2) = std::numeric_limits<float>::infinity();
        const auto f = find_pattern_problem(p, {}, "t");
        REQUIRE(f);
        CHECK(f->fault == pattern_fault::not_finite);
        CHECK((f->pattern == 0 && f->row == 0 && f->column == 2));
    }
    SECTION("a negative weight, even where the row still sums to 1") {
        p(1, 2, 0) = -0.25f;
        p(1, 2, 1) = 0.75f;
        p(1, 2, 2) = 0.5f;
        const auto f = find_pattern_problem(p, {}, "t");
        REQUIRE(f);
        CHECK(f->fault == pattern_fault::negative);
        CHECK((f->pattern == 1 && f->row == 2 && f->column == 0));
        CHECK(f->value == -0.25);
    }
    SECTION("a row that sums to 0.9, with the sum and the tolerance") {
        p(1, 1, 0) = 0.4f;
        const auto f = find_pattern_problem(p, {}, "t");
        REQUIRE(f);
        CHECK(f->fault == pattern_fault::row_sum);
        CHECK((f->pattern == 1 && f->row == 1));
        CHECK(f->value == Approx(0.9));
        CHECK(f->tolerance == Approx(1e-3));
    }
    SECTION("weight on a later key of a causal pattern, but not when the pattern is not called causal") {
        p(0, 0, 0) = 0.5f;
        p(0, 0, 1) = 0.5f;
        const auto f = find_pattern_problem(p, causal, "t");
        REQUIRE(f);
        CHECK(f->fault == pattern_fault::future_weight);
        CHECK((f->pattern == 0 && f->row == 0 && f->column == 1));
        CHECK(f->tolerance == attnlab::causal_leak_tolerance);
        CHECK_FALSE(find_pattern_problem(p, {}, "t"));
    }
}

TEST_CASE("weights rounded to 2 decimals pass when the rule says so, and fail the float tolerance otherwise", "[patterns]") {
    // 40 keys of 0.025 each, rounded to 0.03: the row sums to 1.2, off by 0.2, within
    // 1e-3 + 40 x 0.005 = 0.201
    const tensor row = patterns(1, 1, 40, std::vector<float>(40, 0.03f));
    CHECK_FALSE(find_pattern_problem(row, pattern_rule{2.0, false}, "t"));
    const auto f = find_pattern_problem(row, {}, "t");
    REQUIRE(f);
    CHECK(f->fault == pattern_fault::row_sum);
    CHECK(f->value == Approx(1.2));
}

TEST_CASE("a decimals rule that is not a whole number from 0 to 8 and patterns that are not [count, m, n] are errors naming the function", "[patterns]") {
    const tensor one = patterns(1, 1, 1, {1});
    CHECK_THROWS_WITH(find_pattern_problem(one, pattern_rule{9.0, false}, "t"),
                      "t: decimals = 9; expected a whole number from 0 to 8");
    CHECK_THROWS_WITH(find_pattern_problem(one, pattern_rule{2.5, false}, "t"),
                      "t: decimals = 2.5; expected a whole number from 0 to 8");
    CHECK_THROWS_WITH(find_pattern_problem(attnlab::empty({2, 2}), {}, "t"),
                      "t: attentions has shape [2, 2]; expected [patterns, queries, keys] with no zero extent");
    CHECK_THROWS_WITH(score_patterns(attnlab::empty({1, 0, 0}), causal, true, no_tokens, "t"),
                      "t: attentions has shape [1, 0, 0]; expected [patterns, queries, keys] with no zero extent");
}

TEST_CASE("score_patterns scores each pattern on its own, in order", "[patterns]") {
    const tensor p = two_causal_heads();
    const auto s = score_patterns(p, causal, true, ids({5, 6, 7}), "t");
    REQUIRE(s.size() == 2);
    // head 0: rows 1, 2 both all on key i - 1
    CHECK(*s[0].previous_token == Approx(1.0));
    CHECK(*s[0].diagonal == Approx(0.0));
    CHECK(*s[0].entropy == Approx(0.0));
    // head 1: row 1 = [1/2, 1/2], row 2 = [1/3, 1/3, 1/3]
    CHECK(*s[1].previous_token == Approx((0.5 + 1 / 3.0) / 2));
    CHECK(*s[1].first_token == Approx((0.5 + 1 / 3.0) / 2));
    CHECK(*s[1].entropy == Approx((std::log(2.0) + std::log(3.0)) / 3));
    // no token repeats: no row to score prefix matching on
    CHECK_FALSE(s[1].prefix_matching);
    // a repeat of token 5 at position 2: its key after the earlier copy is 1, where head 0 looks
    CHECK(*score_patterns(p, causal, true, ids({5, 6, 5}), "t")[0].prefix_matching == Approx(1.0));
    CHECK_THROWS_WITH(score_patterns(p, causal, true, ids({5, 6}), "t"), "t: tokens has 2 ids and special 0 flags but the patterns have 3 keys; expected one per key (or none)");
    attnlab::pattern_keys two_flags;
    two_flags.special = {1, 0};
    CHECK_THROWS_WITH(score_patterns(p, causal, true, two_flags, "t"), "t: tokens has 0 ids and special 2 flags but the patterns have 3 keys; expected one per key (or none)");
    // causal: the next token is hidden by the mask, so there is no next-token score
    CHECK_FALSE(s[0].next_token);
    CHECK_FALSE(s[1].special_tokens);
}

TEST_CASE("cross-attention patterns get only an entropy, and self-attention must be square", "[patterns]") {
    const tensor p = patterns(1, 2, 3, {0.5f, 0.5f, 0, 1, 0, 0});  // 2 queries over 3 keys
    const auto s = score_patterns(p, bidirectional, false, no_tokens, "t");
    REQUIRE(s.size() == 1);
    CHECK(*s[0].entropy == Approx(std::log(2.0) / 2));
    CHECK_FALSE(s[0].previous_token);
    CHECK_FALSE(s[0].first_token);
    CHECK_FALSE(s[0].diagonal);
    CHECK_FALSE(s[0].prefix_matching);
    CHECK_FALSE(s[0].next_token);
    CHECK_THROWS_WITH(score_patterns(p, bidirectional, true, no_tokens, "t"), "t: self-attention patterns are square; got 2 queries and 3 keys");
}

namespace {

// Float64 reference of every score of one self-attention pattern, from the definitions in
// head_scores.hpp, written as plain loops over a double copy of the weights.
struct reference_scores {
    double entropy = 0, previous = 0, first = 0, diagonal = 0, next = 0, special = 0, prefix = 0;
    std::size_t prefix_rows = 0;
};

reference_scores reference(const std::vector<double>& p, std::size_t n, const std::vector<std::int32_t>& tokens,
                           const std::vector<std::int32_t>& special) {
    reference_scores r;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const double w = p[i * n + j];
            if (w > 0) r.entropy -= w * std::log(w) / double(n);
        }
    }
    for (std::size_t i = 1; i < n; ++i) {
        r.previous += p[i * n + i - 1] / double(n - 1);
        r.first += p[i * n] / double(n - 1);
        r.diagonal += p[i * n + i] / double(n - 1);
        for (std::size_t j = 1; j < n; ++j) {
            if (special[j]) r.special += p[i * n + j] / double(n - 1);
        }
    }
    for (std::size_t i = 0; i + 1 < n; ++i) r.next += p[i * n + i + 1] / double(n - 1);
    double prefix_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double w = 0;
        bool repeat = false;
        for (std::size_t j = 0; j < i; ++j) {
            if (tokens[j] == tokens[i]) {
                repeat = true;
                w += p[i * n + j + 1];
            }
        }
        if (repeat) {
            prefix_sum += w;
            ++r.prefix_rows;
        }
    }
    r.prefix = r.prefix_rows ? prefix_sum / double(r.prefix_rows) : 0;
    return r;
}

// A seeded random pattern whose rows sum to 1 (a causal one when asked), as float weights and
// their exact double copy.
void random_pattern(std::size_t n, bool causal, unsigned seed, std::vector<float>& f, std::vector<double>& d) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    f.assign(n * n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t seen = causal ? i + 1 : n;
        double total = 0;
        for (std::size_t j = 0; j < seen; ++j) {
            f[i * n + j] = float(std::pow(u(rng), 3.0));  // peaked, as real heads are
            total += f[i * n + j];
        }
        for (std::size_t j = 0; j < seen; ++j) f[i * n + j] = float(f[i * n + j] / total);
    }
    d.assign(f.begin(), f.end());
}

}  // namespace

TEST_CASE("every score of random causal and bidirectional patterns matches a float64 reference of its definition", "[patterns]") {
    const std::size_t n = 15;
    // BERT's sentence pair: [CLS] the cat sat on the mat [SEP] the cat lay on the rug [SEP]
    const std::vector<std::int32_t> tokens = {0, 1, 2, 3, 4, 1, 5, 6, 1, 2, 7, 4, 1, 8, 6};
    const std::vector<std::int32_t> special = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1};
    attnlab::pattern_keys keys;
    keys.tokens = tokens;
    keys.special = special;
    for (const bool is_causal : {true, false}) {
        for (unsigned seed = 1; seed <= 5; ++seed) {
            std::vector<float> f;
            std::vector<double> d;
            random_pattern(n, is_causal, seed, f, d);
            const auto s = score_patterns(patterns(1, n, n, f), is_causal ? causal : bidirectional, true, keys, "t");
            const reference_scores r = reference(d, n, tokens, special);
            INFO("causal " << is_causal << ", seed " << seed);
            CHECK(*s[0].entropy == Approx(r.entropy).epsilon(1e-12));
            CHECK(*s[0].previous_token == Approx(r.previous).epsilon(1e-12));
            CHECK(*s[0].first_token == Approx(r.first).epsilon(1e-12));
            CHECK(*s[0].diagonal == Approx(r.diagonal).epsilon(1e-12));
            CHECK(*s[0].special_tokens == Approx(r.special).epsilon(1e-12));
            if (is_causal) {
                // the, cat, on and [SEP] repeat: six rows score prefix matching; the next token is masked
                CHECK(r.prefix_rows == 6);
                CHECK(*s[0].prefix_matching == Approx(r.prefix).epsilon(1e-12));
                CHECK_FALSE(s[0].next_token);
            } else {
                CHECK(*s[0].next_token == Approx(r.next).epsilon(1e-12));
                CHECK_FALSE(s[0].prefix_matching);
            }
        }
    }
}

TEST_CASE("a next-token head scores 1 on a bidirectional pattern, and a [SEP] head on the special-token score", "[patterns]") {
    const std::size_t n = 4;
    // head 0: row i on key i + 1 (the last row on itself); head 1: every row on key 3 ([SEP])
    const tensor p = patterns(2, n, n, {
        0, 1, 0, 0, /**/ 0, 0, 1, 0, /**/ 0, 0, 0, 1, /**/ 0, 0, 0, 1,
        0, 0, 0, 1, /**/ 0, 0, 0, 1, /**/ 0, 0, 0, 1, /**/ 0, 0, 0, 1,
    });
    attnlab::pattern_keys keys;
    keys.special = {1, 0, 0, 1};
    const auto s = score_patterns(p, bidirectional, true, keys, "t");
    CHECK(*s[0].next_token == Approx(1.0));
    CHECK(*s[0].special_tokens == Approx(2.0 / 3));  // rows 1..3: rows 2 and 3 are on key 3
    CHECK(*s[1].special_tokens == Approx(1.0));
    CHECK(*s[1].first_token == Approx(0.0));
    // key 0 alone special ([CLS]): the first-token score has it, and there is no special score
    keys.special = {1, 0, 0, 0};
    CHECK_FALSE(score_patterns(p, bidirectional, true, keys, "t")[1].special_tokens);
}
