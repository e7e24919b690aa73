#include <catch2/catch.hpp>

#include "attnlab/cost.hpp"
#include "attnlab/errors.hpp"

using attnlab::argument_error;
using attnlab::cost_figures;
using attnlab::cost_spec;
using Catch::Matchers::Message;

TEST_CASE("cost figures count a small causal case as worked out by hand", "[cost]") {
    cost_spec spec;
    spec.m = 4;
    spec.n = 4;
    spec.d_k = 2;
    spec.block_q = 2;
    spec.block_k = 2;
    spec.causal = true;
    const auto c = cost_figures(spec);
    // Full: the 4 x 4 scores are held, written twice (scores, weights) and read back twice.
    CHECK(c.full.peak_extra_floats == 16);
    CHECK(c.full.floats_read == 4 * 2 * 3 + 2 * 16);
    CHECK(c.full.floats_written == 2 * 16 + 4 * 2);
    CHECK(c.full.multiply_adds == 16 * (2 + 2));
    // Tiled: row block 0 visits key block 0, row block 1 visits key blocks 0 and 1.
    CHECK(c.tiled.blocks_computed == 3);
    CHECK(c.tiled.blocks_skipped == 1);
    CHECK(c.tiled.floats_read == (2 * 2 + 2 * 4) + (2 * 2 + 2 * 2 * 4));
    CHECK(c.tiled.floats_written == 4 * (2 + 1));
    CHECK(c.tiled.multiply_adds == 3 * 2 * 2 * 4);
    // scores 2 x 2, a K block packed in a panel 8 columns wide (2 x 8), p V 2 x 2, max and sum
    CHECK(c.tiled.peak_extra_floats == 2 * 2 + 2 * 8 + 2 * 2 + 2 * 2);
}

TEST_CASE("a sliding window makes the tiled work grow as n w rather than n squared", "[cost][window]") {
    cost_spec spec;
    spec.d_k = 64;
    spec.window = 256;
    spec.m = spec.n = 4096;
    const double small = cost_figures(spec).tiled.multiply_adds;
    spec.m = spec.n = 8192;
    const double big = cost_figures(spec).tiled.multiply_adds;
    CHECK(big / small == Approx(2.0).epsilon(0.02));
    spec.window.reset();
    const auto full = cost_figures(spec);
    CHECK(full.full.multiply_adds == 8192.0 * 8192 * 128);
    CHECK(full.tiled.multiply_adds == full.full.multiply_adds);
    CHECK(full.tiled.blocks_skipped == 0);
}

TEST_CASE("cost figures default the blocks to 64 or the size, and refuse bad sizes by name", "[cost][errors]") {
    cost_spec spec;
    spec.m = 10;
    spec.n = 100;
    spec.d_k = 8;
    const auto c = cost_figures(spec);
    CHECK(c.block_q == 10);
    CHECK(c.block_k == 64);
    spec.block_k = 101;
    CHECK_THROWS_MATCHES(cost_figures(spec), argument_error,
                         Message("costFigures: blockK = 101; expected a whole number from 1 to 100 (n, the number of keys)"));
    spec.block_k.reset();
    spec.m = 0;
    CHECK_THROWS_MATCHES(cost_figures(spec), argument_error,
                         Message("costFigures: m = 0; expected a whole number from 1 to 2^53"));
    spec.m = 1e6;
    spec.n = 1e12;
    spec.d_k = 1e4;
    CHECK_THROWS_MATCHES(cost_figures(spec), argument_error,
                         Message("costFigures: the full method's score matrix is past 2^53, more than a JavaScript "
                                 "number holds exactly; expected smaller sizes"));
}

TEST_CASE("KV-cache bytes are 2 x layers x kv heads x d_head x bytes per token", "[cost][kv]") {
    // A 32-layer model with 32 heads of 128 in float16: half a mebibyte per token.
    const auto mha = attnlab::kv_cache_bytes(32, 32, 128, "float16", 4096, 1);
    CHECK(mha.bytes_per_token == 524288);
    CHECK(mha.bytes == 524288.0 * 4096);
    // Grouped-query with 8 KV heads: a quarter.
    CHECK(attnlab::kv_cache_bytes(32, 8, 128, "float16", 1, 1).bytes_per_token == 131072);
    CHECK(attnlab::kv_cache_bytes(1, 1, 1, "int8", 1, 1).bytes_per_token == 2);
    CHECK(attnlab::kv_cache_bytes(1, 1, 1, "bfloat16", 3, 5).bytes == 60);
    CHECK_THROWS_MATCHES(attnlab::kv_cache_bytes(1, 1, 1, "float8", 1, 1), argument_error,
                         Message("kvCacheBytes: dtype = 'float8'; expected 'float64', 'float32', 'float16', 'bfloat16' or 'int8'"));
    CHECK_THROWS_MATCHES(attnlab::kv_cache_bytes(1, 0.5, 1, "int8", 1, 1), argument_error,
                         Message("kvCacheBytes: kvHeads = 0.5; expected a whole number from 1 to 2^53"));
    CHECK_THROWS_WITH(attnlab::kv_cache_bytes(1e3, 1e3, 1e3, "float64", 1e6, 1e3),
                      "kvCacheBytes: bytes (tokens x batch x bytesPerToken) is past 2^53, more than a JavaScript "
                      "number holds exactly; expected smaller sizes");
}

