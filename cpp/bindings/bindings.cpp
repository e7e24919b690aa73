// embind registrations only: each entry converts its arguments, calls the core, converts back.

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include "attnlab/attnlab.hpp"
#include "attnlab/errors.hpp"
#include "convert.hpp"
#include "object_functions.hpp"
#include "cost.hpp"
#include "heads.hpp"
#include "mistakes.hpp"
#include "model.hpp"
#include "position_tables.hpp"
#include "staging.hpp"
#include "trainer.hpp"

namespace attnlab::bindings {

function_names::function_names(const char* kind) : kind_length_(std::strlen(kind)) {
    if (kind_length_ + 1 >= sizeof text_) std::abort();
    std::memcpy(text_, kind, kind_length_);
    text_[kind_length_] = '_';
}

const char* function_names::operator()(const char* name) {
    const std::size_t length = std::strlen(name);
    if (kind_length_ + 1 + length >= sizeof text_) std::abort();  // the names are the bindings' literals
    std::memcpy(text_ + kind_length_ + 1, name, length + 1);
    return text_;
}

namespace {

// The fast path: a fixed-shape workspace whose buffers JS reads and writes through views.
class workspace_handle {
public:
    val configure(const val& spec) {
        const char* fn = "createWorkspace";
        return guarded(fn, [&] {
            ws_.reset();
            shape_t lead;
            const std::vector<double> js_lead = to_numbers(spec["batch"]);
            for (std::size_t i = 0; i < js_lead.size(); ++i) {
                lead.push_back(to_size(js_lead[i], fn, (error_text("batch[") << i << "]").str().c_str()));
            }
            ws_ = std::make_unique<attention_workspace>(
                lead, to_size(spec["m"].as<double>(), fn, "m"), to_size(spec["n"].as<double>(), fn, "n"),
                to_size(spec["dk"].as<double>(), fn, "dk"), to_size(spec["dv"].as<double>(), fn, "dv"),
                to_attention_options(spec["options"], fn), fn);
            return val::object();
        });
    }
    // Returns true on success; otherwise last_error() holds the message. No JS object is
    // made per run, so a per-frame loop allocates nothing.
    bool run() {
        try {
            ws_->run();
            return true;
        } catch (const std::exception& e) {
            error_ = e.what();
        } catch (...) {
            error_ = "attention: internal error";
        }
        return false;
    }
    std::string last_error() const { return error_; }
    // Views into wasm memory: valid until memory grows, so JS fetches them afresh each time.
    val view(const std::string& name) {
        tensor* t = name == "Q" ? &ws_->q() : name == "K" ? &ws_->k() : name == "V" ? &ws_->v() : nullptr;
        const attention_result& r = ws_->result();
        const tensor* c = t ? t
                          : name == "scores"  ? &r.scores
                          : name == "scaled"  ? &r.scaled
                          : name == "masked"  ? &r.masked
                          : name == "weights" ? &r.weights
                                              : &r.output;
        return val(emscripten::typed_memory_view(c->size(), c->data()));
    }
    unsigned fully_masked_count() const { return ws_->result().fully_masked_rows.size(); }
    void release() { ws_.reset(); }

private:
    std::unique_ptr<attention_workspace> ws_;
    std::string error_;
};

// The sqrt(d_k) experiment in steps (dot_product_sampler), so a page can split the work.
class dot_stats_handle {
public:
    val start(double dk, double seed) {
        return guarded("createDotProductStats", [&] {
            sampler_ = std::make_unique<dot_product_sampler>(dk, seed);
            return val::object();
        });
    }
    val add(double count) {
        return guarded("createDotProductStats", [&] {
            sampler_->add(count);
            return val::object();
        });
    }
    val result() const { return guarded("createDotProductStats", [&] { return to_js(sampler_->result()); }); }
    double samples() const { return static_cast<double>(sampler_->samples()); }

private:
    std::unique_ptr<dot_product_sampler> sampler_;
};

val softmax_js(const val& x, double axis) {
    return guarded("softmax", [&] {
        return to_js(softmax(to_tensor(x, "softmax", "x"), to_int(axis, "softmax", "axis")));
    });
}

val multi_head_attention_js(const val& in) {
    return guarded("multiHeadAttention", [&] { return to_js(multi_head_attention(to_mha_inputs(in))); });
}

val dot_product_stats_js(double dk, double samples, double seed) {
    return guarded("dotProductStats", [&] { return to_js(dot_product_stats(dk, samples, seed)); });
}

val softmax_saturation_js(const val& dks, double keys, double trials, double seed) {
    return guarded("softmaxSaturation", [&] { return to_js(softmax_saturation(to_numbers(dks), keys, trials, seed)); });
}

val trace_shapes_js(const val& sizes) {
    return guarded("traceShapes", [&] { return to_js(trace_shapes(to_layer_sizes(sizes))); });
}

val explain_row_js(const val& q, const val& k, const val& v, const val& opts, double row) {
    return guarded("explainRow", [&] {
        const std::size_t r = to_size(row, "explainRow", "row");
        return to_js(explain_row(to_tensor(q, "explainRow", "Q"), to_tensor(k, "explainRow", "K"),
                                 to_tensor(v, "explainRow", "V"), to_attention_options(opts, "explainRow"), r));
    });
}

val random_normal_js(const val& shape, double stddev, double seed) {
    return guarded("randomNormal", [&] {
        shape_t s;
        const std::vector<double> extents = to_numbers(shape);
        for (std::size_t i = 0; i < extents.size(); ++i) {
            s.push_back(to_size(extents[i], "randomNormal", (error_text("shape[") << i << "]").str().c_str()));
        }
        return to_js(random_normal(s, stddev, seed));
    });
}

val max_abs_diff_js(const val& a, const val& b) {
    return guarded("maxAbsDiff", [&] {
        val out = val::object();
        out.set("value", max_abs_diff(to_tensor(a, "maxAbsDiff", "a"), to_tensor(b, "maxAbsDiff", "b")));
        return out;
    });
}

val tensor_js(const val& x) {
    return guarded("tensor", [&] { return to_js(to_tensor(x, "tensor", "value")); });
}

val examples_js() {
    val out = val::object();
    out.set("timeFlies", to_js(time_flies_example()));
    out.set("worked", to_js(worked_example()));
    return out;
}

// Bytes malloc has handed out and not taken back: the leak checks watch this.
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

// emmalloc takes memory from sbrk in small steps as the heap first grows, and each step
// changes its bookkeeping (what mallinfo counts) by a few bytes for good, which a leak check
// would read as a leak. One step up front, for the working set of small calls, keeps the
// count exact afterwards.
const bool heap_reserved = [] {
    void* volatile block = std::malloc(std::size_t(1) << 16);  // volatile: not elided
    std::free(block);
    return true;
}();

// Size of wasm linear memory: grows, never shrinks.
double heap_size() { return static_cast<double>(emscripten_get_heap_size()); }

// The most floats one tensor may hold: web/src stops walking nested arrays past it.
double max_elements() { return static_cast<double>(default_max_elements); }

// The largest size this build indexes (size_arg's limit): web/src refuses any size past it.
double max_index() { return attnlab::max_index; }


}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
    emscripten::function("softmax", &softmax_js);
    emscripten::function("multiHeadAttention", &multi_head_attention_js);
    emscripten::function("dotProductStats", &dot_product_stats_js);
    emscripten::function("softmaxSaturation", &softmax_saturation_js);
    emscripten::function("traceShapes", &trace_shapes_js);
    emscripten::function("explainRow", &explain_row_js);
    emscripten::function("randomNormal", &random_normal_js);
    emscripten::function("maxAbsDiff", &max_abs_diff_js);
    emscripten::function("tensor", &tensor_js);
    emscripten::function("examples", &examples_js);
    emscripten::function("heapInUse", &heap_in_use);
    emscripten::function("heapSize", &heap_size);
    emscripten::function("maxElements", &max_elements);
    emscripten::function("maxIndex", &max_index);
    register_cost();
    register_mistakes();
    register_trainer();
    register_model();
    register_heads();
    register_positions();
    object_functions<staging>("Staging")
        .method<&staging::scratch_address>("scratchAddress")
        .method<&staging::memory_view>("memoryView")
        .method<&staging::input>("input")
        .method<&staging::attention>("attention")
        .method<&staging::positions>("positions")
        .method<&staging::error>("error")
        .method<&staging::release>("release");
    object_functions<workspace_handle>("Workspace")
        .method<&workspace_handle::configure>("configure")
        .method<&workspace_handle::run>("run")
        .method<&workspace_handle::last_error>("lastError")
        .method<&workspace_handle::view>("view")
        .method<&workspace_handle::fully_masked_count>("fullyMaskedCount")
        .method<&workspace_handle::release>("release");
    object_functions<dot_stats_handle>("DotProductStats")
        .method<&dot_stats_handle::start>("start")
        .method<&dot_stats_handle::add>("add")
        .method<&dot_stats_handle::result>("result")
        .method<&dot_stats_handle::samples>("samples");
}

}  // namespace attnlab::bindings
