#pragma once
// embind for positions.hpp: lab.positions.

namespace attnlab::bindings {

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_positions();

}  // namespace attnlab::bindings
