#pragma once
// The conversions the Trainer and Model engine objects share (trainer.cpp, model.cpp): a
// model's shape and a trainer's options from the specs web/src/api/trainer.js and model.js
// build, the options back as JS, token lists, the weights' layout and their data.

#include <cstdint>
#include <vector>

#include <emscripten/val.h>

#include "attnlab/trainer.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

// Fields set through a const char* key: val::set is a template on the key's type, and every
// string literal's length is a type of its own (each a copy of the code in the wasm).
void put(val& o, const char* key, const val& v);
void put(val& o, const char* key, double x);
void put_flag(val& o, const char* key, bool b);

/// The model's shape from spec; absent fields keep transformer_config's defaults.
transformer_config to_model_config(const val& spec, const char* fn);
/// spec: the options web/src/api/trainer.js read; absent ones keep trainer_options' defaults.
trainer_options to_trainer_options(const val& spec, const char* fn);
/// The options as the JS object shows them (lab.TRAINER_DEFAULTS, Trainer.options).
val options_js(const trainer_options& o);
/// A Float64Array of token ids (checked as whole numbers below vocab) as int32s.
std::vector<std::int32_t> token_ids(const val& tokens, const transformer_config& c, const char* fn);
/// [{ name, shape }] of every weight, in parameters() order.
val layout_js(const std::vector<parameter>& params);
/// data: a Float32Array of every weight in parameters() order, copied in with one set().
std::vector<float> floats(const val& data);

// Sets a trainer's or a model's weights from data, a Float32Array in parameters() order.
template <class Target>
val weights_into(Target& target, const val& data, const char* fn) {
    return guarded(fn, [&] {
        const std::vector<float> w = floats(data);
        target.set_weights(w.data(), w.size(), fn);
        return val::object();
    });
}

}  // namespace attnlab::bindings
