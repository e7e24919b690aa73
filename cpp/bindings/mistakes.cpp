// embind layer for the mistakes: converts the spec, calls run_mistake, converts back.

#include "mistakes.hpp"

#include <emscripten/bind.h>

#include "attnlab/mistakes.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

namespace {

val pair_js(const weights_and_output& p) {
    val out = val::object();
    out.set("weights", to_js(p.weights));
    out.set("output", to_js(p.output));
    return out;
}

// spec: { Q, K, V, causal?, validLens?, mask? }, checked for JS types by web/src/api/mistakes.js.
val mistake_js(const std::string& name, const val& spec) {
    const char* fn = "mistake";
    return guarded(fn, [&] {
        const attention_options masks = to_attention_options(spec, fn);
        const mistake_result r = run_mistake(name, to_tensor(spec["Q"], fn, "Q"), to_tensor(spec["K"], fn, "K"),
                                             to_tensor(spec["V"], fn, "V"), masks, fn);
        val out = val::object();
        out.set("name", r.name);
        out.set("correct", pair_js(r.correct));
        if (r.error.empty()) {
            out.set("mistaken", pair_js(r.mistaken));
            out.set("difference", pair_js(r.difference));
        } else {
            val failed = val::object();
            failed.set("error", r.error);
            out.set("mistaken", failed);
            out.set("difference", val::null());
        }
        out.set("cells", to_js(r.cells));
        val figures = val::array();
        for (std::size_t i = 0; i < r.figures.size(); ++i) {
            val f = val::object();
            f.set("label", r.figures[i].label);
            f.set("value", r.figures[i].value ? val(*r.figures[i].value) : val::null());
            f.set("correctValue", r.figures[i].correct_value);
            f.set("row", r.figures[i].row ? shape_to_js(*r.figures[i].row) : val::null());
            figures.set(i, f);
        }
        out.set("figures", figures);
        return out;
    });
}

val catalog_js() {
    val out = val::array();
    const auto& all = mistake_catalog();
    for (std::size_t i = 0; i < all.size(); ++i) {
        val m = val::object();
        m.set("name", std::string(all[i].name));
        m.set("title", std::string(all[i].title));
        m.set("symptom", std::string(all[i].symptom));
        m.set("fix", std::string(all[i].fix));
        out.set(i, m);
    }
    return out;
}

}  // namespace

void register_mistakes() {
    emscripten::function("mistake", &mistake_js);
    emscripten::function("mistakeCatalog", &catalog_js);
}

}  // namespace attnlab::bindings
