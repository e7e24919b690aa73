#pragma once
// embind registrations of training: `attentionBackward`, `trainerDefaults` and the Trainer
// engine object (attnlab/trainer.hpp).

namespace attnlab::bindings {

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_trainer();

}  // namespace attnlab::bindings
