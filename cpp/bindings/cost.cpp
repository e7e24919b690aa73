// embind for cost.hpp, tiled.hpp and kv_cache.hpp: converts, calls the core, converts back.

#include "cost.hpp"
#include "position_tables.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <optional>
#include <string>

#include <emscripten/bind.h>

#include "attnlab/cost.hpp"
#include "attnlab/kv_cache.hpp"
#include "attnlab/tiled.hpp"
#include "convert.hpp"
#include "object_functions.hpp"

namespace attnlab::bindings {

namespace {

bool present(const val& v) { return !v.isUndefined() && !v.isNull(); }

std::optional<double> optional_number(const val& js, const char* key) {
    const val x = js[key];
    return present(x) ? std::optional<double>(x.as<double>()) : std::nullopt;
}

val to_js(const method_cost& c, bool tiled) {
    val out = val::object();
    out.set("peakExtraFloats", c.peak_extra_floats);
    out.set("floatsRead", c.floats_read);
    out.set("floatsWritten", c.floats_written);
    out.set("multiplyAdds", c.multiply_adds);
    if (tiled) {
        out.set("blocksComputed", c.blocks_computed);
        out.set("blocksSkipped", c.blocks_skipped);
    }
    return out;
}

// A Float32Array copy of a float vector.
val floats(const std::vector<float>& x) {
    return val::global("Float32Array").new_(emscripten::typed_memory_view(x.size(), x.data()));
}

val tiled_attention_js(const val& q, const val& k, const val& v, const val& opts) {
    const char* fn = "tiledAttention";
    return guarded(fn, [&] {
        tiled_options o;
        static_cast<attention_options&>(o) = to_attention_options(opts, fn);
        o.block_q = optional_number(opts, "blockQ");
        o.block_k = optional_number(opts, "blockK");
        const tiled_result r = tiled_attention(to_tensor(q, fn, "Q"), to_tensor(k, fn, "K"), to_tensor(v, fn, "V"), o, fn);
        val out = val::object();
        out.set("output", bindings::to_js(r.output));
        out.set("lse", bindings::to_js(r.lse));
        out.set("blockQ", static_cast<double>(r.block_q));
        out.set("blockK", static_cast<double>(r.block_k));
        out.set("scale", r.scale);
        out.set("figures", to_js(r.figures, true));
        return out;
    });
}

val cost_figures_js(const val& js) {
    const char* fn = "costFigures";
    return guarded(fn, [&] {
        cost_spec spec;
        spec.batch = js["batch"].as<double>();
        spec.heads = js["heads"].as<double>();
        spec.m = js["m"].as<double>();
        spec.n = js["n"].as<double>();
        spec.d_k = js["dk"].as<double>();
        spec.d_v = optional_number(js, "dv");
        spec.block_q = optional_number(js, "blockQ");
        spec.block_k = optional_number(js, "blockK");
        spec.window = optional_number(js, "window");
        spec.causal = js["causal"].as<bool>();
        spec.fast_memory = optional_number(js, "fastMemory");
        const cost_report r = cost_figures(spec, fn);
        val out = val::object();
        out.set("full", to_js(r.full, false));
        out.set("tiled", to_js(r.tiled, true));
        out.set("blockQ", static_cast<double>(r.block_q));
        out.set("blockK", static_cast<double>(r.block_k));
        val engine = val::object();
        engine.set("extraFloats", r.full_engine_extra_floats);
        engine.set("limitFloats", r.engine_limit_floats);
        out.set("engine", engine);
        out.set("visibleMultiplyAdds", r.visible_multiply_adds);
        out.set("trafficRatio", r.traffic_ratio);
        return out;
    });
}

val explain_online_softmax_js(const val& q, const val& k, const val& v, double row, const val& opts) {
    const char* fn = "explainOnlineSoftmax";
    return guarded(fn, [&] {
        const std::size_t r = to_size(row, fn, "row");
        const online_softmax_trace t =
            explain_online_softmax(to_tensor(q, fn, "Q"), to_tensor(k, fn, "K"), to_tensor(v, fn, "V"), r,
                                   to_attention_options(opts, fn), optional_number(opts, "block"), fn);
        val blocks = val::array();
        for (std::size_t i = 0; i < t.blocks.size(); ++i) {
            const online_block& b = t.blocks[i];
            val o = val::object();
            o.set("start", static_cast<double>(b.start));
            o.set("end", static_cast<double>(b.end));
            o.set("scores", floats(b.scores));
            o.set("blockMax", b.block_max);
            o.set("maxBefore", b.max_before);
            o.set("maxAfter", b.max_after);
            o.set("rescale", b.rescale);
            o.set("sumBefore", b.sum_before);
            o.set("sumAfter", b.sum_after);
            o.set("outputBefore", floats(b.output_before));
            o.set("outputAfter", floats(b.output_after));
            o.set("skipped", b.skipped);
            blocks.set(i, o);
        }
        val out = val::object();
        out.set("row", static_cast<double>(t.row));
        out.set("scale", t.scale);
        out.set("scores", floats(t.scores));
        out.set("blocks", blocks);
        out.set("output", floats(t.output));
        out.set("lse", t.lse);
        out.set("weights", floats(t.weights));
        out.set("fullOutput", floats(t.full_output));
        return out;
    });
}

std::optional<double> optional_number(const val& x) {
    return present(x) ? std::optional<double>(x.as<double>()) : std::nullopt;
}

val kv_cache_bytes_js(double layers, double kv_heads, double d_head, const std::string& dtype, double tokens,
                      double batch, const val& heads, const val& window) {
    return guarded("kvCacheBytes", [&] {
        const kv_bytes r = kv_cache_bytes(layers, kv_heads, d_head, dtype, tokens, batch, "kvCacheBytes",
                                          optional_number(heads), optional_number(window));
        val out = val::object();
        out.set("bytesPerToken", r.bytes_per_token);
        out.set("tokensCached", r.tokens_cached);
        out.set("bytes", r.bytes);
        return out;
    });
}

val attention_matrix_bytes_js(double batch, double heads, double n, const std::string& dtype, const val& window) {
    return guarded("attentionMatrixBytes", [&] {
        const matrix_bytes r = attention_matrix_bytes(batch, heads, n, dtype, "attentionMatrixBytes", optional_number(window));
        val out = val::object();
        out.set("keysPerQuery", r.keys_per_query);
        out.set("elements", r.elements);
        out.set("bytes", r.bytes);
        return out;
    });
}

// The decoding cache, staged like lab.attention (staging.hpp): a decode step makes no embind
// objects, whose conversions cost about 20 us a step, more than the arithmetic at n = 256.
// One entry point, step(op, ...), so that the module carries one invoker and one catch:
//   op 0, 1, 2 (k, v, q): allocates that input with the shape in scratch[0, rank), checks it
//     against `length`, and returns the byte address to copy the data to;
//   op 3: append(k, v), returns the new length;
//   op 4: attend(q), returns 1 and writes a header to the scratch doubles: [0] address of the
//     output [heads, d_head], [1] of the weights [heads, length], [2] length, [3] multiply-adds,
//     [4] without the cache, [5] and [6] the same for decoding every token so far, [7] heads and
//     [8] d_head as the cache holds them (JS sizes what it reads by these). The step is held
//     until the next attend() or release().
// A failure returns -1 with last_error() set, and frees the inputs.
class kv_cache_handle {
public:
    static constexpr std::size_t scratch_size = 64;  // past web/src/api/tensor.js MAX_RANK
    static constexpr int slots = 3;

