#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attnlab/head_scores.hpp"

using attnlab::head_score_sums;
using attnlab::scores_of;

namespace {

// A causal pattern that puts weight w on key i - 1 and the rest on key i (row 0: all on itself).
std::vector<float> previous_token_pattern(std::size_t n, float w) {
    std::vector<float> p(n * n, 0.0f);
    p[0] = 1.0f;
    for (std::size_t i = 1; i < n; ++i) {
        p[i * n + i - 1] = w;
        p[i * n + i] = 1.0f - w;
    }
    return p;
}

}  // namespace

TEST_CASE("a previous-token pattern scores its weight on key i - 1 and nothing on a repeat", "[head_scores]") {
    const std::size_t n = 6;
    const auto p = previous_token_pattern(n, 0.75f);
    const std::int32_t tokens[n] = {3, 1, 4, 3, 1, 4};
    head_score_sums sums;
    sums.add_self(p.data(), n, tokens);
    const auto s = scores_of(sums);
    CHECK(*s.previous_token == Approx(0.75));
    CHECK(*s.diagonal == Approx(0.25));
    // rows 1..5 put weight on key 0 only in row 1 (its previous token): 0.75 / 5
    CHECK(*s.first_token == Approx(0.75 / 5));
    // rows 3, 4, 5 repeat a token; the key after the earlier copy is j = 1, 2, 3: never i - 1 or i
    CHECK(*s.prefix_matching == Approx(0.0));
    const double h = -(0.75 * std::log(0.75) + 0.25 * std::log(0.25));
    CHECK(*s.entropy == Approx(5 * h / 6));
}

TEST_CASE("an induction pattern scores 1 on prefix matching over the rows whose token came before", "[head_scores]") {
    // tokens a b c a b c: row 3 (a) looks at key 1 (b, after the earlier a), row 4 at 2, row 5 at 3
    const std::size_t n = 6;
    std::vector<float> p(n * n, 0.0f);
    for (std::size_t i = 0; i < 3; ++i) p[i * n + i] = 1.0f;
    for (std::size_t i = 3; i < n; ++i) p[i * n + i - 2] = 1.0f;
    const std::int32_t tokens[n] = {7, 8, 9, 7, 8, 9};
    head_score_sums sums;
    sums.add_self(p.data(), n, tokens);
    const auto s = scores_of(sums);
    CHECK(*s.prefix_matching == Approx(1.0));
    CHECK(sums.prefix_rows == 3);
    CHECK(*s.previous_token == Approx(0.0));
    CHECK(*s.entropy == Approx(0.0));
}

TEST_CASE("prefix matching sums the weight after every earlier copy, and pools rows across patterns", "[head_scores]") {
    // a b a b a: row 4 (a) has earlier copies at 0 and 2, so keys 1 and 3 count
    const std::size_t n = 5;
    std::vector<float> p(n * n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j <= i; ++j) p[i * n + j] = 1.0f / float(i + 1);
    }
    const std::int32_t tokens[n] = {1, 2, 1, 2, 1};
    head_score_sums sums;
    sums.add_self(p.data(), n, tokens);
    // row 2 (a): key 1 -> 1/3; row 3 (b): key 2 -> 1/4; row 4 (a): keys 1, 3 -> 2/5
    CHECK(sums.prefix_rows == 3);
    CHECK(*scores_of(sums).prefix_matching == Approx((1.0 / 3 + 1.0 / 4 + 2.0 / 5) / 3));
    // a second pattern adds its rows to the same means
    const auto q = previous_token_pattern(3, 1.0f);
    sums.add_self(q.data(), 3);
    CHECK(sums.later_rows == 4 + 2);
    CHECK(*scores_of(sums).previous_token == Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 2.0) / 6));
}

