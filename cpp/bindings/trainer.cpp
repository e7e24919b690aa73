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
#include "attnlab/language_model.hpp"
#include "attnlab/trainer.hpp"
#include "ablation.hpp"
#include "convert.hpp"
#include "object_functions.hpp"

namespace attnlab::bindings {

namespace {

bool given(const val& v) { return !v.isUndefined() && !v.isNull(); }

// Fields set through a const char* key: val::set is a template on the key's type, and every
// string literal's length is a type of its own (each a copy of the code in the wasm).
void put(val& o, const char* key, const val& v) { o.set(key, v); }
void put(val& o, const char* key, double x) { o.set(key, x); }
void put_flag(val& o, const char* key, bool b) { o.set(key, b); }

std::size_t size_field(const val& spec, const char* name, std::size_t fallback, const char* fn) {
    const val v = spec[name];
    return given(v) ? to_size(v.as<double>(), fn, name) : fallback;
}

// A Float64Array's numbers, copied in with one set().
std::vector<double> doubles(const val& array) {
    std::vector<double> out(array["length"].as<std::size_t>());
    if (!out.empty()) val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
    return out;
}

task_kind task_of(const std::string& name) {
    for (task_kind k : {task_kind::induction, task_kind::copy, task_kind::reverse, task_kind::sort,
                        task_kind::sequences, task_kind::text}) {
        if (name == task_name(k)) return k;
    }
    throw std::logic_error("createTrainer: internal error (task)");
}

// A name the reader already matched (signatures.js, POSITIONS).
position_kind position_kind_of(const std::string& name) {
    for (position_kind k : {position_kind::learned, position_kind::sinusoidal, position_kind::rope, position_kind::alibi,
                            position_kind::none}) {
        if (name == position_kind_name(k)) return k;
    }
    throw std::logic_error("createTrainer: internal error (positions)");
}

// The model's shape from spec; absent fields keep transformer_config's defaults.
transformer_config to_model_config(const val& spec, const char* fn) {
    transformer_config m;
    m.vocab = size_field(spec, "vocab", m.vocab, fn);
    m.seq_len = size_field(spec, "seqLen", m.seq_len, fn);
    m.layers = size_field(spec, "layers", m.layers, fn);
    m.heads = size_field(spec, "heads", m.heads, fn);
    m.d_model = size_field(spec, "dModel", m.d_model, fn);
    m.mlp = size_field(spec, "mlp", m.mlp, fn);
    if (given(spec["activation"])) {
        m.act = spec["activation"].as<std::string>() == "relu" ? grad::activation::relu : grad::activation::gelu;
    }
    if (given(spec["layerNorm"])) m.layer_norm = spec["layerNorm"].as<bool>();
    if (given(spec["positions"])) m.positions = position_kind_of(spec["positions"].as<std::string>());
    return m;
}

// spec: the options web/src/api/trainer.js read; absent ones keep trainer_options' defaults.
trainer_options to_trainer_options(const val& spec, const char* fn) {
    trainer_options o;
    o.model = to_model_config(spec, fn);
    const transformer_config& m = o.model;
    o.batch = size_field(spec, "batch", o.batch, fn);
    if (given(spec["lr"])) o.optimiser.lr = spec["lr"].as<double>();
    if (given(spec["weightDecay"])) o.optimiser.weight_decay = spec["weightDecay"].as<double>();
    if (given(spec["warmupSteps"])) o.schedule.warmup_steps = spec["warmupSteps"].as<double>();
    if (given(spec["decaySteps"])) o.schedule.decay_steps = spec["decaySteps"].as<double>();
    if (given(spec["minLr"])) o.schedule.min_lr = spec["minLr"].as<double>();
    if (given(spec["seed"])) o.seed = spec["seed"].as<double>();
    if (given(spec["task"])) o.task.kind = task_of(spec["task"].as<std::string>());
    o.task.score_from = size_field(spec, "scoreFrom", 0, fn);
    if (given(spec["repeats"])) o.task.repeats = spec["repeats"].as<double>();
    // Token ids are checked against the vocabulary once the model's sizes are (in the trainer);
    // here only whether each is a whole number that an int32 holds, with the same message.
    const std::size_t vocab_for_ids = m.vocab > 0 && m.vocab <= max_vocab ? m.vocab : max_vocab;
    if (given(spec["sequences"])) {
        const std::vector<double> lengths = doubles(spec["sequences"]["lengths"]);
        const std::vector<double> ids = doubles(spec["sequences"]["tokens"]);
        std::size_t at = 0;
        for (std::size_t i = 0; i < lengths.size(); ++i) {
            std::vector<std::int32_t> seq;
            const std::size_t len = static_cast<std::size_t>(lengths[i]);  // counted by trainer.js
            for (std::size_t j = 0; j < len; ++j, ++at) {
                seq.push_back(to_token(ids[at], vocab_for_ids, fn, (error_text("sequences[") << i << "][" << j << "]").str()));
            }
            o.task.sequences.push_back(std::move(seq));
        }
    }
    if (given(spec["text"])) {
        const std::vector<double> ids = doubles(spec["text"]);
        o.task.stream.reserve(ids.size());
        for (std::size_t i = 0; i < ids.size(); ++i) {
            o.task.stream.push_back(to_token(ids[i], vocab_for_ids, fn, (error_text("text[") << i << "]").str()));
        }
    }
    return o;
}

val options_js(const trainer_options& o) {
    val out = val::object();
    const transformer_config& m = o.model;
    out.set("task", std::string(task_name(o.task.kind)));
    out.set("vocab", static_cast<double>(m.vocab));
    out.set("seqLen", static_cast<double>(m.seq_len));
    out.set("layers", static_cast<double>(m.layers));
    out.set("heads", static_cast<double>(m.heads));
    out.set("dModel", static_cast<double>(m.d_model));
    out.set("mlp", static_cast<double>(m.mlp));
    out.set("activation", std::string(m.act == grad::activation::relu ? "relu" : "gelu"));
    out.set("layerNorm", m.layer_norm);
    out.set("positions", std::string(position_kind_name(m.positions)));
    out.set("batch", static_cast<double>(o.batch));
    out.set("lr", o.optimiser.lr);
    out.set("weightDecay", o.optimiser.weight_decay);
    out.set("warmupSteps", o.schedule.warmup_steps);
    out.set("decaySteps", o.schedule.decay_steps);
    out.set("minLr", o.schedule.min_lr);
    out.set("seed", o.seed);
    out.set("scoreFrom", static_cast<double>(o.task.score_from));
    out.set("repeats", o.task.repeats);
    return out;
}

// A Float64Array of token ids (checked as whole numbers below vocab) as int32s.
std::vector<std::int32_t> token_ids(const val& tokens, const transformer_config& c, const char* fn) {
    const std::vector<double> ids = doubles(tokens);
    std::vector<std::int32_t> t(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) t[i] = to_token(ids[i], c.vocab, fn, (error_text("tokens[") << i << "]").str());
    return t;
}

// [{ name, shape }] of every weight, in parameters() order.
val layout_js(const std::vector<parameter>& params) {
    val layout = val::array();
    for (std::size_t i = 0; i < params.size(); ++i) {
        val entry = val::object();
        entry.set("name", params[i].name);
        entry.set("shape", shape_to_js(params[i].shape));
        layout.set(i, entry);
    }
    return layout;
}

// data: a Float32Array of every weight in parameters() order, copied in with one set().
std::vector<float> floats(const val& data) {
    std::vector<float> w(data["length"].as<std::size_t>());
    if (!w.empty()) val(emscripten::typed_memory_view(w.size(), w.data())).call<void>("set", data);
    return w;
}

// Sets a trainer's or a model's weights from data, a Float32Array in parameters() order.
template <class Target>
val weights_into(Target& target, const val& data, const char* fn) {
    return guarded(fn, [&] {
        const std::vector<float> w = floats(data);
        target.set_weights(w.data(), w.size(), fn);
        return val::object();
    });
}

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

// A trained model for reading (attnlab/language_model.hpp): web/src/api/model.js makes one from a
// weights file, sets its weights, and asks it for attention, logits and predictions.
class model_handle {
public:
    val configure(const val& spec) {
        const char* fn = "loadModel";
        return guarded(fn, [&] {
            model_.reset();
            model_ = std::make_unique<language_model>(to_model_config(spec, fn), fn);
            val out = val::object();
            out.set("parameters", layout_js(model_->parameters()));
            return out;
        });
    }

