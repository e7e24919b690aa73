#pragma once
// embind registration of the Model engine object: a trained model for reading
// (attnlab/language_model.hpp), which web/src/api/model.js drives.

namespace attnlab::bindings {

/// Registers the Model engine object; call once inside EMSCRIPTEN_BINDINGS.
void register_model();

}  // namespace attnlab::bindings
