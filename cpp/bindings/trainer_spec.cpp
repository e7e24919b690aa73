// The conversions the Trainer and Model engine objects share (trainer_spec.hpp).

#include "trainer_spec.hpp"

#include <string>

#include "attnlab/errors.hpp"

namespace attnlab::bindings {

// Fields set through a const char* key: val::set is a template on the key's type, and every
// string literal's length is a type of its own (each a copy of the code in the wasm).
void put(val& o, const char* key, const val& v) { o.set(key, v); }
void put(val& o, const char* key, double x) { o.set(key, x); }
void put_flag(val& o, const char* key, bool b) { o.set(key, b); }

namespace {

bool given(const val& v) { return !v.isUndefined() && !v.isNull(); }

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

}  // namespace

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

}  // namespace attnlab::bindings
