// embind layer for training: converts specs and token lists, calls the core, converts back.
// web/src/api/trainer.js checks JavaScript types and structure and hands over plain objects it
// built: sizes and numbers as doubles (checked here by to_size before narrowing), token lists
// as Float64Arrays (checked by to_token), names as strings it already matched.

#include "trainer.hpp"

#include <memory>
#include <optional>
#include <string>

#include <emscripten/bind.h>

#include "attnlab/attention_backward.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/half.hpp"
#include "attnlab/trainer.hpp"
#include "ablation.hpp"
#include "convert.hpp"
#include "object_functions.hpp"
#include "trainer_spec.hpp"

namespace attnlab::bindings {

namespace {

class trainer_handle {
public:
    // fn: the function the user called (createTrainer or loadTrainer), for its messages
    val configure(const val& spec, const std::string& fn) {
        return guarded(fn.c_str(), [&] {
            trainer_.reset();
            trainer_ = std::make_unique<trainer>(to_trainer_options(spec, fn.c_str()), fn);
            return val::object();
        });
    }

    val step(double count) {
        const char* fn = "Trainer.step";
        return guarded(fn, [&] {
            const std::size_t n = to_size(count, fn, "count");
            // a count the trainer refuses is refused before this buffer is sized by it
            trainer_->check_count(n, fn);
            const bool heads = trainer_->records_heads();
            std::vector<double> losses(n), accuracies(n), induction(heads ? n : 0), previous(heads ? n : 0);
            step_record record;
            record.losses = losses.data();
            record.accuracies = accuracies.data();
            if (heads) {
                record.induction = induction.data();
                record.previous = previous.data();
            }
            const std::size_t before = trainer_->steps();
            const step_result r = trainer_->step(n, record, fn);
            // the record of the updates made: all n, or those before the loss that diverged
            const std::size_t made = r.step - before;
            const auto doubles_js = [made](std::vector<double>& v) {
                return val::global("Float64Array").new_(emscripten::typed_memory_view(made, v.data()));
            };
            val out = val::object();
            out.set("step", static_cast<double>(r.step));
            out.set("loss", r.loss);
            out.set("diverged", r.diverged);
            out.set("losses", doubles_js(losses));
            put(out, "accuracies", doubles_js(accuracies));
            put(out, "induction", heads ? doubles_js(induction) : val::null());
            put(out, "previousToken", heads ? doubles_js(previous) : val::null());
            put(out, "recentLoss", r.recent_loss);
            put(out, "bestLoss", r.best_loss);
            put(out, "bestAt", static_cast<double>(r.best_at));
            put_flag(out, "rising", r.rising);
            put_flag(out, "worseThanUniform", r.worse_than_uniform);
            put(out, "formed", formed());
            return out;
        });
    }

    val evaluate() {
        return guarded("Trainer.evaluate", [&] {
            const evaluation e = trainer_->evaluate();
            val out = val::object();
            out.set("loss", e.loss);
            out.set("accuracy", e.accuracy);
            return out;
        });
    }

    // Trainer.lossByPosition: { loss, scored } as Float64Arrays, and their mean.
    val loss_by_position(double length, double examples) {
        const char* fn = "Trainer.lossByPosition";
        return guarded(fn, [&] {
            const position_loss r = trainer_->loss_by_position(to_size(length, fn, "length"), to_size(examples, fn, "examples"), fn);
            std::vector<double> scored(r.scored.size());
            for (std::size_t i = 0; i < scored.size(); ++i) scored[i] = static_cast<double>(r.scored[i]);
            val out = val::object();
            put(out, "loss", val::global("Float64Array").new_(emscripten::typed_memory_view(r.loss.size(), r.loss.data())));
            put(out, "scored", val::global("Float64Array").new_(emscripten::typed_memory_view(scored.size(), scored.data())));
            put(out, "mean", r.mean);
            return out;
        });
    }

    val attention(const val& tokens) {
        const char* fn = "Trainer.attention";
        return guarded(fn, [&] {
            const transformer_config& c = trainer_->options().model;
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            tensor p = empty({c.layers, c.heads, t.size(), t.size()});
            trainer_->attention(t.data(), t.size(), p.data(), fn);
            return to_js(p);
        });
    }

    val head_scores() {
        return guarded("Trainer.headScores", [&] {
            val out = val::array();
            const std::vector<head_report> all = trainer_->head_scores();
            for (std::size_t i = 0; i < all.size(); ++i) {
                val h = val::object();
                h.set("layer", static_cast<double>(all[i].layer));
                h.set("head", static_cast<double>(all[i].head));
                h.set("previousToken", all[i].previous_token);
                h.set("induction", all[i].induction);
                put(h, "previousTokenFirstCopy", all[i].previous_token_first_copy);
                out.set(i, h);
            }
            return out;
        });
    }

    // Ablation and circuits (ablation.cpp in this folder)
    val ablate(const val& spec) {
        const char* fn = "Trainer.ablate";
        return guarded(fn, [&] { return trainer_ablate(*trainer_, spec, fn); });
    }
    val composition() {
        const char* fn = "Trainer.composition";
        return guarded(fn, [&] { return circuits_js(trainer_->model(), fn); });
    }

