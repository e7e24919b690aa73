#include "attnlab/cost.hpp"
#include "attnlab/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <cstdint>
#include <utility>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/kv_cache.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

namespace {

constexpr double max_exact = 9007199254740992.0;  // 2^53
constexpr std::size_t default_block = 64;

// Whole number from 1 to 2^53, narrowed by size_arg. 64 bits even where size_t has 32
// (wasm32): a byte count's factors may pass 2^32.
std::uint64_t whole_count(double x, const std::string& fn, const char* name) {
    return size_arg(x).to_count(fn, name, {1, max_exact, "2^53"});
}

// A size the tile walk indexes: as whole_count, cut to what size_t holds (2^32 - 1 in wasm32).
std::size_t whole_size(double x, const std::string& fn, const char* name) {
    return size_arg(x).to_size(fn, name, {1, max_exact, "2^53"});
}

using detail::exact_count;

exact_count count(std::uint64_t x) { return exact_count(x); }

}  // namespace

namespace detail {

double exact_count::value(const std::string& fn, const char* what) const {
    if (v_ >= past) {
        fail(error_text(fn) << ": " << what
            << " is past 2^53, more than a JavaScript number holds exactly; expected smaller sizes");
    }
    return static_cast<double>(static_cast<std::uint64_t>(v_));
}

std::size_t block_size(const std::optional<double>& given, std::size_t limit, const std::string& fn,
                       const char* name, const char* limit_name) {
    if (!given) return std::min(default_block, limit);
    return size_arg(*given).to_size(fn, name, {1, static_cast<double>(limit), nullptr, limit_name});
}

std::pair<std::size_t, std::size_t> fast_memory_blocks(double fast_memory, std::size_t m, std::size_t n,
                                                       std::size_t d_k, std::size_t d_v, const std::string& fn) {
    const std::size_t d = std::max(d_k, d_v);
    if (!(std::floor(fast_memory) == fast_memory && fast_memory >= static_cast<double>(d) && fast_memory <= max_exact)) {
        fail(error_text(fn) << ": fastMemory = " << fast_memory << " floats; expected a whole number from d = " << d
            << " (one row of Q or V, where FlashAttention's analysis starts) to 2^53");
    }
    // ceil(M / 4d), in 64 bits: M may pass what size_t holds in wasm32.
    const std::uint64_t four_d = 4 * static_cast<std::uint64_t>(d);
    const std::uint64_t b = (static_cast<std::uint64_t>(fast_memory) + four_d - 1) / four_d;
    const auto cap = [b](std::size_t limit) { return static_cast<std::size_t>(std::min<std::uint64_t>(b, limit)); };
    return {cap(m), cap(std::min(n, d))};
}

exact_count tiled_peak_extra(std::size_t block_q, std::size_t block_k, std::size_t d_k, std::size_t d_v) {
    // As cpp/src/tiled.cpp allocates them: one tile of scores, one K or V block packed for the
    // matrix kernel (whichever is larger), one block of p V, and each row's running max and sum.
    const std::uint64_t packed = std::max(kernels::packed_count(d_k, block_k), kernels::packed_count(block_k, d_v));
    return count(block_q) * count(block_k) + count(packed) + count(block_q) * count(d_v) + count(2) * count(block_q);
}

void plan_tiles(const row_masks& masks, std::size_t batch, std::size_t m, std::size_t n, std::size_t d_k,
                std::size_t d_v, std::size_t block_q, std::size_t block_k, tile_tally& tally,
                const tile_visitor& visit) {
    // In wasm32 size_t has 32 bits: n + block_k and hi * block_k may pass it, so neither is formed.
    const std::size_t key_blocks = n / block_k + (n % block_k != 0);
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // key-block index ranges, one per row
    spans.reserve(block_q);
    for (std::size_t i0 = 0; i0 < m; i0 += block_q) {
        const std::size_t i1 = std::min(m, i0 + block_q);
        spans.clear();
        for (std::size_t i = i0; i < i1; ++i) {
            const key_range r = masks.range(batch, i);
            if (!r.empty()) spans.emplace_back(r.begin / block_k, (r.end - 1) / block_k + 1);
        }
        // Causal, window and per-batch lengths give sorted spans already; per-row lengths may not.
        // A heap sort: std::sort's introsort is about 1.6 KB of wasm for this one cold call.
        if (!std::is_sorted(spans.begin(), spans.end())) {
            std::make_heap(spans.begin(), spans.end());
            std::sort_heap(spans.begin(), spans.end());
        }
        std::size_t visited = 0, next = 0;  // next: first key block not yet visited
        for (const auto& s : spans) {
            const std::size_t lo = std::max(next, s.first), hi = s.second;
            if (lo < hi) {
                // Key blocks lo..hi-1 are contiguous: they hold keys lo * block_k up to
                // min(n, hi * block_k), counted at once rather than tile by tile (the cost lab
                // asks for n = 65,536: four million tiles).
                const std::size_t keys = static_cast<std::size_t>(std::min<std::uint64_t>(n, std::uint64_t(hi) * block_k)) - lo * block_k;
                tally.floats_read += count(keys) * (count(d_k) + count(d_v));
                tally.multiply_adds += count(i1 - i0) * count(keys) * (count(d_k) + count(d_v));
                visited += hi - lo;
                if (visit.call) {
                    for (std::size_t kb = lo; kb < hi; ++kb) {
                        visit.call(visit.callable, i0, i1, kb * block_k, kb * block_k + std::min(block_k, n - kb * block_k));
                    }
                }
            }
            next = std::max(next, s.second);
        }
        if (visited > 0) tally.floats_read += count(i1 - i0) * count(d_k);
        tally.blocks_computed += count(visited);
        tally.blocks_skipped += count(key_blocks - visited);
    }
}

}  // namespace detail

