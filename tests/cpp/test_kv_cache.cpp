#include <catch2/catch.hpp>

#include <random>

#include <xtensor/xview.hpp>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kv_cache.hpp"
#include "reference.hpp"

using attnlab::argument_error;
using attnlab::kv_cache;
using attnlab::tensor;
using Catch::Matchers::Message;

namespace {

// Every step's row equals row t of full causal attention over the tokens so far, head by head
// (query head h reading key/value head h / (heads / kv_heads)), against the float64 reference.
void check_every_step(std::size_t heads, std::size_t kv_heads, std::size_t d, std::size_t steps, unsigned seed) {
    std::mt19937 gen(seed);
    kv_cache cache(double(heads), double(kv_heads), double(d), double(steps), std::nullopt);
    std::vector<tensor> qs, ks, vs;
    double worst = 0, with_total = 0, without_total = 0;
    for (std::size_t t = 0; t < steps; ++t) {
        qs.push_back(ref::random_tensor({heads, d}, gen));
        ks.push_back(ref::random_tensor({kv_heads, d}, gen));
        vs.push_back(ref::random_tensor({kv_heads, d}, gen, -1, 1));
        REQUIRE(cache.append(ks[t], vs[t]) == t + 1);
        const auto step = cache.attend(qs[t]);
        REQUIRE(attnlab::shape_of(step.weights) == attnlab::shape_t{heads, t + 1});
        for (std::size_t h = 0; h < heads; ++h) {
            const std::size_t g = h / (heads / kv_heads);
            std::vector<float> q, k, v;  // all tokens so far, for this head: [t + 1, d]
            for (std::size_t s = 0; s <= t; ++s) {
                q.insert(q.end(), qs[s].data() + h * d, qs[s].data() + (h + 1) * d);
                k.insert(k.end(), ks[s].data() + g * d, ks[s].data() + (g + 1) * d);
                v.insert(v.end(), vs[s].data() + g * d, vs[s].data() + (g + 1) * d);
            }
            const auto full = ref::attention(q.data(), k.data(), v.data(), t + 1, t + 1, d, d, 1 / std::sqrt(double(d)),
                                             [](std::size_t i, std::size_t j) { return j <= i; });
            for (std::size_t j = 0; j <= t; ++j) {
                worst = std::max(worst, std::abs(double(step.weights(h, j)) - full.weights[t * (t + 1) + j]));
            }
            for (std::size_t c = 0; c < d; ++c) {
                worst = std::max(worst, std::abs(double(step.output(h, c)) - full.output[t * d + c]));
            }
        }
        CHECK(step.multiply_adds == double(heads) * (t + 1) * 2 * d);
        CHECK(step.multiply_adds_without_cache == double(heads) * (t + 1) * (t + 2) / 2 * 2 * d);
        with_total += step.multiply_adds;
        without_total += step.multiply_adds_without_cache;
        CHECK(step.decode_multiply_adds == with_total);
        CHECK(step.decode_multiply_adds_without_cache == without_total);
    }
    INFO("max |cache - full causal| = " << worst);
    CHECK(worst <= 1e-6);
    CHECK(cache.bytes() == 2.0 * steps * kv_heads * d * 4);
}

}  // namespace

TEST_CASE("every cached decoding step equals the last row of full causal attention", "[kv]") {
    SECTION("multi-head: one key/value head per query head") { check_every_step(4, 4, 8, 24, 1); }
    SECTION("grouped-query: two query heads per key/value head") { check_every_step(4, 2, 8, 24, 2); }
    SECTION("multi-query: one key/value head for all") { check_every_step(6, 1, 5, 20, 3); }
}