    // What the JS object keeps: resolved options, the example, the plan, the parameter layout.
    val describe() const {
        val out = val::object();
        out.set("options", options_js(trainer_->options()));
        const std::vector<std::int32_t> ex = trainer_->example();
        val example = val::array();
        for (std::size_t i = 0; i < ex.size(); ++i) example.set(i, ex[i]);
        out.set("example", example);
        const memory_plan& p = trainer_->model().plan();
        val plan = val::object();
        plan.set("parameters", static_cast<double>(p.parameters));
        plan.set("activations", static_cast<double>(p.activations));
        plan.set("scratch", static_cast<double>(p.scratch));
        plan.set("bytes", static_cast<double>(p.bytes()));
        out.set("plan", plan);
        out.set("parameters", layout_js(trainer_->model().parameters()));
        out.set("divergenceLimit", trainer_->divergence_limit());
        out.set("uniformLoss", trainer_->uniform_loss());
        put(out, "formedThreshold", trainer::formed_threshold);
        put(out, "lossWindow", static_cast<double>(trainer::loss_window));
        put(out, "riseLimit", trainer::rise_limit);
        put_flag(out, "recordsHeads", trainer_->records_heads());
        return out;
    }

    // { step, layer, head, score } of the first induction head, or null while none has formed
    // (in each step result; the JS object keeps the last)
    val formed() const {
        const formed_head& f = trainer_->formed();
        if (f.step == 0) return val::null();
        val out = val::object();
        put(out, "step", static_cast<double>(f.step));
        put(out, "layer", static_cast<double>(f.layer));
        put(out, "head", static_cast<double>(f.head));
        put(out, "score", f.score);
        return out;
    }

    double steps() const { return static_cast<double>(trainer_->steps()); }
    bool diverged() const { return trainer_->diverged(); }
    double diverged_at() const { return static_cast<double>(trainer_->diverged_at()); }
    double diverged_loss() const { return trainer_->diverged_loss(); }

    // Every weight in parameters() order, as a JS-owned Float32Array.
    val weights() const {
        const transformer& m = trainer_->model();
        return val::global("Float32Array").new_(emscripten::typed_memory_view(m.param_count(), m.params()));
    }

    // data: a Float32Array of every weight in parameters() order (web/src/api/trainer.js matched
    // the names and shapes of the file against parameters()).
    val set_weights(const val& data) { return weights_into(*trainer_, data, "loadTrainer"); }

    void release() { trainer_.reset(); }

private:
    std::unique_ptr<trainer> trainer_;
};

// spec: { Q, K, V, dOutput, causal?, validLens?, mask?, window?, scale?, scaling?, temperature? }
val attention_backward_js(const val& spec) {
    const char* fn = "attentionBackward";
    return guarded(fn, [&] {
        const attention_gradients g =
            attention_backward(to_tensor(spec["Q"], fn, "Q"), to_tensor(spec["K"], fn, "K"), to_tensor(spec["V"], fn, "V"),
                               to_tensor(spec["dOutput"], fn, "dOutput"), to_attention_options(spec["options"], fn), fn);
        val out = val::object();
        out.set("dQ", to_js(g.dq));
        out.set("dK", to_js(g.dk));
        out.set("dV", to_js(g.dv));
        out.set("dS", to_js(g.ds));
        out.set("scale", g.scale);
        return out;
    });
}

val trainer_defaults() { return options_js(trainer_options{}); }

// A Float32Array as binary16 bits (a Uint16Array), nearest half, ties to even.
val floats_to_halves_js(const val& data) {
    const std::vector<float> x = floats(data);
    std::vector<std::uint16_t> h(x.size());
    floats_to_halves(x.data(), h.data(), x.size());
    return val::global("Uint16Array").new_(emscripten::typed_memory_view(h.size(), h.data()));
}

// binary16 bits (a Uint16Array) as the Float32Array of their exact values.
val halves_to_floats_js(const val& data) {
    std::vector<std::uint16_t> h(data["length"].as<std::size_t>());
    if (!h.empty()) val(emscripten::typed_memory_view(h.size(), h.data())).call<void>("set", data);
    std::vector<float> x(h.size());
    halves_to_floats(h.data(), x.data(), h.size());
    return val::global("Float32Array").new_(emscripten::typed_memory_view(x.size(), x.data()));
}

}  // namespace

void register_trainer() {
    emscripten::function("attentionBackward", &attention_backward_js);
    emscripten::function("trainerDefaults", &trainer_defaults);
    emscripten::function("floatsToHalves", &floats_to_halves_js);
    emscripten::function("halvesToFloats", &halves_to_floats_js);
    object_functions<trainer_handle>("Trainer")
        .method<&trainer_handle::configure>("configure")
        .method<&trainer_handle::step>("step")
        .method<&trainer_handle::evaluate>("evaluate")
        .method<&trainer_handle::loss_by_position>("lossByPosition")
        .method<&trainer_handle::attention>("attention")
        .method<&trainer_handle::head_scores>("headScores")
        .method<&trainer_handle::describe>("describe")
        .method<&trainer_handle::steps>("steps")
        .method<&trainer_handle::diverged>("diverged")
        .method<&trainer_handle::diverged_at>("divergedAt")
        .method<&trainer_handle::diverged_loss>("divergedLoss")
        .method<&trainer_handle::weights>("weights")
        .method<&trainer_handle::set_weights>("setWeights")
        .method<&trainer_handle::ablate>("ablate")
        .method<&trainer_handle::composition>("composition")
        .method<&trainer_handle::release>("release");
}

}  // namespace attnlab::bindings