    // layout: -1 without RoPE, 0 interleaved, 1 half (web/src/api/kv-cache.js).
    val configure(double heads, double kv_heads, double d_head, double max_length, bool has_scale, double scale,
                  int layout, bool has_base, double base, double offset, bool alibi) {
        return guarded("createKVCache", [&] {
            const position_options pos = position_spec(layout, has_base, base, offset, alibi);
            cache_ = std::make_unique<kv_cache>(heads, kv_heads, d_head, max_length,
                                                has_scale ? std::optional<double>(scale) : std::nullopt, "createKVCache", pos);
            return val::object();
        });
    }
    double scratch_address() const { return address(scratch_.data()); }

    double step(int op, int rank, double length) {
        const bool attending = op == 2 || op == 4;
        try {
            if (op < 0 || op > 4 || rank < 0 || static_cast<std::size_t>(rank) > scratch_size ||
                (op == 3 && staged_ != 3) || (op == 4 && staged_ != 4)) {
                throw std::logic_error(attending ? "KVCache.attend: internal error (bad staging step)"
                                                 : "KVCache.append: internal error (bad staging step)");
            }
            if (op < slots) {
                // Decoding stages the same shapes step after step: refill the tensor kept
                // from the last step rather than allocate and check a new one.
                std::optional<tensor>& in = inputs_[op];
                bool same = in && in->dimension() == static_cast<std::size_t>(rank) &&
                            static_cast<double>(in->size()) == length;
                for (int i = 0; same && i < rank; ++i) same = static_cast<double>(in->shape()[i]) == scratch_[i];
                if (!same) {
                    static const char* const names[] = {"k", "v", "q"};
                    in = make_input(scratch_.data(), static_cast<std::size_t>(rank), length,
                                    attending ? "KVCache.attend" : "KVCache.append", names[op]);
                }
                staged_ |= 1 << op;
                return address(in->data());
            }
            if (op == 3) {
                staged_ = 0;
                return static_cast<double>(cache_->append(*inputs_[0], *inputs_[1]));
            }
            staged_ = 0;
            step_.reset();
            step_ = cache_->attend(*inputs_[2]);
            const kv_step& r = *step_;
            double* h = scratch_.data();
            h[0] = address(r.output.data());
            h[1] = address(r.weights.data());
            h[2] = static_cast<double>(cache_->length());
            h[3] = r.multiply_adds;
            h[4] = r.multiply_adds_without_cache;
            h[5] = r.decode_multiply_adds;
            h[6] = r.decode_multiply_adds_without_cache;
            h[7] = static_cast<double>(cache_->heads());
            h[8] = static_cast<double>(cache_->d_head());
            return 1;
        } catch (const std::bad_alloc&) {
            error_ = attending ? "KVCache.attend: out of memory; expected smaller inputs"
                               : "KVCache.append: out of memory; expected a smaller cache";
        } catch (const std::exception& e) {
            error_ = e.what();
        }
        clear_inputs();
        return -1;
    }
    std::string last_error() const { return error_; }
    double length() const { return static_cast<double>(cache_->length()); }
    double heads() const { return static_cast<double>(cache_->heads()); }
    double kv_heads() const { return static_cast<double>(cache_->kv_heads()); }
    double d_head() const { return static_cast<double>(cache_->d_head()); }
    double max_length() const { return static_cast<double>(cache_->max_length()); }
    double bytes() const { return cache_->bytes(); }
    double bytes_per_token() const { return cache_->bytes_per_token(); }
    double scale() const { return cache_->scale(); }
    void release() {
        clear_inputs();
        step_.reset();
        cache_.reset();
    }

private:
    static double address(const void* p) { return static_cast<double>(reinterpret_cast<std::uintptr_t>(p)); }
    void clear_inputs() {
        for (auto& in : inputs_) in.reset();
        staged_ = 0;
    }
    std::unique_ptr<kv_cache> cache_;
    std::array<double, scratch_size> scratch_{};
    // Kept from step to step for reuse; optional, since a default xarray still allocates.
    std::array<std::optional<tensor>, slots> inputs_;
    int staged_ = 0;  // bit i: input i was filled since the last append or attend
    std::optional<kv_step> step_;
    std::string error_;
};

}  // namespace

void register_cost() {
    emscripten::function("tiledAttention", &tiled_attention_js);
    emscripten::function("costFigures", &cost_figures_js);
    emscripten::function("explainOnlineSoftmax", &explain_online_softmax_js);
    emscripten::function("kvCacheBytes", &kv_cache_bytes_js);
    emscripten::function("attentionMatrixBytes", &attention_matrix_bytes_js);
    object_functions<kv_cache_handle>("KVCache")
        .method<&kv_cache_handle::configure>("configure")
        .method<&kv_cache_handle::scratch_address>("scratchAddress")
        .method<&kv_cache_handle::step>("step")
        .method<&kv_cache_handle::last_error>("lastError")
        .method<&kv_cache_handle::length>("length")
        .method<&kv_cache_handle::heads>("heads")
        .method<&kv_cache_handle::kv_heads>("kvHeads")
        .method<&kv_cache_handle::d_head>("dHead")
        .method<&kv_cache_handle::max_length>("maxLength")
        .method<&kv_cache_handle::bytes>("bytes")
        .method<&kv_cache_handle::bytes_per_token>("bytesPerToken")
        .method<&kv_cache_handle::scale>("scale")
        .method<&kv_cache_handle::release>("release");
}

}  // namespace attnlab::bindings
