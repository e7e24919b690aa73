#pragma once
// embind for positions.hpp: lab.positions.

#include "attnlab/positions.hpp"

namespace attnlab::bindings {

/// The position options of lab.attention and createKVCache as web/src/api/staging.js passes
/// them: layout -1 without RoPE, 0 interleaved, 1 half; `base` only when `has_base` (else the
/// core's default_position_base).
position_options position_spec(int layout, bool has_base, double base, double offset, bool alibi);

/// Registers the functions; call once inside EMSCRIPTEN_BINDINGS.
void register_positions();

}  // namespace attnlab::bindings
