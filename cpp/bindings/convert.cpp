#include "convert.hpp"

#include <new>
#include <stdexcept>

#include <emscripten/wire.h>

#include "attnlab/errors.hpp"

namespace attnlab::bindings {

val shape_to_js(const shape_t& shape) {
    val out = val::array();
    for (std::size_t i = 0; i < shape.size(); ++i) out.set(i, static_cast<double>(shape[i]));
    return out;
}

namespace {

bool present(const val& v) { return !v.isUndefined() && !v.isNull(); }

}  // namespace

tensor checked_input(const double* extents, std::size_t rank, double length, const char* fn, const char* name) {
    shape_t shape(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        shape[i] = to_size(extents[i], fn, (error_text(name) << ".shape[" << i << "]").str().c_str());
    }
    const std::size_t size = checked_size(shape, default_max_elements, fn, name);
    if (length != static_cast<double>(size)) {
        fail(error_text(fn) << ": " << name << ".data has " << length << " entries but shape " << shape
            << " needs " << size);
    }
    return empty(shape);
}

tensor to_tensor(const val& js, const char* fn, const char* name) {
    // web/src hands over { shape: number[], data: Float32Array, size } that it built itself
    // (tensor.js toInput), with data outside wasm memory and `size` its true length: growing
    // memory here cannot detach it, set() cannot throw, and nothing read here runs a getter.
    const std::vector<double> extents = to_numbers(js["shape"]);
    const val data = js["data"];
    tensor t = make_input(extents.data(), extents.size(), js["size"].as<double>(), fn, name);
    if (t.size() > 0) val(emscripten::typed_memory_view(t.size(), t.data())).call<void>("set", data);
    return t;
}

val to_js(const tensor& t) {
    val out = val::object();
    out.set("shape", shape_to_js(shape_of(t)));
    out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(t.size(), t.data())));
    return out;
}

attention_options to_attention_options(const val& js, const char* fn) {
    attention_options opts;
    if (!present(js)) return opts;
    if (present(js["causal"])) opts.causal = js["causal"].as<bool>();
    if (present(js["scale"])) opts.scale = js["scale"].as<double>();
    if (present(js["scaling"])) {
        const std::string rule = js["scaling"].as<std::string>();
        opts.rule = rule == "none" ? scaling::none : rule == "dk" ? scaling::inv_dk : scaling::inv_sqrt_dk;
    }
    if (present(js["temperature"])) opts.temperature = js["temperature"].as<double>();
    if (present(js["validLens"])) opts.valid_lens = to_tensor(js["validLens"], fn, "validLens");
    if (present(js["mask"])) opts.mask = to_tensor(js["mask"], fn, "mask");
    if (present(js["window"])) opts.window = js["window"].as<double>();
    return opts;
}

mha_inputs to_mha_inputs(const val& js) {
    const char* fn = "multiHeadAttention";
    mha_inputs in;
    in.x = to_tensor(js["X"], fn, "X");
    in.w_q = to_tensor(js["Wq"], fn, "Wq");
    in.w_k = to_tensor(js["Wk"], fn, "Wk");
    in.w_v = to_tensor(js["Wv"], fn, "Wv");
    if (present(js["Wo"])) in.w_o = to_tensor(js["Wo"], fn, "Wo");
    in.heads = to_size(js["heads"].as<double>(), fn, "heads");
    in.causal = js["causal"].as<bool>();
    in.method = js["method"].as<std::string>() == "loop" ? mha_method::loop : mha_method::batched;
    in.forget_merge_transpose = js["forgetMergeTranspose"].as<bool>();
    if (present(js["scale"])) in.scale = js["scale"].as<double>();
    return in;
}

val to_js(const mha_result& r) {
    val out = val::object();
    out.set("q", to_js(r.q));
    out.set("k", to_js(r.k));
    out.set("v", to_js(r.v));
    out.set("scores", to_js(r.scores));
    out.set("weights", to_js(r.weights));
    out.set("headOutputs", to_js(r.head_outputs));
    out.set("concat", to_js(r.concat));
    out.set("output", to_js(r.output));
    out.set("scale", r.scale);
    return out;
}