TEST_CASE("prefix matching apart gives a previous-token head nothing where a token comes back two places later", "[head_scores]") {
    // "The c at s at on the m at": ids 1 2 3 4 3 5 6 7 3. Row 4 (at): the key after the earlier
    // at (2) is 3, the key just before row 4; row 8 (at): keys 3 and 5, both two or more back.
    const std::size_t n = 9;
    const std::int32_t tokens[n] = {1, 2, 3, 4, 3, 5, 6, 7, 3};
    const auto prev = previous_token_pattern(n, 1.0f);
    head_score_sums a;
    a.add_self(prev.data(), n, tokens);
    const auto s = scores_of(a);
    CHECK(*s.prefix_matching == Approx(0.5));  // row 4 earns 1 from key 3 = i - 1, row 8 earns 0
    CHECK(a.prefix_apart_rows == 1);            // only row 8 has a key two or more back
    CHECK(*s.prefix_matching_apart == Approx(0.0));
    // An induction head: row 8 splits its weight between keys 3 and 5, the other rows stay on themselves.
    std::vector<float> ind(n * n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) ind[i * n + i] = 1.0f;
    ind[8 * n + 8] = 0.0f;
    ind[8 * n + 3] = 0.25f;
    ind[8 * n + 5] = 0.75f;
    head_score_sums b;
    b.add_self(ind.data(), n, tokens);
    CHECK(*scores_of(b).prefix_matching == Approx(0.5));  // row 4 puts nothing on key 3
    CHECK(*scores_of(b).prefix_matching_apart == Approx(1.0));
    // A doubled token ("x x"): the key after the first copy is the query itself, never apart.
    const std::int32_t twice[2] = {9, 9};
    std::vector<float> self = {1.0f, 0.0f, 0.0f, 1.0f};
    head_score_sums c;
    c.add_self(self.data(), 2, twice);
    CHECK(*scores_of(c).prefix_matching == Approx(1.0));
    CHECK_FALSE(scores_of(c).prefix_matching_apart.has_value());
}

TEST_CASE("a uniform head's entropy is log of its key count, and fully masked rows count nowhere", "[head_scores]") {
    const std::size_t m = 2, n = 4;
    std::vector<float> p(m * n, 0.25f);
    for (std::size_t j = 0; j < n; ++j) p[1 * n + j] = 0.0f;  // row 1 fully masked
    head_score_sums sums;
    sums.add_cross(p.data(), m, n);
    const auto s = scores_of(sums);
    CHECK(sums.rows == 1);
    CHECK(*s.entropy == Approx(std::log(4.0)));
    CHECK_FALSE(s.previous_token.has_value());
    CHECK_FALSE(s.diagonal.has_value());
    CHECK_FALSE(s.prefix_matching.has_value());
}

TEST_CASE("a one-token pattern has an entropy but no positional score", "[head_scores]") {
    const float p[1] = {1.0f};
    head_score_sums sums;
    sums.add_self(p, 1);
    const auto s = scores_of(sums);
    CHECK(*s.entropy == Approx(0.0));
    CHECK_FALSE(s.first_token.has_value());
    CHECK_FALSE(s.previous_token.has_value());
}

TEST_CASE("a row of NaN weights gives NaN scores, never the scores of the other rows or none", "[head_scores]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // a causal 3 x 3 pattern whose every row is NaN (weights that overflowed)
    const float p[9] = {nan, 0, 0, nan, nan, 0, nan, nan, nan};
    const std::int32_t tokens[3] = {1, 2, 1};
    head_score_sums sums;
    sums.add_self(p, 3, tokens);
    const attnlab::head_scores s = attnlab::scores_of(sums);
    REQUIRE(s.entropy.has_value());
    CHECK(std::isnan(*s.entropy));
    REQUIRE(s.previous_token.has_value());
    CHECK(std::isnan(*s.previous_token));
    // a fully masked row (all 0) still counts nowhere
    const float masked[4] = {0, 0, 0, 0};
    head_score_sums none;
    none.add_self(masked, 2);
    CHECK_FALSE(attnlab::scores_of(none).entropy.has_value());
}
