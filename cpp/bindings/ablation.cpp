// embind layer of ablation and circuits: converts the spec web/src/api/ablation.js built,
// calls the core, converts back.

#include "ablation.hpp"

#include <cmath>

#include "attnlab/ablation.hpp"
#include "attnlab/circuits.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/size.hpp"
#include "attnlab/tasks.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

namespace {

// A Float64Array's numbers, copied in with one set().
std::vector<double> numbers(const val& array) {
    std::vector<double> out(array["length"].as<std::size_t>());
    if (!out.empty()) val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
    return out;
}

// Whole numbers below vocab as token ids, named `name`[i] in messages.
std::vector<std::int32_t> ids_of(const val& array, std::size_t vocab, const char* fn, const char* name) {
    const std::vector<double> x = numbers(array);
    std::vector<std::int32_t> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = to_token(x[i], vocab, fn, (error_text(name) << "[" << i << "]").str());
    return out;
}

// Fields set through a const char* key: val::set is a template on the key's type (each string
// literal's length its own copy of the code in the wasm).
void put(val& o, const char* key, const val& v) { o.set(key, v); }
void put(val& o, const char* key, double x) { o.set(key, x); }

val number_or_null(double x) { return std::isnan(x) ? val::null() : val(x); }

ablation_mode mode_of(const val& spec) { return spec["mode"].as<std::string>() == "mean" ? ablation_mode::mean : ablation_mode::zero; }

head_patch patch_of(const transformer_config& c, const val& spec, const char* fn) {
    const std::vector<double> x = numbers(spec["heads"]);
    std::vector<std::size_t> pairs(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        pairs[i] = to_size(x[i], fn, (error_text("heads[") << i / 2 << "][" << i % 2 << "]").str().c_str());
    }
    return head_patch(c, pairs.data(), pairs.size() / 2, fn);
}

val losses_js(const ablation_losses& l, const char* scored_name) {
    val out = val::object();
    put(out, "loss", number_or_null(l.loss));
    out.set(scored_name, number_or_null(l.scored_loss));
    return out;
}

val rows_js(const std::vector<double>& p, std::size_t vocab) {
    tensor t = empty({p.size() / vocab, vocab});
    for (std::size_t i = 0; i < p.size(); ++i) t.data()[i] = static_cast<float>(p[i]);
    return to_js(t);
}

val doubles_js(const std::vector<double>& p) {
    return val::global("Float64Array").new_(emscripten::typed_memory_view(p.size(), p.data()));
}

val top_js(const std::vector<double>& p, std::size_t k) {
    const std::vector<next_token> best = top_tokens(p, k);
    val ids = val::array(), probabilities = val::array();
    for (std::size_t i = 0; i < best.size(); ++i) {
        ids.set(i, best[i].id);
        probabilities.set(i, best[i].probability);
    }
    val out = val::object();
    put(out, "ids", ids);
    put(out, "probabilities", probabilities);
    return out;
}

}  // namespace

val trainer_ablate(trainer& t, const val& spec, const char* fn) {
    const transformer_config& c = t.options().model;
    head_patch patch = patch_of(c, spec, fn);
    const std::vector<std::int32_t> tokens = ids_of(spec["tokens"], c.vocab, fn, "tokens");
    const trainer_ablation r = ablate(t, patch, mode_of(spec), tokens.data(), tokens.size(), fn);
    val out = losses_js(r.ablated, "scoredLoss");
    put(out, "positions", static_cast<double>(r.ablated.positions));
    put(out, "scored", static_cast<double>(r.ablated.scored));
    put(out, "probabilities", rows_js(r.probabilities, c.vocab));
    // per head, layer by layer: the probe's scores with the ablation
    std::vector<double> induction, previous;
    for (const head_report& h : r.scores) {
        induction.push_back(h.induction);
        previous.push_back(h.previous_token);
    }
    put(out, "induction", doubles_js(induction));
    put(out, "previousToken", doubles_js(previous));
    val base = losses_js(r.baseline, "scoredLoss");
    put(base, "probabilities", rows_js(r.baseline_probabilities, c.vocab));
    put(out, "baseline", base);
    return out;
}

val model_ablate(language_model& m, const val& spec, const char* fn) {
    const transformer_config& c = m.config();
    head_patch patch = patch_of(c, spec, fn);
    const std::size_t top = to_size(spec["top"].as<double>(), fn, "top");
    if (top < 1 || top > language_model::max_top) {
        fail(error_text(fn) << ": top = " << top << "; expected a whole number from 1 to " << language_model::max_top);
    }
    const std::vector<std::int32_t> tokens = ids_of(spec["tokens"], c.vocab, fn, "tokens");
    std::vector<std::int32_t> batch;
    std::vector<std::size_t> lengths;
    const val over = spec["meanOver"];
    if (!over.isUndefined()) {
        batch = ids_of(over["tokens"], c.vocab, fn, "meanOver");
        for (double x : numbers(over["lengths"])) lengths.push_back(static_cast<std::size_t>(x));  // counted by ablation.js
    }
    const text_ablation r = ablate(m, patch, mode_of(spec), tokens.data(), tokens.size(), batch.data(), lengths.data(),
                                   lengths.size(), fn);
    val out = losses_js(r.ablated, "repeatedLoss");
    put(out, "positions", static_cast<double>(r.ablated.positions));
    put(out, "repeated", static_cast<double>(r.ablated.scored));
    put(out, "probabilities", doubles_js(r.probabilities));
    put(out, "next", top_js(r.probabilities, top));
    val base = losses_js(r.baseline, "repeatedLoss");
    put(base, "probabilities", doubles_js(r.baseline_probabilities));
    put(base, "next", top_js(r.baseline_probabilities, top));
    put(out, "baseline", base);
    return out;
}

val circuits_js(const transformer& m, const char* fn) {
    const circuit_scores s = circuits(m, fn);
    const auto pair = [](std::size_t layer, std::size_t head) {
        val p = val::array();
        p.set(0, static_cast<double>(layer));
        p.set(1, static_cast<double>(head));
        return p;
    };
    val composition = val::array();
    for (std::size_t i = 0; i < s.composition.size(); ++i) {
        const head_composition& e = s.composition[i];
        val x = val::object();
        put(x, "from", pair(e.from_layer, e.from_head));
        put(x, "to", pair(e.to_layer, e.to_head));
        put(x, "q", number_or_null(e.q));
        put(x, "k", number_or_null(e.k));
        put(x, "v", number_or_null(e.v));
        composition.set(i, x);
    }
    val copying = val::array();
    for (std::size_t i = 0; i < s.copying.size(); ++i) {
        const head_copying& h = s.copying[i];
        std::vector<double> lambda;
        for (const auto& l : h.eigenvalues) {
            lambda.push_back(l.real());
            lambda.push_back(l.imag());
        }
        val x = val::object();
        put(x, "layer", static_cast<double>(h.layer));
        put(x, "head", static_cast<double>(h.head));
        put(x, "score", number_or_null(h.score));
        put(x, "eigenvalues", doubles_js(lambda));
        copying.set(i, x);
    }
    val out = val::object();
    put(out, "composition", composition);
    put(out, "copying", copying);
    return out;
}

}  // namespace attnlab::bindings