TEST_CASE("the attention matrix holds batch x heads x n x n elements", "[cost]") {
    const auto r = attnlab::attention_matrix_bytes(2, 12, 1024, "float32");
    CHECK(r.elements == 2.0 * 12 * 1024 * 1024);
    CHECK(r.bytes == r.elements * 4);
    CHECK_THROWS_MATCHES(attnlab::attention_matrix_bytes(1, 1, 0, "float32"), argument_error,
                         Message("attentionMatrixBytes: n = 0; expected a whole number from 1 to 2^53"));
}

TEST_CASE("the engine's full attention keeps four score-sized stages and K and V packed", "[cost]") {
    cost_spec spec;
    spec.batch = 2;
    spec.heads = 3;
    spec.m = spec.n = 4096;
    spec.d_k = 64;
    const auto c = cost_figures(spec);
    CHECK(c.full.peak_extra_floats == 4096.0 * 4096);
    CHECK(c.full_engine_extra_floats == 4 * 6.0 * 4096 * 4096 + 64.0 * 4096 + 4096.0 * 64);
    CHECK(c.engine_limit_floats == 268435456.0);
}

TEST_CASE("KV-cache bytes refuse kv heads that do not divide the heads, and a window caps the tokens", "[cost][kv]") {
    using attnlab::kv_cache_bytes;
    CHECK_THROWS_MATCHES(kv_cache_bytes(32, 5, 128, "float16", 4096, 1, "kvCacheBytes", 32.0), argument_error,
                         Message("kvCacheBytes: kvHeads = 5 does not divide heads = 32; expected a divisor of heads "
                                 "(heads itself, or 1 for multi-query)"));
    CHECK_THROWS_MATCHES(kv_cache_bytes(32, 64, 128, "float16", 4096, 1, "kvCacheBytes", 32.0), argument_error,
                         Message("kvCacheBytes: kvHeads = 64 does not divide heads = 32; expected a divisor of heads "
                                 "(heads itself, or 1 for multi-query)"));
    CHECK(kv_cache_bytes(32, 8, 128, "float16", 4096, 1, "kvCacheBytes", 32.0).bytes == 131072.0 * 4096);
    // Mistral 7B: a rolling buffer of its 4,096-token window, so 8,192 tokens cache 4,096.
    const auto rolling = kv_cache_bytes(32, 8, 128, "float16", 8192, 1, "kvCacheBytes", 32.0, 4096.0);
    CHECK(rolling.tokens_cached == 4096);
    CHECK(rolling.bytes == 131072.0 * 4096);
    CHECK(kv_cache_bytes(32, 8, 128, "float16", 100, 2, "kvCacheBytes", 32.0, 4096.0).bytes == 131072.0 * 100 * 2);
    // Factors past 2^32 stay exact (size_t is 32 bits in wasm32).
    CHECK(kv_cache_bytes(32, 8, 128, "float16", 1e10, 1).bytes == 131072.0 * 1e10);
}

TEST_CASE("with a window the attention matrix holds n x min(n, w) weights per head", "[cost][window]") {
    const auto r = attnlab::attention_matrix_bytes(1, 32, 8192, "float16", "attentionMatrixBytes", 4096.0);
    CHECK(r.keys_per_query == 4096);
    CHECK(r.elements == 32.0 * 8192 * 4096);
    CHECK(r.bytes == r.elements * 2);
    CHECK(attnlab::attention_matrix_bytes(1, 1, 100, "float32", "attentionMatrixBytes", 4096.0).elements == 100.0 * 100);
    CHECK(attnlab::attention_matrix_bytes(1, 1, 1e5, "int8").elements == 1e10);
}