    val set_weights(const val& data) { return weights_into(*model_, data, "loadModel"); }

    val attention(const val& tokens) {
        const char* fn = "Model.attention";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            tensor p = empty({c.layers, c.heads, t.size(), t.size()});
            model_->attention(t.data(), t.size(), p.data(), fn);
            return to_js(p);
        });
    }

    val logits(const val& tokens) {
        const char* fn = "Model.logits";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            std::vector<float> out(c.vocab);
            model_->next_logits(t.data(), t.size(), out.data(), fn);
            return val::global("Float32Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
        });
    }

    // { ids, probabilities }: the top next tokens, most probable first.
    val predict(const val& tokens, double top) {
        const char* fn = "Model.predict";
        return guarded(fn, [&] {
            const std::vector<std::int32_t> t = token_ids(tokens, model_->config(), fn);
            const std::vector<next_token> best = model_->predict(t.data(), t.size(), to_size(top, fn, "top"), fn);
            val ids = val::array(), probabilities = val::array();
            for (std::size_t i = 0; i < best.size(); ++i) {
                ids.set(i, best[i].id);
                probabilities.set(i, best[i].probability);
            }
            val out = val::object();
            out.set("ids", ids);
            out.set("probabilities", probabilities);
            return out;
        });
    }

    // [{ layer, head, entropy, previousToken, firstToken, diagonal, prefixMatching, prefixMatchingApart }], null
    // where a score has no row to average over
    val scores(const val& tokens) {
        const char* fn = "Model.headScores";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            const std::vector<head_scores> all = model_->scores(t.data(), t.size(), fn);
            const auto number = [](const std::optional<double>& x) { return x ? val(*x) : val::null(); };
            val out = val::array();
            for (std::size_t i = 0; i < all.size(); ++i) {
                val h = val::object();
                h.set("layer", static_cast<double>(i / c.heads));
                h.set("head", static_cast<double>(i % c.heads));
                h.set("entropy", number(all[i].entropy));
                h.set("previousToken", number(all[i].previous_token));
                h.set("firstToken", number(all[i].first_token));
                h.set("diagonal", number(all[i].diagonal));
                h.set("prefixMatching", number(all[i].prefix_matching));
                h.set("prefixMatchingApart", number(all[i].prefix_matching_apart));
                out.set(i, h);
            }
            return out;
        });
    }

    // Ablation and circuits (ablation.cpp in this folder)
    val ablate(const val& spec) {
        const char* fn = "Model.ablate";
        return guarded(fn, [&] { return model_ablate(*model_, spec, fn); });
    }
    val composition() {
        const char* fn = "Model.composition";
        return guarded(fn, [&] { return circuits_js(model_->network(fn), fn); });
    }

    void release() { model_.reset(); }

private:
    std::unique_ptr<language_model> model_;
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
    object_functions<model_handle>("Model")
        .method<&model_handle::configure>("configure")
        .method<&model_handle::set_weights>("setWeights")
        .method<&model_handle::attention>("attention")
        .method<&model_handle::logits>("logits")
        .method<&model_handle::predict>("predict")
        .method<&model_handle::scores>("headScores")
        .method<&model_handle::ablate>("ablate")
        .method<&model_handle::composition>("composition")
        .method<&model_handle::release>("release");
}

}  // namespace attnlab::bindings