cost_report cost_figures(const cost_spec& spec, const std::string& fn) {
    const std::size_t batch = whole_size(spec.batch, fn, "batch");
    const std::size_t heads = whole_size(spec.heads, fn, "heads");
    const std::size_t m = whole_size(spec.m, fn, "m");
    const std::size_t n = whole_size(spec.n, fn, "n");
    const std::size_t d_k = whole_size(spec.d_k, fn, "dk");
    const std::size_t d_v = spec.d_v ? whole_size(*spec.d_v, fn, "dv") : d_k;
    cost_report r;
    if (spec.fast_memory) {
        if (spec.block_q || spec.block_k) {
            fail(error_text(fn) << ": fastMemory picks the blocks; expected fastMemory or blockQ and blockK, not both");
        }
        std::tie(r.block_q, r.block_k) = detail::fast_memory_blocks(*spec.fast_memory, m, n, d_k, d_v, fn);
    } else {
        r.block_q = detail::block_size(spec.block_q, m, fn, "blockQ", "m, the number of queries");
        r.block_k = detail::block_size(spec.block_k, n, fn, "blockK", "n, the number of keys");
    }
    // The walk below visits every row: keep it to about a second at most.
    constexpr std::size_t max_rows = std::size_t(1) << 26;
    if (m > max_rows) {
        fail(error_text(fn) << ": m = " << m << "; expected at most " << max_rows << " queries");
    }
    mask_options masks;
    masks.causal = spec.causal;
    masks.window = spec.window;
    const row_masks rows(masks, {}, m, n, fn);

    const exact_count slices = count(batch) * count(heads);
    const exact_count mn = count(m) * count(n);
    const exact_count inputs = count(m) * count(d_k) + count(n) * count(d_k) + count(n) * count(d_v);
    // Peaks are per slice for both methods: each computes the (batch, head) slices one after
    // another and reuses its buffers, so what it holds at once is one slice's worth.
    r.full.peak_extra_floats = mn.value(fn, "the full method's score matrix");
    r.full.floats_read = (slices * (inputs + count(2) * mn)).value(fn, "the full method's floats read");
    r.full.floats_written = (slices * (count(2) * mn + count(m) * count(d_v))).value(fn, "the full method's floats written");
    r.full.multiply_adds = (slices * mn * (count(d_k) + count(d_v))).value(fn, "the full method's multiply-adds");
    // attention() keeps scores, scaled, masked and weights for every slice, and K and V packed
    // for its matrix kernel (cpp/src/attention.cpp, packed_floats).
    r.full_engine_extra_floats = (count(4) * slices * mn + count(kernels::packed_count(d_k, n)) + count(kernels::packed_count(n, d_v)))
                                     .value(fn, "the engine's score-sized stages");
    r.engine_limit_floats = static_cast<double>(default_max_elements);

    // No valid lengths here, so every (batch, head) slice walks the same tiles.
    detail::tile_tally tally;
    detail::plan_tiles(rows, 0, m, n, d_k, d_v, r.block_q, r.block_k, tally);
    r.tiled.peak_extra_floats = detail::tiled_peak_extra(r.block_q, r.block_k, d_k, d_v).value(fn, "the tiled method's extra floats");
    r.tiled.floats_read = (slices * tally.floats_read).value(fn, "the tiled method's floats read");
    r.tiled.floats_written = (slices * count(m) * (count(d_v) + count(1))).value(fn, "the tiled method's floats written");
    r.tiled.multiply_adds = (slices * tally.multiply_adds).value(fn, "the tiled method's multiply-adds");
    r.tiled.blocks_computed = (slices * tally.blocks_computed).value(fn, "the tiled method's blocks");
    r.tiled.blocks_skipped = (slices * tally.blocks_skipped).value(fn, "the tiled method's skipped blocks");

    // The exact work of the masks (tiled.multiply_adds counts whole blocks), and how many times
    // more floats the full method moves.
    exact_count pairs;
    for (std::size_t i = 0; i < m; ++i) {
        const key_range k = rows.range(0, i);
        if (!k.empty()) pairs += count(k.end - k.begin);
    }
    r.visible_multiply_adds = (slices * pairs * (count(d_k) + count(d_v))).value(fn, "the multiply-adds on visible keys");
    r.traffic_ratio = (r.full.floats_read + r.full.floats_written) / (r.tiled.floats_read + r.tiled.floats_written);
    return r;
}