TEST_CASE("the cache agrees with the engine's own causal attention at every step", "[kv]") {
    std::mt19937 gen(4);
    const std::size_t n = 17, d = 6;
    const tensor q = ref::random_tensor({n, d}, gen), k = ref::random_tensor({n, d}, gen), v = ref::random_tensor({n, d}, gen);
    attnlab::attention_options causal;
    causal.causal = true;
    const auto full = attnlab::attention(q, k, v, causal);
    kv_cache cache(1, 1, double(d), double(n), std::nullopt);
    for (std::size_t t = 0; t < n; ++t) {
        const tensor kt = xt::view(k, xt::range(t, t + 1), xt::all());
        const tensor vt = xt::view(v, xt::range(t, t + 1), xt::all());
        const tensor qt = xt::view(q, xt::range(t, t + 1), xt::all());
        cache.append(kt, vt);
        const auto step = cache.attend(qt);
        for (std::size_t c = 0; c < d; ++c) CHECK(std::abs(step.output(0, c) - full.output(t, c)) <= 1e-6);
    }
}

TEST_CASE("bad cache sizes and calls are rejected by name", "[kv][errors]") {
    CHECK_THROWS_MATCHES(kv_cache(8, 3, 4, 10, std::nullopt), argument_error,
                         Message("createKVCache: kvHeads = 3 does not divide heads = 8; expected a divisor of heads "
                                 "(heads itself, or 1 for multi-query)"));
    CHECK_THROWS_MATCHES(kv_cache(8, 0, 4, 10, std::nullopt), argument_error,
                         Message("createKVCache: kvHeads = 0; expected a whole number from 1 to 2^53"));
    CHECK_THROWS_MATCHES(kv_cache(1, 1, 64, 1e7, std::nullopt), argument_error,
                         Message("createKVCache: maxLength = 10000000 needs 2 x 10000000 x 1 x 64 floats, more than "
                                 "the limit of 268435456; expected a smaller maxLength"));
    kv_cache cache(2, 1, 3, 2, std::nullopt);
    const tensor k = attnlab::zeros({1, 3}), wide = attnlab::zeros({1, 4});
    CHECK_THROWS_MATCHES(cache.attend(attnlab::zeros({2, 3})), argument_error,
                         Message("KVCache.attend: the cache is empty; expected append(k, v) before attend(q)"));
    CHECK_THROWS_MATCHES(cache.append(wide, k), argument_error,
                         Message("KVCache.append: k has shape [1, 4]; expected [kvHeads, dHead] = [1, 3]"));
    cache.append(k, k);
    cache.append(k, k);
    CHECK_THROWS_MATCHES(cache.append(k, k), argument_error,
                         Message("KVCache.append: the cache is full at maxLength = 2 tokens; expected at most maxLength "
                                 "appends (create a larger cache)"));
    CHECK(cache.length() == 2);
    CHECK_THROWS_MATCHES(cache.attend(attnlab::zeros({1, 3})), argument_error,
                         Message("KVCache.attend: q has shape [1, 3]; expected [heads, dHead] = [2, 3]"));
}

TEST_CASE("a cache too large for the float limit names the sizes that make it so", "[kv][errors]") {
    // A 2^31-wide head is too wide whatever maxLength is: the message names heads and dHead.
    CHECK_THROWS_MATCHES(kv_cache(2, 2, 2147483648.0, 4, std::nullopt), argument_error,
                         Message("createKVCache: heads x dHead = 4294967296 is more than the limit of 268435456; "
                                 "expected smaller sizes"));
    CHECK_THROWS_MATCHES(kv_cache(16384, 16384, 16384, 1, std::nullopt), argument_error,
                         Message("createKVCache: one token's keys and values, 2 x kvHeads x dHead = 536870912 floats, "
                                 "are more than the limit of 268435456; expected smaller sizes"));
    // Sizes past what size_t holds are refused before they are narrowed (a 32-bit build), or
    // kept whole and then refused by the limit (64-bit): never a cache of another size.
    for (const double big : {4294967296.0, 4294967298.0, 9007199254740992.0}) {
        CHECK_THROWS_AS(kv_cache(big, 2, 2, 4, std::nullopt), argument_error);
        CHECK_THROWS_AS(kv_cache(2, 2, big, 4, std::nullopt), argument_error);
        CHECK_THROWS_AS(kv_cache(2, 2, 2, big, std::nullopt), argument_error);
    }
}
