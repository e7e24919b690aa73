#pragma once
// embind registrations of the mistakes (attnlab/mistakes.hpp): `mistake` and `mistakeCatalog`.

namespace attnlab::bindings {

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_mistakes();

}  // namespace attnlab::bindings
