#pragma once
// embind registrations of training: `attentionBackward`, `trainerDefaults`, the half-precision
// conversions and the Trainer engine object (attnlab/trainer.hpp). The Model engine object,
// a trained model for reading, is model.hpp's; the conversions both share, trainer_spec.hpp's.

namespace attnlab::bindings {

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_trainer();

}  // namespace attnlab::bindings