std::size_t dtype_bytes(const std::string& dtype, const std::string& fn) {
    if (dtype == "float64") return 8;
    if (dtype == "float32") return 4;
    if (dtype == "float16" || dtype == "bfloat16") return 2;
    if (dtype == "int8") return 1;
    fail(error_text(fn) << ": dtype = '" << given{dtype} << "'; expected 'float64', 'float32', 'float16', 'bfloat16' or 'int8'");
}

kv_bytes kv_cache_bytes(double layers, double kv_heads, double d_head, const std::string& dtype, double tokens,
                        double batch, const std::string& fn, std::optional<double> heads, std::optional<double> window) {
    const std::uint64_t kvh = whole_count(kv_heads, fn, "kvHeads");
    if (heads) require_kv_heads(whole_count(*heads, fn, "heads"), kvh, fn);
    const exact_count per_token = count(2) * count(whole_count(layers, fn, "layers")) * count(kvh) *
                                  count(whole_count(d_head, fn, "dHead")) * count(dtype_bytes(dtype, fn));
    std::uint64_t cached = whole_count(tokens, fn, "tokens");
    if (window) cached = std::min(cached, whole_count(*window, fn, "window"));
    const exact_count bat = count(whole_count(batch, fn, "batch"));
    kv_bytes r;
    r.bytes_per_token = per_token.value(fn, "bytesPerToken");
    r.tokens_cached = static_cast<double>(cached);
    r.bytes = (per_token * count(cached) * bat).value(fn, "bytes (tokens x batch x bytesPerToken)");
    return r;
}

matrix_bytes attention_matrix_bytes(double batch, double heads, double n, const std::string& dtype,
                                    const std::string& fn, std::optional<double> window) {
    const std::uint64_t side = whole_count(n, fn, "n");
    const std::uint64_t keys = window ? std::min(side, whole_count(*window, fn, "window")) : side;
    const exact_count elements =
        count(whole_count(batch, fn, "batch")) * count(whole_count(heads, fn, "heads")) * count(side) * count(keys);
    const std::size_t bytes = dtype_bytes(dtype, fn);
    matrix_bytes r;
    r.keys_per_query = static_cast<double>(keys);
    const bool windowed = keys < side;
    r.elements = elements.value(fn, windowed ? "elements (batch x heads x n x window)" : "elements (batch x heads x n x n)");
    r.bytes = (elements * count(bytes))
                  .value(fn, windowed ? "bytes (batch x heads x n x window x bytes per element)"
                                      : "bytes (batch x heads x n x n x bytes per element)");
    return r;
}

}  // namespace attnlab