val to_js(const dot_stats& s) {
    val out = val::object();
    out.set("mean", s.mean);
    out.set("variance", s.variance);
    out.set("std", s.std);
    out.set("expectedStd", s.expected_std);
    return out;
}

val to_js(const example_inputs& ex) {
    val out = val::object();
    val tokens = val::array();
    for (std::size_t i = 0; i < ex.tokens.size(); ++i) tokens.set(i, ex.tokens[i]);
    out.set("tokens", tokens);
    out.set("Q", to_js(ex.q));
    out.set("K", to_js(ex.k));
    out.set("V", to_js(ex.v));
    if (ex.x.size() > 0) {
        out.set("X", to_js(ex.x));
        out.set("Wq", to_js(ex.w_q));
        out.set("Wk", to_js(ex.w_k));
        out.set("Wv", to_js(ex.w_v));
    }
    return out;
}

val to_js(const std::vector<saturation_point>& pts) {
    val out = val::array();
    for (std::size_t i = 0; i < pts.size(); ++i) {
        val p = val::object();
        p.set("dk", pts[i].d_k);
        p.set("maxWeightScaled", pts[i].max_weight_scaled);
        p.set("maxGradScaled", pts[i].max_grad_scaled);
        p.set("maxWeightUnscaled", pts[i].max_weight_unscaled);
        p.set("maxGradUnscaled", pts[i].max_grad_unscaled);
        out.set(i, p);
    }
    return out;
}

val to_js(const shape_trace& t) {
    val steps = val::array();
    for (std::size_t i = 0; i < t.steps.size(); ++i) {
        val step = val::object();
        step.set("id", t.steps[i].id);
        step.set("name", t.steps[i].name);
        step.set("formula", t.steps[i].formula);
        step.set("shape", shape_to_js(t.steps[i].shape));
        steps.set(i, step);
    }
    val out = val::object();
    out.set("steps", steps);
    out.set("parameters", t.parameters);
    out.set("scoreEntries", t.score_entries);
    return out;
}

val to_js(const row_derivation& d) {
    val out = val::object();
    out.set("row", static_cast<double>(d.row));
    out.set("scale", d.scale);
    out.set("terms", to_js(d.terms));
    out.set("scores", to_js(d.scores));
    out.set("scaled", to_js(d.scaled));
    out.set("masked", to_js(d.masked));
    out.set("rowMax", d.row_max);
    out.set("expRaw", to_js(d.exp_raw));
    out.set("expShifted", to_js(d.exp_shifted));
    out.set("sumRaw", d.sum_raw);
    out.set("sumShifted", d.sum_shifted);
    out.set("naiveWeights", to_js(d.naive_weights));
    out.set("naiveError", d.naive_error);
    out.set("weights", to_js(d.weights));
    out.set("weightedValues", to_js(d.weighted_values));
    out.set("output", to_js(d.output));
    out.set("fullyMasked", d.fully_masked);
    return out;
}

layer_sizes to_layer_sizes(const val& js) {
    const char* fn = "traceShapes";
    layer_sizes s;
    s.batch = to_size(js["batch"].as<double>(), fn, "batch");
    s.n = to_size(js["n"].as<double>(), fn, "n");
    s.d_model = to_size(js["dModel"].as<double>(), fn, "dModel");
    s.heads = to_size(js["heads"].as<double>(), fn, "heads");
    s.d_k = to_size(js["dk"].as<double>(), fn, "dk");
    s.d_v = to_size(js["dv"].as<double>(), fn, "dv");
    return s;
}

std::vector<double> to_numbers(const val& js) {
    std::vector<double> out(js["length"].as<unsigned>());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = js[i].as<double>();
    return out;
}

val guarded_call(const char* fn, val (*body)(void*), void* context) {
    try {
        return body(context);
    } catch (const std::bad_alloc&) {
        return error_value(std::string(fn) + ": out of memory; expected smaller inputs");
    } catch (const std::exception& e) {
        return error_value(e.what());
    } catch (...) {
        return error_value(std::string(fn) + ": internal error");
    }
}

val error_value(const std::string& message) {
    val out = val::object();
    out.set("error", message);
    return out;
}

}  // namespace attnlab::bindings
