#include "attnlab/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

const std::string append_fn = "KVCache.append";
const std::string attend_fn = "KVCache.attend";

// A size from 1 to 2^53, or to what size_t holds where that is less (wasm32): the range is
// the same as the byte calculators', the narrowing is size_arg's.
std::size_t whole(size_arg x, const std::string& fn, const char* name) {
    return x.to_size(fn, name, {1, max_exact_whole, "2^53"});
}

void require_shape(const tensor& t, std::size_t rows, std::size_t cols, const std::string& fn, const char* name,
                   const char* expected) {
    // Compared in place: this runs on every decode step, and the shape vectors for the
    // message are only needed when it fails.
    if (t.dimension() != 2 || t.shape()[0] != rows || t.shape()[1] != cols) {
        fail(error_text(fn) << ": " << name << " has shape " << shape_of(t) << "; expected " << expected << " = "
            << shape_t{rows, cols});
    }
    require_finite(t, fn, name);
}

}  // namespace

void require_kv_heads(std::uint64_t heads, std::uint64_t kv_heads, const std::string& fn) {
    if (kv_heads == 0 || heads % kv_heads != 0) {
        fail(error_text(fn) << ": kvHeads = " << kv_heads << " does not divide heads = " << heads
            << "; expected a divisor of heads (heads itself, or 1 for multi-query)");
    }
}

kv_cache::kv_cache(size_arg heads, size_arg kv_heads, size_arg d_head, size_arg max_length, std::optional<double> scale,
                   const std::string& fn, const position_options& positions)
    : heads_(whole(heads, fn, "heads")),
      kv_heads_(whole(kv_heads, fn, "kvHeads")),
      d_head_(whole(d_head, fn, "dHead")),
      max_length_(whole(max_length, fn, "maxLength")) {
    require_kv_heads(heads_, kv_heads_, fn);
    // Each limit names the sizes that break it, smallest product first: a query (heads x dHead),
    // one token's keys and values, then the cache at full length.
    const double limit = double(default_max_elements), query = double(heads_) * double(d_head_);
    if (query > limit) {
        fail(error_text(fn) << ": heads x dHead = " << query << " is more than the limit of " << default_max_elements
            << "; expected smaller sizes");
    }
    const double token = 2.0 * double(kv_heads_) * double(d_head_);
    if (token > limit) {
        fail(error_text(fn) << ": one token's keys and values, 2 x kvHeads x dHead = " << token
            << " floats, are more than the limit of " << default_max_elements << "; expected smaller sizes");
    }
    if (token * double(max_length_) > limit) {
        fail(error_text(fn) << ": maxLength = " << max_length_ << " needs 2 x " << max_length_ << " x " << kv_heads_
            << " x " << d_head_ << " floats, more than the limit of " << default_max_elements
            << "; expected a smaller maxLength");
    }
    attention_options opts;
    opts.scale = scale;
    scale_ = attention_scale(opts, d_head_, fn);
    if (positions.rope) {
        if (d_head_ % 2 != 0) {
            fail(error_text(fn) << ": rope needs an even dHead (it turns pairs of dimensions); got dHead = " << d_head_);
        }
        require_position_base(positions.rope->base, fn, "rope.base");
        require_positions(positions.rope->offset, double(max_length_), fn, "rope.offset");
    }
    if (positions.alibi) {
        slopes_ = alibi_slopes(heads_, fn, "heads (ALiBi's slopes, one per head)");
    }
    positions_ = positions;
    keys_.resize(kv_heads_);
    values_.resize(kv_heads_);
}

std::size_t kv_cache::append(const tensor& k, const tensor& v) {
    require_shape(k, kv_heads_, d_head_, append_fn, "k", "[kvHeads, dHead]");
    require_shape(v, kv_heads_, d_head_, append_fn, "v", "[kvHeads, dHead]");
    if (length_ == max_length_) {
        fail(error_text(append_fn) << ": the cache is full at maxLength = " << max_length_
            << " tokens; expected at most maxLength appends (create a larger cache)");
    }
    for (std::size_t g = 0; g < kv_heads_; ++g) {
        // resize and copy rather than insert a range: the same growth, less wasm code.
        const std::size_t at = keys_[g].size();
        keys_[g].resize(at + d_head_);
        values_[g].resize(at + d_head_);
        std::copy_n(k.data() + g * d_head_, d_head_, keys_[g].data() + at);
        std::copy_n(v.data() + g * d_head_, d_head_, values_[g].data() + at);
    }
    if (const auto& rope = positions_.rope) {
        const rope_table turn(rope->offset + double(length_), 1, d_head_, rope->base, rope->layout);
        for (std::size_t g = 0; g < kv_heads_; ++g) turn.rotate(keys_[g].data() + length_ * d_head_, 1, 0);
    }
    return ++length_;
}

kv_step kv_cache::attend(const tensor& q) const {
    require_shape(q, heads_, d_head_, attend_fn, "q", "[heads, dHead]");
    if (length_ == 0) {
        fail(error_text(attend_fn) << ": the cache is empty; expected append(k, v) before attend(q)");
    }
    const std::size_t n = length_, d = d_head_, group = heads_ / kv_heads_;
    kv_step s;
    s.weights = empty({heads_, n});
    s.output = zeros({heads_, d});
    // RoPE: the query of the newest token, turned to its position
    std::vector<float> turned;
    if (const auto& rope = positions_.rope) {
        turned.resize(heads_ * d);
        std::copy_n(q.data(), heads_ * d, turned.data());
        const rope_table turn(rope->offset + double(n - 1), 1, d, rope->base, rope->layout);
        for (std::size_t h = 0; h < heads_; ++h) turn.rotate(turned.data() + h * d, 1, 0);
    }
    for (std::size_t h = 0; h < heads_; ++h) {
        const std::size_t g = h / group;
        const float* qh = (turned.empty() ? q.data() : turned.data()) + h * d;
        const float* kg = keys_[g].data();    // [n, d]
        const float* vg = values_[g].data();  // [n, d]
        float* w = s.weights.data() + h * n;  // [n]
        float* out = s.output.data() + h * d; // [d]
        // pass 1: scaled scores of the new query against every cached key
        if (!kernels::scaled_dots(qh, kg, d, n, d, scale_, w)) {
            std::size_t j = 0;
            while (j + 1 < n && std::isfinite(w[j])) ++j;
            fail(error_text(attend_fn) << ": the scaled score of head " << h << " and token " << j
                << " is beyond float32; expected smaller values in q or the keys");
        }
        // ALiBi: the newest token's query sits at position n - 1
        if (!slopes_.empty()) add_alibi(w, 1, n, double(n - 1), slopes_[h]);
        // pass 2: softmax; every cached token is visible (the causal mask hides only the future)
        kernels::softmax_row(w, w, n);
        // pass 3: output = weights V
        if (!kernels::add_weighted_rows(w, vg, d, n, d, out)) {
            fail(error_text(attend_fn) << ": the output of head " << h
                << " overflows float32; expected smaller values in the cached v");
        }
    }
    const double per_pair = 2.0 * double(d), hd = double(heads_), len = double(n);
    s.multiply_adds = hd * len * per_pair;
    s.multiply_adds_without_cache = hd * (len * (len + 1) / 2) * per_pair;
    s.decode_multiply_adds = s.multiply_adds_without_cache;
    s.decode_multiply_adds_without_cache = hd * (len * (len + 1) * (len + 2) / 6) * per_pair;
    return s;
}

}  // namespace attnlab
