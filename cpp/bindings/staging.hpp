#pragma once
// The hot path of lab.attention: inputs and results staged in wasm memory, so a call makes
// no embind objects. JS writes shapes into a scratch array of doubles, copies each input's
// Float32Array in with one set(), calls attention() with plain numbers, reads a result header
// from the scratch array and copies out only the stages it was asked for. release() frees
// everything; JS calls it in a finally, so no error path keeps memory.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <emscripten/val.h>

#include "attnlab/attention.hpp"

namespace attnlab::bindings {

class staging {
public:
    static constexpr std::size_t scratch_size = 64;
    static constexpr std::size_t slots = 5;  // Q, K, V, validLens, mask

    /// Byte address of the scratch doubles: shapes in, result header out.
    double scratch_address() const { return static_cast<double>(reinterpret_cast<std::uintptr_t>(scratch_.data())); }

    /// A zero-length Float32Array over wasm memory: JS takes its .buffer.
    emscripten::val memory_view() const;

    /// Allocates input `slot` with the shape in scratch[0, rank) and checks `length` against it.
    /// Returns the byte address to copy the data to, or -1 with error() set.
    double input(int slot, int fn, int name, int rank, double length);

    /// attention() on the staged inputs (validLens, mask and window when has_*). Fills the header:
    /// [0] scale, [1] fully masked row count, [2] address of their indices (doubles),
    /// [3] rank R of the scores, [4..9) addresses of scores, scaled, masked, weights, output,
    /// [9] d_v, [10, 10 + R) the scores' shape. Returns false with error() set.
    bool attention(int fn, bool causal, bool has_scale, double scale, int rule, double temperature,
                   bool has_valid_lens, bool has_mask, bool has_window, double window);

    /// The position options of the next attention() call (until release()): RoPE when
    /// rope_layout is 0 (interleaved) or 1 (half), with its base and offset; ALiBi when alibi.
    void positions(int rope_layout, bool has_base, double base, double offset, bool alibi);

    /// The cached path for a repeat call: the shapes of Q, K, V in scratch as [rank, ...extents]
    /// three times, and options, the same as an earlier successful call without masks. On a hit
    /// writes the addresses of the cached workspace's Q, K, V buffers to scratch[0..3) and
    /// returns 1; JS fills them and calls run_cached(). Returns 0 on a miss (use input/attention).
    int lookup(bool causal, bool has_scale, double scale, int rule, double temperature, double len_q,
               double len_k, double len_v);

    /// Runs the cached workspace on what JS wrote; fills the header as attention() does.
    bool run_cached();

    std::string error() const { return error_; }

    /// Frees the staged inputs and results.
    void release();

private:
    const std::string& name(int index) const;
    void write_header(const attention_result& r);

    // What a cached workspace was made for: the Q, K, V shapes and the scale options.
    struct cache_key {
        shape_t q, k, v;
        bool causal = false, has_scale = false;
        double scale = 0, temperature = 1;
        int rule = 0;
        bool operator==(const cache_key& o) const {
            return q == o.q && k == o.k && v == o.v && causal == o.causal && has_scale == o.has_scale &&
                   scale == o.scale && temperature == o.temperature && rule == o.rule;
        }
    };
    // Small calls only: the workspace stays allocated between calls, and at small sizes the
    // allocations of a fresh call cost more than the arithmetic.
    static constexpr std::size_t cache_max_floats = std::size_t(1) << 16;
    std::optional<attention_workspace> cached_;
    cache_key cached_key_;

    std::array<double, scratch_size> scratch_{};
    // Empty between calls: optional, since a default xarray still allocates one element.
    std::array<std::optional<tensor>, slots> inputs_;
    std::optional<attention_result> result_;
    std::vector<double> fully_masked_;
    position_options positions_;
    std::string error_;
};

}  // namespace attnlab::bindings