TEST_CASE("a fast memory of M floats picks FlashAttention's blocks, and the tiled traffic falls as 1/M", "[cost][fast-memory]") {
    cost_spec spec;
    spec.m = spec.n = 4096;
    spec.d_k = 64;
    // ceil(M / 4d): M = 16,384 floats gives this engine's default 64 x 64 blocks.
    spec.fast_memory = 16384;
    const auto m16 = cost_figures(spec);
    CHECK(m16.block_q == 64);
    CHECK(m16.block_k == 64);
    spec.fast_memory.reset();
    const auto fixed = cost_figures(spec);
    CHECK(fixed.tiled.floats_read == m16.tiled.floats_read);
    // Four times the memory: query blocks of 256, key blocks capped at d = 64.
    spec.fast_memory = 4 * 16384;
    const auto m64 = cost_figures(spec);
    CHECK(m64.block_q == 256);
    CHECK(m64.block_k == 64);
    // K and V are read once per query block: reads of n (d_k + d_v) per block, plus Q once.
    CHECK(m16.tiled.floats_read == 4096.0 * 64 + 64 * 4096.0 * 128);
    CHECK(m64.tiled.floats_read == 4096.0 * 64 + 16 * 4096.0 * 128);
    // The full method does not depend on M; the tiled method moves about a quarter as much.
    CHECK(m64.full.floats_read == m16.full.floats_read);
    const double tiled16 = m16.tiled.floats_read + m16.tiled.floats_written;
    const double tiled64 = m64.tiled.floats_read + m64.tiled.floats_written;
    CHECK(tiled16 / tiled64 == Approx(4.0).epsilon(0.05));
    CHECK(m64.traffic_ratio == Approx((m64.full.floats_read + m64.full.floats_written) / tiled64));
    CHECK(m64.traffic_ratio > 3.5 * m16.traffic_ratio);
    // The multiply-adds do not change with the blocks.
    CHECK(m64.tiled.multiply_adds == m16.tiled.multiply_adds);
    // A block never exceeds the sizes.
    spec.m = spec.n = 100;
    spec.fast_memory = 1 << 20;
    const auto small = cost_figures(spec);
    CHECK(small.block_q == 100);
    CHECK(small.block_k == 64);
}

TEST_CASE("fastMemory is refused below d, when not whole, and beside blockQ or blockK", "[cost][fast-memory][errors]") {
    cost_spec spec;
    spec.m = spec.n = 128;
    spec.d_k = 64;
    spec.fast_memory = 63;
    CHECK_THROWS_MATCHES(cost_figures(spec), argument_error,
                         Message("costFigures: fastMemory = 63 floats; expected a whole number from d = 64 (one row of Q or V, "
                                 "where FlashAttention's analysis starts) to 2^53"));
    spec.fast_memory = 1000.5;
    CHECK_THROWS_AS(cost_figures(spec), argument_error);
    spec.fast_memory = 1024;
    spec.block_q = 8;
    CHECK_THROWS_MATCHES(cost_figures(spec), argument_error,
                         Message("costFigures: fastMemory picks the blocks; expected fastMemory or blockQ and blockK, not both"));
}

TEST_CASE("the visible multiply-adds count exactly the keys each query sees; tiled work rounds up to whole blocks", "[cost][window]") {
    cost_spec spec;
    spec.m = spec.n = 2048;
    spec.d_k = 64;
    spec.causal = true;
    spec.window = 256;
    const auto c = cost_figures(spec);
    // Row i sees min(i + 1, 256) keys: 2048 x 256 - (0 + 1 + ... + 255).
    const double pairs = 2048.0 * 256 - 255.0 * 256 / 2;
    CHECK(c.visible_multiply_adds == pairs * 128);
    CHECK(c.visible_multiply_adds == 62930944);
    CHECK(c.tiled.multiply_adds == 78643200);
    // Without masks every pair is visible.
    spec.causal = false;
    spec.window.reset();
    const auto open = cost_figures(spec);
    CHECK(open.visible_multiply_adds == open.full.multiply_adds);
}

TEST_CASE("both methods' peak extra floats are per slice, so batch and heads do not change their ratio", "[cost]") {
    cost_spec one;
    one.m = one.n = 256;
    one.d_k = 64;
    cost_spec many = one;
    many.batch = 4;
    many.heads = 8;
    const auto a = cost_figures(one), b = cost_figures(many);
    CHECK(b.full.peak_extra_floats == a.full.peak_extra_floats);
    CHECK(b.tiled.peak_extra_floats == a.tiled.peak_extra_floats);
    // The totals do scale with the 32 slices.
    CHECK(b.full.multiply_adds == 32 * a.full.multiply_adds);
    CHECK(b.tiled.floats_read == 32 * a.tiled.floats_read);
}
