#pragma once
// embind registrations of training: `attentionBackward`, `trainerDefaults`, the Trainer
// engine object (attnlab/trainer.hpp) and the Model engine object, a trained model for
// reading (attnlab/language_model.hpp).

namespace attnlab::bindings {

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_trainer();

}  // namespace attnlab::bindings
